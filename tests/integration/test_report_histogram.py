# SPDX-License-Identifier: GPL-2.0
"""ntprof report --histogram and the standard deviation, on every kind of
report (a host recording alone, a target alone, a host and a target joined,
one "-r both" file; summary and detail views).

Every bucket is checked against the raw rows: each stage's values computed
here from the stored timestamps (SQL over the .ntp file, or the joined
generator's records), counted into the log-linear buckets enumerated here
from their definition (each octave [2^m, 2^(m+1)) cut into equal parts) by
comparison, not by any bit trick; the counts must sum to n and the buckets
must be contiguous from the first non-empty one to the last.  The text's bars are read back and
must say what the JSON says, and the rows `grep -v '^#'` leaves must be the
same with and without --histogram."""

import json
import re
import sqlite3
from decimal import Decimal

import pytest

import ntpgen
from report_text import parse_tables, size_str, us
from conftest import Exit, run_ok

HIST_TITLE = re.compile(r"# histogram of ([^,]+), (\S+) (\S+) (\S+)(?: of file (\d+))? "
                        r"\(n=(\d+)\), (ns|us|ms), (\d+) buckets? an octave$")
HIST_ROW = re.compile(r"#\s+(-?[\d.]+) -> ([\d.]+)\s+:\s+(\d+)\s+([\d.]+)% \|([* ]+)\|$")
NS_PER = {"ns": 1, "us": 1000, "ms": 1000000}
BAR = 40


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *args).stdout)


def all_buckets(per_octave):
    """Every bucket's inclusive bounds, from the definition: the values below
    1 ns, then 1 to per_octave - 1 a bucket each, then each octave [2^m,
    2^(m+1)) in per_octave equal parts, up to the largest 64-bit value."""
    out = [(None, 0)] + [(v, v) for v in range(1, per_octave)]
    m = per_octave.bit_length() - 1
    while m < 63:
        width = 2 ** m // per_octave
        for i in range(per_octave):
            lo = 2 ** m + i * width
            out.append((lo, lo + width - 1))
        m += 1
    return out


def expected_buckets(values, per_octave=4):
    """[(lo, hi, count)] from the first non-empty bucket to the last, by
    comparing every value with every bucket's bounds."""
    out = []
    for k, (lo, hi) in enumerate(all_buckets(per_octave)):
        n = sum(1 for v in values if (lo is None or v >= lo) and v <= hi)
        out.append((min(values) if k == 0 else lo, hi, n))
    first = next(i for i, b in enumerate(out) if b[2])
    last = max(i for i, b in enumerate(out) if b[2])
    return out[first:last + 1]


def assert_histogram(summary, values, per_octave=4):
    h = summary["histogram"]
    assert [(b["lo_ns"], b["hi_ns"], b["count"]) for b in h] == \
        expected_buckets(values, per_octave)
    assert sum(b["count"] for b in h) == len(values)
    assert h[0]["count"] and h[-1]["count"]
    for a, b in zip(h, h[1:]):
        assert b["lo_ns"] == a["hi_ns"] + 1
    assert summary["stddev_ns"] == ntpgen.stddev_ns(values)


def assert_doc(doc, want, total="e2e", per_octave=4):
    """want: {group key: {stage json name or total: [values]}}"""
    assert doc["histogram_buckets_per_octave"] == per_octave
    keys = [(g["file"], g["io_type"], g["bytes"], g["namespace"] or g["device"])
            for g in doc["groups"]]
    assert sorted(keys) == sorted(want)
    for g, key in zip(doc["groups"], keys):
        w = want[key]
        assert g["n"] == len(w[total])
        assert_histogram(g["e2e"], w[total], per_octave)
        for s in g["stages"]:
            assert_histogram(s, w[s["stage"]], per_octave)


last_form = set()


def parse_histograms(text):
    """{(stage label, io_type, size, name, file or None): (n, [(lo, hi, count, pct, bar)])},
    the bounds read back in ns from their unit; every title's unit and buckets an octave
    in the module's last_form."""
    out, cur = {}, None
    for line in text.splitlines():
        m = HIST_TITLE.match(line)
        if m:
            cur = (m[1], m[2], m[3], m[4], int(m[5]) if m[5] else None)
            out[cur] = (int(m[6]), [])
            unit = m[7]
            last_form.add((unit, int(m[8])))
            continue
        m = HIST_ROW.match(line)
        if m:
            assert cur is not None, line
            # every digit is printed: the bound in ns comes back exactly
            lo, hi = (Decimal(x) * NS_PER[unit] for x in (m[1], m[2]))
            assert lo == int(lo) and hi == int(hi), line
            out[cur][1].append((int(lo), int(hi), int(m[3]), float(m[4]), m[5]))
            continue
        if not re.match(r"#\s+from -> to\s", line):
            cur = None
    return out


def assert_text(text, doc, labels, total_label, joined=False):
    """The bars say what the JSON's buckets say, for every group and stage."""
    hists = parse_histograms(text)
    seen = 0
    for g in doc["groups"]:
        name = g["namespace"] or g["device"]
        base = (g["io_type"], size_str(g["bytes"]), name, g["file"] if joined else None)
        pairs = [(labels[s["stage"]], s) for s in g["stages"]] + [(total_label, g["e2e"])]
        for label, s in pairs:
            n, rows = hists[(label,) + base]
            seen += 1
            assert n == g["n"]
            assert [(lo, hi, c) for lo, hi, c, _, _ in rows] == \
                [(b["lo_ns"], b["hi_ns"], b["count"]) for b in s["histogram"]]
            most = max(c for _, _, c, _, _ in rows)
            for _, _, c, pct, bar in rows:
                assert len(bar) == BAR
                stars = bar.rstrip(" ")
                assert set(stars) <= {"*"}
                assert len(stars) == -(-c * BAR // most)      # rounded up
                assert abs(pct - 100.0 * c / n) <= 0.05 + 1e-9
    assert seen == len(hists)


def data_rows(text):
    return [line for line in text.splitlines() if not line.startswith("#")]


# ---- a host recording alone --------------------------------------------------------

@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("hist") / "host.ntp", seed=14).path


def host_rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(
        "SELECT s.io_type, s.bytes, s.namespace, s.e2e_ns, s.block_ns, s.driver_ns,"
        " s.network_star_ns, h.* FROM host_stages s JOIN host_io h USING (id)")]
    db.close()
    return rows


def host_expected(path, detail=False):
    want = {}
    for r in host_rows(path):
        w = want.setdefault((1, r["io_type"], r["bytes"], r["namespace"]), {})
        vals = ntpgen.host_detail_stages(r) if detail else \
            {"block": r["block_ns"], "driver": r["driver_ns"],
             "network_star": r["network_star_ns"]}
        vals["e2e"] = r["e2e_ns"]
        for k, v in vals.items():
            w.setdefault(k, []).append(v)
    return want


HOST_LABELS = {"block": "block", "driver": "driver", "network_star": "network*"}
HOST_DETAIL_LABELS = {"block": "block", "host_tx": "host-tx", "r2t_host": "r2t-host",
                      "network_star": "network*", "host_rx": "host-rx"}


def test_host_histograms_match_the_rows(run, host):
    doc = report_json(run, "--histogram", host)
    assert_doc(doc, host_expected(host))
    assert sum(g["n"] for g in doc["groups"]) == len(host_rows(host))
    text = run_ok(run, "report", "--histogram", host).stdout
    assert_text(text, doc, HOST_LABELS, "end-to-end")


def test_host_detail_histograms_match_the_rows(run, host):
    doc = report_json(run, "--histogram", "--stages=detail", host)
    assert_doc(doc, host_expected(host, detail=True))
    text = run_ok(run, "report", "--histogram", "-S", "detail", host).stdout
    assert_text(text, doc, HOST_DETAIL_LABELS, "end-to-end")


def test_without_histogram_the_member_is_null_and_no_bars(run, host):
    doc = report_json(run, host)
    for g in doc["groups"]:
        for s in [g["e2e"]] + g["stages"]:
            assert s["histogram"] is None
            assert isinstance(s["stddev_ns"], int)
    text = run_ok(run, "report", host).stdout
    assert "# histogram of" not in text


def test_histogram_adds_only_comment_lines(run, host):
    """grep -v '^#' users get the same rows either way; the long form of -t
    is the same with or without it (the buckets are the JSON's)."""
    plain = run_ok(run, "report", host).stdout
    hist = run_ok(run, "report", "--histogram", host).stdout
    assert data_rows(hist) == data_rows(plain)
    assert len(hist.splitlines()) > len(plain.splitlines())
    assert parse_histograms(hist)
    for sep in (",", "\t"):
        assert run_ok(run, "report", "--histogram", "-t", sep, host).stdout == \
            run_ok(run, "report", "-t", sep, host).stdout


def test_stddev_column_equals_json(run, host):
    """The text's stddev (us, last column of both tables) is the JSON's stddev_ns."""
    doc = report_json(run, host)
    t = parse_tables(run_ok(run, "report", host).stdout)
    for tg, g in zip(t["groups"], doc["groups"]):
        assert list(tg)[-1] == "stddev"
        assert tg["stddev"] == us(g['e2e']['stddev_ns'])
        rows = t["stages"][(g["io_type"], size_str(g["bytes"]), g["namespace"])]
        for s in g["stages"]:
            row = rows[HOST_LABELS[s["stage"]]]
            assert list(row)[-1] == "stddev"
            assert row["stddev"] == us(s['stddev_ns'])
        assert rows["end-to-end"]["stddev"] == us(g['e2e']['stddev_ns'])
        assert rows["unattributed"]["stddev"] == "-"


def test_percent_limit_hides_the_histograms_of_hidden_groups(run, host):
    doc = report_json(run, "--histogram", "--percent-limit", "10", host)
    assert doc["hidden_groups"] > 0
    text = run_ok(run, "report", "--histogram", "--percent-limit", "10", host).stdout
    groups = {(k[1], k[2], k[3]) for k in parse_histograms(text)}
    assert groups == {(g["io_type"], size_str(g["bytes"]), g["namespace"])
                      for g in doc["groups"]}


def test_zero_latencies_fall_in_the_first_bucket(run, tmp_path):
    """A stage of 0 ns: bucket 0, which ends at 0.  (A host stage below 0 is an
    impossible command, left out of the statistics: test_hostile_files.py.)"""
    path = ntpgen.generate(tmp_path / "neg.ntp", seed=3).path
    db = sqlite3.connect(path)
    ids = [r[0] for r in db.execute("SELECT id FROM host_io WHERE opcode = 2 AND bytes = 4096"
                                    " ORDER BY id LIMIT 6")]
    db.execute("UPDATE host_io SET h_queue_ns = h_start_ns WHERE id IN (?, ?, ?)", ids[:3])
    db.commit()
    db.close()
    doc = report_json(run, "--histogram", path)
    assert_doc(doc, host_expected(path))
    g = next(g for g in doc["groups"] if g["io_type"] == "read" and g["bytes"] == 4096)
    block = next(s for s in g["stages"] if s["stage"] == "block")
    first = block["histogram"][0]
    assert first["hi_ns"] == 0 and first["count"] == 3 and first["lo_ns"] == block["min_ns"] == 0
    text = run_ok(run, "report", "--histogram", path).stdout
    assert_text(text, doc, HOST_LABELS, "end-to-end")


@pytest.mark.parametrize("per_octave, humps", [
    # log-linear, 4 an octave: 1792.., 2048.., 2560.. and 458752.., 524288..
    (4, {1792, 2048, 2560, 458752, 524288}),
    # log2: [1 KiB, 4 KiB) ns and [256 KiB, 1 MiB) ns
    (1, {1024, 2048, 262144, 524288}),
])
def test_bimodal_stage_shows_two_modes(run, tmp_path, per_octave, humps):
    """What stddev and the histogram are for: one group whose storage is
    either fast or slow has a gap of empty buckets between two humps."""
    groups = (ntpgen.JGroup("read", 4096, "nvme0n1", 400, storage=(2_000, 3_000)),
              ntpgen.JGroup("read", 4096, "nvme0n2", 400, storage=(500_000, 600_000)))
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=5, groups=groups)
    doc = report_json(run, "--histogram-buckets", str(per_octave), js.host_paths[0])
    # merge the two groups' storage, as one slow-looking stage would be
    counts = {}
    for g in doc["groups"]:
        for b in next(s for s in g["stages"] if s["stage"] == "storage")["histogram"]:
            counts[b["lo_ns"]] = counts.get(b["lo_ns"], 0) + b["count"]
    assert sum(counts.values()) == sum(g["n"] for g in doc["groups"]) == len(js.matched())
    assert_doc(doc, joined_expected(js), per_octave=per_octave)
    # two humps, nothing between
    assert {lo for lo, c in counts.items() if c} == humps
    for g in doc["groups"]:
        s = next(s for s in g["stages"] if s["stage"] == "storage")
        assert s["stddev_ns"] < s["mean_ns"] / 2     # each group alone is one mode


# ---- a target alone, joined recordings ---------------------------------------------

@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("histjoin")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=41)


def joined_expected(js, detail=False):
    want = {}
    for (hf, io_type, nbytes, ns), cmds in js.by_group().items():
        w = want.setdefault((hf, io_type, nbytes, ns), {})
        for c in cmds:
            vals = dict(c.detail()) if detail else dict(c.stages())
            vals["e2e"] = c.host["h_done_ns"] - c.host["h_start_ns"]
            for k, v in vals.items():
                w.setdefault(k, []).append(v)
    return want


JOIN_LABELS = {"block": "block", "driver": "driver(h)", "network": "network",
               "target_driver": "driver(t)", "storage": "storage"}
DETAIL_LABELS = {"block": "block", "host_tx": "host-tx", "network": "network",
                 "target_rx": "target-rx", "r2t_wait": "r2t-wait", "r2t_host": "r2t-host",
                 "storage": "storage", "target_tx": "target-tx", "host_rx": "host-rx"}


def test_joined_pair_histograms_match_the_records(run, pair):
    args = (pair.host_paths[0], pair.target_paths[0])
    doc = report_json(run, "--histogram", *args)
    assert doc["kind"] == "joined"
    assert_doc(doc, joined_expected(pair))
    assert sum(g["n"] for g in doc["groups"]) == len(pair.matched())
    assert_text(run_ok(run, "report", "--histogram", *args).stdout, doc, JOIN_LABELS,
                "end-to-end", joined=True)


def test_joined_detail_histograms_match_the_records(run, pair):
    args = (pair.host_paths[0], pair.target_paths[0])
    doc = report_json(run, "--histogram", "--stages=detail", *args)
    assert_doc(doc, joined_expected(pair, detail=True))
    assert_text(run_ok(run, "report", "--histogram", "--stages=detail", *args).stdout, doc,
                DETAIL_LABELS, "end-to-end", joined=True)


def test_both_recording_histograms_match_the_records(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=9)
    doc = report_json(run, "--histogram", js.host_paths[0])
    assert doc["kind"] == "joined"
    assert_doc(doc, joined_expected(js))


def target_expected(path, detail=False):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(
        "SELECT s.io_type, s.bytes, s.device, s.target_driver_ns, s.storage_ns,"
        " s.residence_ns, t.* FROM target_stages s JOIN target_io t USING (id)")]
    db.close()
    want = {}
    for r in rows:
        w = want.setdefault((1, r["io_type"], r["bytes"], r["device"]), {})
        r2t_wait = r["t_submit_ns"] - r["t_r2t_ns"] if r["t_r2t_ns"] is not None else 0
        if detail:
            vals = {"target_rx": r["t_submit_ns"] - r["t_recv_ns"] - r2t_wait,
                    "storage": r["storage_ns"], "target_tx": r["t_sent_ns"] - r["t_cmpl_ns"]}
        else:
            vals = {"target_driver": r["target_driver_ns"], "storage": r["storage_ns"]}
        vals["e2e"] = r["residence_ns"]
        for k, v in vals.items():
            w.setdefault(k, []).append(v)
    return want


def test_target_alone_histograms_match_the_rows(run, pair):
    path = pair.target_paths[0]
    doc = report_json(run, "--histogram", path)
    assert doc["kind"] == "target"
    assert_doc(doc, target_expected(path))
    assert_text(run_ok(run, "report", "--histogram", path).stdout, doc,
                {"target_driver": "driver(t)", "storage": "storage"}, "residence")
    doc = report_json(run, "--histogram", "-S", "detail", path)
    assert_doc(doc, target_expected(path, detail=True))
    assert_text(run_ok(run, "report", "--histogram", "-S", "detail", path).stdout, doc,
                {"target_rx": "target-rx", "storage": "storage", "target_tx": "target-tx"},
                "residence")


# ---- the buckets an octave and the unit ------------------------------------------

@pytest.mark.parametrize("per_octave", [1, 2, 4, 8])
@pytest.mark.parametrize("unit", ["ns", "us", "ms"])
def test_buckets_and_unit_as_asked(run, host, per_octave, unit):
    """--histogram-buckets and --histogram-unit alone ask for --histogram; the
    JSON's bounds stay in ns, the text's are in the unit with every digit."""
    args = ("--histogram-buckets", str(per_octave), "--histogram-unit", unit)
    doc = report_json(run, *args, host)
    assert_doc(doc, host_expected(host), per_octave=per_octave)
    last_form.clear()
    text = run_ok(run, "report", *args, host).stdout
    assert_text(text, doc, HOST_LABELS, "end-to-end")
    assert last_form == {(unit, per_octave)}
    # finer buckets: at least as many of them, each a part of a coarser one
    if per_octave > 1:
        coarse = report_json(run, "--histogram-buckets", str(per_octave // 2), host)
        for g, c in zip(doc["groups"], coarse["groups"]):
            fine, wide = g["e2e"]["histogram"], c["e2e"]["histogram"]
            assert len(fine) >= len(wide)
            assert {b["lo_ns"] for b in wide[1:]} <= {b["lo_ns"] for b in fine}


def test_default_form_is_four_an_octave_in_us(run, host):
    last_form.clear()
    parse_histograms(run_ok(run, "report", "--histogram", host).stdout)
    assert last_form == {("us", 4)}
    assert report_json(run, host)["histogram_buckets_per_octave"] is None


@pytest.mark.parametrize("args", [("--histogram-buckets", "3"), ("--histogram-buckets", "16"),
                                  ("--histogram-unit", "s"), ("--histogram-unit", "")])
def test_bad_form__usage(run, host, args):
    r = run("report", *args, str(host))
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert r.stderr.startswith("ntprof report: error: ") and len(r.stderr.splitlines()) == 1
