# SPDX-License-Identifier: GPL-2.0
"""The read filters of report, compare and dump (--session, --io-type, --size,
--qid, --time; lib/model/model_filter.h), report's --sort and -F/--fields.

Every filtered number is checked against Python over the rows that pass the
same filters, decided here from the rows themselves: a host recording's
host_stages (the parallel scan of model_scan.c, and model_view.c's detail
scan), a target alone's target_stages, and joined recordings' commands as
ntpgen.py built them (the join's stage scan, filtered in C, and temp.joined,
filtered in SQL).  Bad values are one line naming the option, exit 2."""

import csv
import io
import json
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok
from report_text import us

SUMMARY = ("min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns")
HOST = ("block", "driver", "network_star")
JOINED = ntpgen.JOIN_STAGES
START = 1_000_000_000_000           # ntpgen's start_ns
S = 1_000_000_000
RANK = {"read": 0, "write": 1, "other": 2}
OFFSET = 3_600_000_123_457          # the pair's target clock - host clock


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *args).stdout)


# ---- the filters, decided in Python ------------------------------------------

def passes(row, f, start=START):
    """row: dict with io_type, bytes, names (the names --session may match), qid, t."""
    if "session" in f and not set(f["session"]) & set(row["names"]):
        return False
    if "io_type" in f and row["io_type"] not in f["io_type"]:
        return False
    if "sizes" in f and row["bytes"] not in f["sizes"]:
        return False
    if "qid" in f and not any(lo <= row["qid"] <= hi for lo, hi in f["qid"]):
        return False
    if "time" in f:
        lo, hi = f["time"]
        t = row["t"] - start
        if (lo is not None and t < lo) or (hi is not None and t >= hi):
            return False
    return True


def args_of(f):
    """The options for filter dict f."""
    out = []
    if "session" in f:
        out += ["--session", ",".join(f["session"])]
    if "io_type" in f:
        out += ["--io-type", ",".join(f["io_type"])]
    if "sizes" in f:
        out += ["--size", ",".join(str(s) for s in f["sizes"])]
    if "qid" in f:
        out += ["--qid", ",".join(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in f["qid"])]
    if "time" in f:
        lo, hi = f["time"]
        out += ["--time", f"{'' if lo is None else lo / S},{'' if hi is None else hi / S}"]
    return out


def host_rows(path):
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(
        "SELECT id, io_type, bytes, namespace, path, qid, h_start_ns, e2e_ns, block_ns,"
        " driver_ns, network_star_ns FROM host_stages")]
    db.close()
    for r in rows:
        r["names"] = (r["namespace"], r["path"])
        r["t"] = r["h_start_ns"]
        r["ns"] = r["namespace"]
        r["file"] = 1
        r["e2e"] = r["e2e_ns"]
        r["stages"] = {s: r[s + "_ns"] for s in HOST}
    return rows


def expected(rows, stages):
    """The report's groups of rows, in its default order."""
    groups = {}
    for r in rows:
        groups.setdefault((r["file"], r["ns"], RANK[r["io_type"]], r["bytes"], r["io_type"]),
                          []).append(r)
    out = []
    for (fi, ns, _, nbytes, io_type), rs in sorted(groups.items()):
        g = {"file": fi, "io_type": io_type, "bytes": nbytes, "ns": ns, "n": len(rs),
             "e2e": ntpgen.summary([r["e2e"] for r in rs]),
             "stages": {s: ntpgen.summary([r["stages"][s] for r in rs]) for s in stages}}
        out.append(g)
    return out


def assert_groups(doc, want, ns_key="namespace"):
    got = [(g["file"], g["io_type"], g["bytes"], g[ns_key], g["n"]) for g in doc["groups"]]
    assert got == [(w["file"], w["io_type"], w["bytes"], w["ns"], w["n"]) for w in want]
    for g, w in zip(doc["groups"], want):
        for k in SUMMARY:
            assert ntpgen.near(g["e2e"][k], w["e2e"][k], k), k
        for s in g["stages"]:
            if s["stage"] in w["stages"]:
                for k in SUMMARY:
                    assert ntpgen.near(s[k], w["stages"][s["stage"]][k], k), k


# ---- recordings ----------------------------------------------------------------

NAMESPACES = [f"nvme{i}n1" for i in range(7)]
SIZES = (4096, 16384, 65536, 131072)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """56 groups: 7 namespaces x read, write x 4 sizes, 30 commands each."""
    groups = tuple(ntpgen.Group(io, size, ns, 30) for ns in NAMESPACES
                   for io in ("read", "write") for size in SIZES)
    path = tmp_path_factory.mktemp("big") / "big.ntp"
    ntpgen.generate(path, groups=groups, seed=5)
    return path


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """The default groups (a flush group among them), a third of nvme0n1's
    commands on a second path disk of native multipath."""
    path = tmp_path_factory.mktemp("host") / "h.ntp"
    ntpgen.generate(path, seed=9)
    db = sqlite3.connect(path)
    db.execute("UPDATE host_io SET path = 'nvme0c1n1' WHERE namespace = 'nvme0n1' AND id % 3 = 0")
    db.commit()
    db.close()
    return path


def test_56_groups_narrowed_to_one_namespace_and_size_in_one_command(run, big):
    everything = report_json(run, big)
    assert len(everything["groups"]) == 56
    doc = report_json(run, "--session", "nvme3n1", "--size", "16K", "--io-type", "read", big)
    rows = [r for r in host_rows(big)
            if passes(r, {"session": ["nvme3n1"], "sizes": [16384], "io_type": ["read"]})]
    assert len(rows) == 30
    assert_groups(doc, expected(rows, HOST))
    # the same group as without the filters: nothing else changed its numbers
    same, = [g for g in everything["groups"]
             if (g["namespace"], g["bytes"], g["io_type"]) == ("nvme3n1", 16384, "read")]
    assert doc["groups"] == [same]
    text = run_ok(run, "report", "--session", "nvme3n1", "--size", "16K", big).stdout
    rows = [ln for ln in text.splitlines() if ln.startswith("  ") and "nvme3n1" in ln]
    assert len(rows) == 2 and all("16KiB" in ln for ln in rows)   # read and write


HOST_FILTERS = [
    {"session": ["nvme1n1"]},
    {"session": ["nvme0c1n1"]},                      # a path disk: its commands only
    {"session": ["nvme0c1n1", "nvme1n1"]},
    {"io_type": ["write"]},
    {"io_type": ["other"]},
    {"io_type": ["read", "other"]},
    {"sizes": [131072]},
    {"sizes": [4096, 131072]},
    {"qid": [(2, 2)]},
    {"qid": [(1, 2), (4, 4)]},
    {"time": (2 * S, 5 * S)},
    {"time": (7 * S + S // 2, None)},
    {"time": (None, 3 * S)},
    {"session": ["nvme0n1"], "io_type": ["write"], "sizes": [4096], "qid": [(1, 3)],
     "time": (1 * S, 9 * S)},
]


@pytest.mark.parametrize("f", HOST_FILTERS, ids=lambda f: " ".join(args_of(f)))
@pytest.mark.parametrize("stages", ["summary", "detail"])
def test_host_recording_filters_equal_python(run, host, f, stages):
    """The summary is model_scan.c's parallel scan, the detail model_view.c's."""
    rows = [r for r in host_rows(host) if passes(r, f)]
    assert rows, "a filter that passes nothing tests nothing"
    doc = report_json(run, f"--stages={stages}", *args_of(f), host)
    assert_groups(doc, expected(rows, HOST if stages == "summary" else ()))
    assert sum(g["n"] for g in doc["groups"]) == len(rows)


def test_host_recording_read_by_several_threads_is_filtered_alike(run, tmp_path):
    """Enough rows for model_scan.c's workers: each applies the same clause."""
    path = tmp_path / "bulk.ntp"
    ntpgen.generate_bulk(path, 250_000)
    f = {"session": ["nvme0n2"], "sizes": [131072], "time": (S, 2 * S)}
    rows = [r for r in host_rows(path) if passes(r, f)]
    doc = report_json(run, *args_of(f), path)
    assert_groups(doc, expected(rows, HOST))


def test_session_is_a_bound_parameter_not_sql(run, host):
    r = run("report", "-j", "-", "--session", "nvme0n1' OR '1'='1", str(host))
    assert r.returncode == Exit.OK and "no commands pass" in r.stderr
    assert json.loads(r.stdout)["groups"] == []


def test_rate_is_over_the_window(run, host):
    """est_cmds/s: n x N / the window's length, cut to the recording (10 s)."""
    for window, span in (("2,5", 3.0), ("8,", 2.0), ("6,20", 4.0), (",2.5", 2.5)):
        doc = report_json(run, "--time", window, host)
        for g in doc["groups"]:
            assert g["est_cmds_per_s"] == pytest.approx(g["n"] * 1000 / span), window


def test_time_without_meta_start_is_from_the_first_command(run, tmp_path):
    path = tmp_path / "nostart.ntp"
    ntpgen.generate(path, meta={"start_ns": None})
    rows = host_rows(path)
    first = min(r["t"] for r in rows)
    f = {"time": (S, 4 * S)}
    want = [r for r in rows if passes(r, f, start=first)]
    doc = report_json(run, *args_of(f), path)
    assert sum(g["n"] for g in doc["groups"]) == len(want)
    assert_groups(doc, expected(want, HOST))


# ---- the header says what was applied -------------------------------------------

def test_header_and_json_name_the_filters(run, host):
    args = ["--session", "nvme0n1,nvme1n1", "--io-type", "write,read", "--size", "128K,4K",
            "--qid", "3,1-2", "--time", "0.5,9"]
    text = run_ok(run, "report", *args, host).stdout
    line, = [ln for ln in text.splitlines() if ln.startswith("# read filters:")]
    assert line.startswith("# read filters:      --session nvme0n1,nvme1n1 --io-type read,write "
                           "--size 4096,131072 --qid 3,1-2 --time 0.5,9 (")
    assert text.index("# commands in file:") < text.index("# read filters:") < \
        text.index("# end-to-end latency per group")
    doc = report_json(run, *args, host)
    assert doc["read_filters"] == {
        "session": ["nvme0n1", "nvme1n1"], "io_type": ["read", "write"],
        "sizes": [4096, 131072], "qid": [[3, 3], [1, 2]],
        "time": {"start_ns": 500_000_000, "end_ns": 9 * S}}
    assert doc["sort"] is None


def test_without_filters_nothing_is_said_and_json_has_null(run, host):
    text = run_ok(run, "report", host).stdout
    assert "# read filters:" not in text and "# sorted by:" not in text
    doc = report_json(run, host)
    assert doc["read_filters"] is None and doc["sort"] is None


def test_open_time_sides_are_null(run, host):
    assert report_json(run, "--time", "3,", host)["read_filters"]["time"] == \
        {"start_ns": 3 * S, "end_ns": None}
    assert report_json(run, "--time", ",500ms", host)["read_filters"]["time"] == \
        {"start_ns": None, "end_ns": 500_000_000}


def test_nothing_passes__warning_and_exit_0(run, host):
    r = run("report", "--session", "nvme9n9", str(host))
    assert r.returncode == Exit.OK
    # and what the recording has (test_filter_none.py)
    assert r.stderr.startswith("ntprof report: warning: no commands pass the read filters "
                               "(--session nvme9n9)\nntprof report: warning: the recording has ")
    assert "# no commands pass the read filters" in r.stdout
    doc = json.loads(run("report", "-j", "-", "--session", "nvme9n9", str(host)).stdout)
    assert doc["groups"] == []


# ---- a target alone, joined recordings -------------------------------------------

@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("pair")
    # the target's start on its own clock, as record writes it
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31, offset_ns=OFFSET,
                                target_meta=[{"start_ns": START + OFFSET}])


def target_rows(path):
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(
        "SELECT io_type, bytes, device, qid, t_recv_ns, residence_ns, target_driver_ns,"
        " storage_ns FROM target_stages")]
    start = db.execute("SELECT value FROM meta WHERE key = 'start_ns'").fetchone()[0]
    db.close()
    for r in rows:
        r.update(names=(r["device"],), t=r["t_recv_ns"], ns=r["device"], file=1,
                 e2e=r["residence_ns"],
                 stages={"target_driver": r["target_driver_ns"], "storage": r["storage_ns"]})
    return rows, start


@pytest.mark.parametrize("f", [
    {"session": ["/dev/nullb0"]},
    {"qid": [(2, 2)], "io_type": ["write"]},
    {"time": (3 * S, 6 * S)},
], ids=lambda f: " ".join(args_of(f)))
def test_target_alone_filters_by_its_device_and_its_clock(run, pair, f):
    rows, start = target_rows(pair.target_paths[0])
    want = [r for r in rows if passes(r, f, start=start)]
    assert want
    doc = report_json(run, *args_of(f), pair.target_paths[0])
    assert_groups(doc, expected(want, ("target_driver", "storage")), ns_key="device")


def test_target_alone_has_no_namespace(run, pair):
    r = run("report", "-j", "-", "--session", "nvme0n1", str(pair.target_paths[0]))
    assert r.returncode == Exit.OK and "no commands pass" in r.stderr
    assert json.loads(r.stdout)["groups"] == []


def joined_rows(js):
    out = []
    for c in js.matched():
        h = c.host
        out.append({"io_type": c.group.report_io_type, "bytes": h["bytes"],
                    "names": (h["namespace"], h["path"]), "qid": h["qid"],
                    "t": h["h_start_ns"], "ns": h["namespace"], "file": c.link.host + 1,
                    "e2e": h["h_done_ns"] - h["h_start_ns"], "stages": c.stages(),
                    "detail": c.detail()})
    return out


JOINED_FILTERS = [
    {"session": ["nvme0n2"]},
    {"io_type": ["write"], "sizes": [131072]},
    {"qid": [(1, 1)]},
    {"time": (2 * S, 6 * S)},
]


@pytest.mark.parametrize("f", JOINED_FILTERS, ids=lambda f: " ".join(args_of(f)))
@pytest.mark.parametrize("stages", ["summary", "detail"])
def test_joined_filters_equal_python(run, pair, f, stages):
    """summary: the join's stage scan, filtered in C; detail: temp.joined, in SQL."""
    rows = [r for r in joined_rows(pair) if passes(r, f)]
    assert rows
    if stages == "detail":
        for r in rows:
            r["stages"] = r["detail"]
    doc = report_json(run, f"--stages={stages}", *args_of(f), *pair.host_paths,
                      *pair.target_paths)
    assert_groups(doc, expected(rows, JOINED if stages == "summary" else ntpgen.DETAIL_STAGES))
    # the join's counts are the whole recordings'
    assert doc["join"]["matched"] == len(pair.matched())


def test_both_recording_is_filtered(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=4)
    f = {"io_type": ["read"], "time": (S, 8 * S)}
    rows = [r for r in joined_rows(js) if passes(r, f)]
    doc = report_json(run, *args_of(f), tmp_path / "both.ntp")
    assert_groups(doc, expected(rows, JOINED))


def test_two_hosts_each_window_from_its_own_start(run, tmp_path):
    """Host file 2 started 3 s later: --time 1,4 is a different span of its clock."""
    links = [ntpgen.Link(0, 0, controller="nvme0", cntlid=1, groups=ntpgen.DEFAULT_JGROUPS),
             ntpgen.Link(1, 0, controller="nvme0", cntlid=2, offset_ns=-77_000_000_001,
                         drift=-5e-6, groups=ntpgen.DEFAULT_JGROUPS)]
    hp = [tmp_path / "h1.ntp", tmp_path / "h2.ntp"]
    js = ntpgen.generate_joined(hp, [tmp_path / "t.ntp"], links, seed=8,
                                host_meta=[{}, {"start_ns": START + 3 * S}])
    f = {"time": (1 * S, 4 * S)}
    starts = {1: START, 2: START + 3 * S}
    rows = [r for r in joined_rows(js) if passes(r, f, start=starts[r["file"]])]
    assert {r["file"] for r in rows} == {1, 2}
    for stages in ("summary", "detail"):
        doc = report_json(run, f"--stages={stages}", *args_of(f), *hp, tmp_path / "t.ntp")
        assert [(g["file"], g["n"]) for g in doc["groups"]] == \
            [(w["file"], w["n"]) for w in expected(rows, ())]
    assert_groups(report_json(run, *args_of(f), *hp, tmp_path / "t.ntp"), expected(rows, JOINED))


# ---- dump --------------------------------------------------------------------------

def dump_rows(run, *args):
    return list(csv.DictReader(io.StringIO(run_ok(run, "dump", *args).stdout)))


@pytest.mark.parametrize("f", HOST_FILTERS[:1] + HOST_FILTERS[4:5] + HOST_FILTERS[-1:],
                         ids=lambda f: " ".join(args_of(f)))
def test_dump_host_rows_are_those_that_pass(run, host, f):
    want = [r["id"] for r in sorted(host_rows(host), key=lambda r: r["id"]) if passes(r, f)]
    got = dump_rows(run, *args_of(f), host)
    assert [int(r["id"]) for r in got] == want


def test_dump_joined_rows_are_those_that_pass(run, pair):
    f = {"session": ["nvme0n1"], "qid": [(2, 2)], "time": (S, 7 * S)}
    want = sorted(c.host["h_start_ns"] for c in pair.matched()
                  if passes(joined_rows_one(c), f))
    got = dump_rows(run, *args_of(f), *pair.host_paths, *pair.target_paths)
    assert sorted(int(r["h_start_ns"]) for r in got) == want and want


def joined_rows_one(c):
    h = c.host
    return {"io_type": c.group.report_io_type, "bytes": h["bytes"],
            "names": (h["namespace"], h["path"]), "qid": h["qid"], "t": h["h_start_ns"]}


@pytest.mark.parametrize("f", [
    {"session": ["/dev/nullb0"], "io_type": ["read"]},
    {"qid": [(2, 2)], "sizes": [4096]},
    {"time": (3 * S, 6 * S)},
], ids=lambda f: " ".join(args_of(f)))
def test_dump_target_alone_rows_are_those_that_pass(run, pair, f):
    """A target alone: --session names its devices, --time is from its start on its clock."""
    rows, start = target_rows(pair.target_paths[0])
    want = sorted(r["t_recv_ns"] for r in rows if passes(r, f, start=start))
    got = dump_rows(run, *args_of(f), pair.target_paths[0])
    assert sorted(int(r["t_recv_ns"]) for r in got) == want and want
    assert len(want) < len(rows)


def test_dump_with_nothing_passing_writes_the_header(run, host):
    r = run("dump", "--io-type", "other", "--size", "4K", host)
    assert r.returncode == Exit.OK and "no commands pass the read filters" in r.stderr
    assert r.stdout.count("\n") == 1 and r.stdout.startswith("id,")


# ---- compare -----------------------------------------------------------------------

def test_compare_applies_the_filter_to_both_runs(run, tmp_path):
    a, b = tmp_path / "a.ntp", tmp_path / "b.ntp"
    ntpgen.generate(a, seed=1)
    ntpgen.generate(b, seed=2)
    f = {"session": ["nvme0n1"], "io_type": ["write"], "time": (S, 6 * S),
         "sizes": [4096, 131072], "qid": [(1, 3)]}
    doc = json.loads(run_ok(run, "compare", "-j", "-", *args_of(f), a, b).stdout)
    assert doc["read_filters"]["session"] == ["nvme0n1"]
    for i, path in enumerate((a, b)):
        want = expected([r for r in host_rows(path) if passes(r, f)], HOST)
        side = "n_baseline" if i == 0 else "n_new"
        got = [(g["io_type"], g["bytes"], g["namespace"], g[side]) for g in doc["groups"]]
        assert got == [(w["io_type"], w["bytes"], w["ns"], w["n"]) for w in want]
    text = run_ok(run, "compare", *args_of(f), a, b).stdout
    assert "# read filters:      --session nvme0n1 --io-type write --size 4096,131072 " \
        "--qid 1-3 --time 1,6 (" in text


# ---- --sort ------------------------------------------------------------------------

def order(doc):
    return [(g["namespace"], g["io_type"], g["bytes"]) for g in doc["groups"]]


def test_sort_by_a_statistic_largest_first(run, big):
    default = report_json(run, big)
    for key, get in (("p99", lambda g: g["e2e"]["p99_ns"]),
                     ("e2e.p90:desc", lambda g: g["e2e"]["p90_ns"]),
                     ("end-to-end.min", lambda g: g["e2e"]["min_ns"]),
                     # the exact mean: two rounded ones may tie where the doubles do not
                     ("e2e.mean", lambda g: g["sum_check"]["e2e_sum_ns"] / g["n"]),
                     ("block.max", lambda g: g["stages"][0]["max_ns"]),
                     ("network_star.p99.9", lambda g: g["stages"][2]["p99_9_ns"]),
                     ("network*.p99_9", lambda g: g["stages"][2]["p99_9_ns"]),
                     ("driver.share", lambda g: g["stages"][1]["share_pct"])):
        doc = report_json(run, "--sort", key, big)
        # ties keep the default order: a stable sort of it; a statistic not shown
        # (too few commands: null) goes last
        want = sorted(default["groups"], key=lambda g: (get(g) is None, -(get(g) or 0)))
        assert order(doc) == order({"groups": want}), key
        assert doc["sort"][0]["order"] == "descending"


def test_sort_ascending_and_tie_break(run, host):
    default = report_json(run, host)
    doc = report_json(run, "--sort", "n:asc", host)
    assert order(doc) == order({"groups": sorted(default["groups"], key=lambda g: g["n"])})
    assert doc["sort"] == [{"stage": "e2e", "stat": "n", "order": "ascending"}]
    # io_type groups of equal n are rare: a second key orders what the first ties
    doc = report_json(run, "--sort", "n,min:asc", host)
    want = sorted(default["groups"], key=lambda g: (-g["n"], g["e2e"]["min_ns"]))
    assert order(doc) == order({"groups": want})


def test_sort_joined_by_storage(run, pair):
    args = [*pair.host_paths, *pair.target_paths]
    default = report_json(run, *args)
    doc = report_json(run, "--sort", "storage.p99", *args)
    p99 = [g["stages"][4]["p99_ns"] for g in default["groups"]]
    assert any(v is not None for v in p99)
    want = sorted(default["groups"], key=lambda g: (g["stages"][4]["p99_ns"] is None,
                                                    -(g["stages"][4]["p99_ns"] or 0)))
    assert order(doc) == order({"groups": want})
    text = run_ok(run, "report", "--sort", "storage.p99", *args).stdout
    assert "# sorted by:         storage.p99 (largest first)\n" in text


def test_sort_with_filters_together(run, big):
    doc = report_json(run, "--session", "nvme2n1", "--sort", "mean:asc", big)
    means = [g["e2e"]["mean_ns"] for g in doc["groups"]]
    assert len(means) == 8 and means == sorted(means)


# ---- -F/--fields ---------------------------------------------------------------------

def titles(text):
    return [ln.split() for ln in text.splitlines() if ln.split()[:2] in (["#", "io_type"],
                                                                          ["#", "stage"])]


def test_fields_choose_the_columns_in_their_order(run, host):
    text = run_ok(run, "report", "-F", "p99,n,share,mean", host).stdout
    t = titles(text)
    assert t[0] == ["#", "io_type", "size", "namespace", "p99", "n", "mean"]
    assert all(x == ["#", "stage", "p99", "share%", "mean"] for x in t[1:]) and len(t) == 6
    doc = report_json(run, host)
    g = doc["groups"][0]
    row = [ln for ln in text.splitlines() if ln.startswith("  read ")][0].split()
    assert row[3:] == [us(g['e2e']['p99_ns']), str(g["n"]),
                       us(g['e2e']['mean_ns'])]


def test_fields_without_stage_columns_leave_out_the_stage_tables(run, host):
    text = run_ok(run, "report", "--fields", "n,rate", host).stdout
    assert titles(text) == [["#", "io_type", "size", "namespace", "n", "est_cmds/s"]]
    assert "# stages of" not in text


def test_fields_with_a_separator__the_long_forms_rows_of_those_statistics(run, host):
    rows = run_ok(run, "report", "-t", ",", "-F", "n,p99.9", host).stdout.splitlines()
    assert rows[0] == "file,io_type,bytes,namespace,device,stage,stat,value"
    # the sum check's count stays: without it a row could not be checked
    assert {r.split(",")[6] for r in rows[1:]} == {"n", "p99_9_ns", "mismatched_commands"}
    every = run_ok(run, "report", "-t", ",", host).stdout.splitlines()
    assert set(rows) <= set(every) and len(rows) < len(every)


def test_fields_leave_the_json_alone(run, host):
    assert report_json(run, "-F", "n", host)["groups"] == report_json(run, host)["groups"]


# ---- bad values --------------------------------------------------------------------

BAD = [
    ("--session", ""), ("--session", "nvme0n1,"), ("--session", ",".join(["a"] * 17)),
    ("--session", "a\x01b"),
    ("--io-type", "reed"), ("--io-type", "read,,write"), ("--io-type", "READ"),
    ("--size", "3000"), ("--size", "0"), ("--size", "4K,"), ("--size", "big"),
    ("--qid", "x"), ("--qid", "5-2"), ("--qid", "70000"), ("--qid", "1-"), ("--qid", "-3"),
    ("--qid", ",".join(["1"] * 17)),
    ("--time", "5"), ("--time", ","), ("--time", "5,2"), ("--time", "2,2"), ("--time", "a,b"),
    ("--time", "-1,3"), ("--time", "1,2,3"), ("--time", "2e9,"),
    ("--sort", ""), ("--sort", "p98"), ("--sort", "p99:up"), ("--sort", ".p99"),
    ("--sort", "n,"), ("--sort", "a.b.c"), ("--sort", "n,n,n,n,n"),
    ("--fields", ""), ("--fields", "n,foo"), ("--fields", "n,n"), ("-F", "mean,"),
]


@pytest.mark.parametrize("opt, value", BAD)
def test_bad_values_are_one_line_naming_the_option(run, host, opt, value):
    r = run("report", opt, value, str(host))
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    line, = r.stderr.splitlines()
    name = "--fields" if opt == "-F" else opt
    shown = value.replace("\x01", "?")          # the terminal gets it made safe
    assert line.startswith(f"ntprof report: error: invalid value '{shown}' for option '{name}': ")


@pytest.mark.parametrize("cmd", ["compare", "dump"])
@pytest.mark.parametrize("opt, value", [o for o in BAD if o[0] not in ("--sort", "--fields", "-F")][::4])
def test_compare_and_dump_refuse_alike(run, host, cmd, opt, value):
    files = [host, host] if cmd == "compare" else [host]
    r = run(cmd, opt, value, *map(str, files))
    assert r.returncode == Exit.USAGE
    line, = r.stderr.splitlines()
    assert line.startswith(f"ntprof {cmd}: error: invalid value '{value}' for option '{opt}': ")


def test_sort_stage_not_in_the_view(run, host):
    r = run("report", "--sort", "storage.p99", str(host))
    assert r.returncode == Exit.USAGE
    assert r.stderr == ("ntprof report: error: invalid value 'storage.p99' for option '--sort': "
                        "no stage 'storage' in this report's summary view (its stages: block, "
                        "driver, network_star, e2e)\n")
    doc = json.loads(run("report", "-j", "-", "--sort", "storage.p99", str(host)).stdout)
    assert doc["error"]["code"] == Exit.USAGE


def test_sort_and_fields_are_not_dumps(run, host):
    for opt in ("--sort", "--fields"):
        r = run("dump", opt, "n", str(host))
        assert r.returncode == Exit.USAGE and f"unknown option '{opt}'" in r.stderr
    r = run("compare", "-F", "n", str(host), str(host))
    assert r.returncode == Exit.USAGE


def change(g, stage, stat):
    """A compare group's change (new - baseline) of a stat, from its JSON; None: one run."""
    if g["present"] != "both":
        return None
    st, = [x for x in g["stages"] if x["stage"] == stage]
    if st[stat]["new_ns"] is None or st[stat]["baseline_ns"] is None:
        return None     # too few commands in a run to show it
    return st[stat]["new_ns"] - st[stat]["baseline_ns"]


@pytest.mark.parametrize("key, stage, stat, desc", [
    ("p99", "e2e", "p99", True),
    ("network_star.p99", "network_star", "p99", True),
    ("block.mean:asc", "block", "mean", False),
])
def test_compare_sorts_by_the_change(run, tmp_path, key, stage, stat, desc):
    a, b = tmp_path / "a.ntp", tmp_path / "b.ntp"
    ntpgen.generate(a, seed=1)
    # a group only in the new run goes last, whatever the order
    ntpgen.generate(b, seed=2, groups=ntpgen.DEFAULT_GROUPS + (
        ntpgen.Group("write", 8192, "nvme2n1", 20),))
    default = json.loads(run_ok(run, "compare", "-j", "-", a, b).stdout)
    doc = json.loads(run_ok(run, "compare", "-j", "-", "--sort", key, a, b).stdout)
    both = [g for g in default["groups"] if g["present"] == "both"]
    # a change not known (too few commands to show the statistic) goes last
    want = sorted(both, key=lambda g: (change(g, stage, stat) is None,
                                       (-1 if desc else 1) * (change(g, stage, stat) or 0)))
    want += [g for g in default["groups"] if g["present"] != "both"]
    assert [(g["namespace"], g["io_type"], g["bytes"]) for g in doc["groups"]] == \
        [(g["namespace"], g["io_type"], g["bytes"]) for g in want]
    assert doc["sort"] == [{"stage": stage, "stat": stat,
                            "order": "descending" if desc else "ascending"}]
    # the stage that moved most is the same whatever the order
    assert doc["changed_most"] == default["changed_most"] and doc["changed_most"]
    text = run_ok(run, "compare", "--sort", key, a, b).stdout
    assert f"# sorted by:         {key.split(':')[0]} change (largest " in text


def test_compare_sort_stage_not_in_the_view(run, host):
    r = run("compare", "--sort", "storage.p99", str(host), str(host))
    assert r.returncode == Exit.USAGE
    assert r.stderr.startswith("ntprof compare: error: invalid value 'storage.p99' for option "
                               "'--sort': no stage 'storage'")


# ---- a letter means one thing in every command --------------------------------------

def test_short_options_mean_one_thing_across_commands(run):
    import re
    seen = {}
    for cmd in ("record", "check", "report", "compare", "dump", "export"):
        for short, long in re.findall(r"^\s+-(\w), (--[\w-]+)", run(cmd, "-h").stdout, re.M):
            seen.setdefault(short, set()).add(long)
    clash = {s: sorted(ls) for s, ls in seen.items() if len(ls) > 1}
    # -t (record's and check's --transport, report's --field-separator) predates the
    # read filters and is issue 14's; nothing else may mean two things
    assert clash == {"t": ["--field-separator", "--transport"]}
    assert seen["F"] == {"--fields"}
