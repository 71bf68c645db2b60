# SPDX-License-Identifier: GPL-2.0
"""ntprof series reads as report reads: the read filters (--session,
--io-type, --size, --qid, --time; lib/model/model_filter.h), -q, --top N
(the same groups in the text, the CSV, the JSON and the page), and the
page's rate panel.

Every filtered row is checked against Python over the commands that pass
the same filters (test_read_filters.py decides them), computed as
test_series.py computes a series."""

import csv
import io
import json
import re
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok, usage_error
from test_read_filters import S, args_of, passes
from test_series import assert_rows, expected_rows, joined_cmds, series_json

HOST_STAGES = ("block", "driver", "network_star")
OFFSET = 3_600_000_123_457          # the pair's target clock - host clock
START = 1_000_000_000_000           # ntpgen's start_ns
RANK = {"read": 0, "write": 1, "other": 2}


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """The default groups, a third of nvme0n1's commands on a second path disk."""
    path = tmp_path_factory.mktemp("sread") / "h.ntp"
    ntpgen.generate(path, seed=21)
    db = sqlite3.connect(path)
    db.execute("UPDATE host_io SET path = 'nvme0c1n1' WHERE namespace = 'nvme0n1' AND id % 3 = 0")
    db.commit()
    db.close()
    return path


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("sreadpair")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=22, offset_ns=OFFSET,
                                target_meta=[{"start_ns": START + OFFSET}])


def host_rows(path):
    """host_stages as series and the filters see it: (row for passes(), series cmd)"""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    for io_type, b, ns, p, qid, t, e, bl, d, n in db.execute(
            "SELECT io_type, bytes, namespace, path, qid, h_start_ns, e2e_ns, block_ns,"
            " driver_ns, network_star_ns FROM host_stages"):
        out.append(({"io_type": io_type, "bytes": b, "names": (ns, p), "qid": qid, "t": t},
                    (1, io_type, b, ns, t, {"e2e": e, "block": bl, "driver": d,
                                            "network_star": n})))
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    return out, meta


HOST_FILTERS = [
    {"session": ["nvme0c1n1"]},
    {"session": ["nvme1n1"], "io_type": ["read"]},
    {"sizes": [4096], "qid": [(1, 2)]},
    {"io_type": ["other"]},
    {"time": (2 * S, 5 * S)},
    {"time": (None, 3 * S), "io_type": ["write"], "sizes": [131072]},
]


@pytest.mark.parametrize("f", HOST_FILTERS, ids=lambda f: " ".join(args_of(f)))
def test_host_rows_are_those_of_the_commands_that_pass(run, host, f):
    rows, meta = host_rows(host)
    cmds = [c for r, c in rows if passes(r, f)]
    assert cmds and len(cmds) < len(rows)
    doc = series_json(run, *args_of(f), host)
    origin = {1: meta["start_ns"]}
    assert_rows(doc, expected_rows(cmds, origin, S, HOST_STAGES), S, origin,
                meta["sample_one_in"], end=meta["stop_ns"])
    assert doc["read_filters"] is not None and doc["top"] is None


@pytest.mark.parametrize("f", [
    {"session": ["nvme0n1"], "qid": [(2, 2)]},
    {"io_type": ["write"], "time": (S, 7 * S)},
], ids=lambda f: " ".join(args_of(f)))
def test_joined_rows_are_those_of_the_commands_that_pass(run, pair, f):
    def row(c):
        h = c.host
        return {"io_type": c.group.report_io_type, "bytes": h["bytes"],
                "names": (h["namespace"], h["path"]), "qid": h["qid"], "t": h["h_start_ns"]}
    cmds = [x for c, x in zip(pair.matched(), joined_cmds(pair)) if passes(row(c), f)]
    assert cmds and len(cmds) < len(pair.matched())
    doc = series_json(run, *args_of(f), *pair.host_paths, *pair.target_paths)
    meta = pair.host_meta[0]
    origin = {1: meta["start_ns"]}
    assert_rows(doc, expected_rows(cmds, origin, S, ntpgen.JOIN_STAGES), S, origin,
                meta["sample_one_in"], end=meta["stop_ns"])


def test_target_alone_by_its_device_and_its_clock(run, pair):
    path = pair.target_paths[0]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT io_type, bytes, device, qid, t_recv_ns, residence_ns,"
                      " target_driver_ns, storage_ns FROM target_stages").fetchall()
    db.close()
    f = {"session": ["/dev/nullb0"], "time": (3 * S, 6 * S), "io_type": ["read"]}
    cmds = [(1, io, b, dev, t, {"e2e": res, "target_driver": td, "storage": st})
            for io, b, dev, q, t, res, td, st in rows
            if passes({"io_type": io, "bytes": b, "names": (dev,), "qid": q, "t": t}, f,
                      start=START + OFFSET)]
    assert cmds
    doc = series_json(run, *args_of(f), path)
    origin = {1: START + OFFSET}
    assert_rows(doc, expected_rows(cmds, origin, S, ("target_driver", "storage")), S, origin,
                1000)


def test_text_says_the_filters(run, host):
    out = run_ok(run, "series", "--session", "nvme1n1", "--size", "128K", host).stdout
    assert "# read filters:      --session nvme1n1 --size 131072 " in out
    rows = [l for l in out.splitlines() if not l.startswith("#")]
    assert rows and all(" nvme1n1 " in l and " 128KiB " in l for l in rows)


def test_nothing_passes__the_list_of_what_is_there(run, host):
    r = run("series", "--session", "nvme0", host)
    assert r.returncode == Exit.OK
    lines = r.stderr.splitlines()
    assert lines[0] == "ntprof series: warning: no commands pass the read filters (--session nvme0)"
    assert lines[1].startswith("ntprof series: warning: the recording has namespaces "
                               "nvme0n1,nvme1n1; paths nvme0c1n1; I/O types read,write,other;")
    assert "# no sampled host commands in this recording" in r.stdout


# ---- -q ------------------------------------------------------------------------------

def test_quiet_is_the_titles_and_the_rows(run, host):
    full = run_ok(run, "series", host).stdout.splitlines()
    quiet = run_ok(run, "series", "-q", host).stdout.splitlines()
    titles = [l for l in full if l.startswith("#    time_s ")]
    assert quiet == titles + [l for l in full if not l.startswith("#")]
    assert run_ok(run, "series", "--quiet", host).stdout.splitlines() == quiet


def test_quiet_with_json_on_stdout_is_refused(run, host):
    usage_error(run, "series", "-q", "-j", "-", host, says="-q shapes the text")


# ---- --top N ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """12 groups of different sizes: the top ones are known."""
    groups = tuple(ntpgen.Group(io, size, ns, n) for (io, size, ns), n in zip(
        [(io, size, ns) for ns in ("nvme0n1", "nvme1n1") for io in ("read", "write")
         for size in (4096, 16384, 131072)],
        (90, 20, 31, 60, 45, 12, 75, 33, 8, 50, 31, 26)))
    path = tmp_path_factory.mktemp("top") / "many.ntp"
    ntpgen.generate(path, groups=groups, seed=23)
    return path


def top_groups(path, n, f=None):
    """The n groups with the most commands (that pass f), ties in the report's order."""
    rows, _ = host_rows(path)
    count = {}
    for r, c in rows:
        if f is None or passes(r, f):
            key = (c[1], c[2], c[3])
            count[key] = count.get(key, 0) + 1
    order = sorted(count, key=lambda k: (-count[k], k[2], RANK[k[0]], k[1]))
    return set(order[:n]), sum(count[k] for k in order[n:]), len(order)


@pytest.mark.parametrize("n", [1, 3, 5, 12, 40])
def test_top_is_the_groups_with_the_most_commands_in_every_output(run, many, tmp_path, n):
    want, hidden, ngroups = top_groups(many, n)
    assert len(want) == min(n, 12)
    js, cs, page = tmp_path / "s.json", tmp_path / "s.csv", tmp_path / "s.html"
    text = run_ok(run, "series", "--top", n, "-j", js, "--csv", cs, "--html", page, many).stdout
    doc = json.loads(js.read_text())
    assert {(r["io_type"], r["bytes"], r["namespace"]) for r in doc["rows"]} == want
    assert doc["top"] == {"n": n, "groups": ngroups, "groups_hidden": ngroups - len(want),
                          "commands_hidden": hidden}
    # the rows of those groups are those of the series without --top
    full = series_json(run, many)
    assert doc["rows"] == [r for r in full["rows"]
                           if (r["io_type"], r["bytes"], r["namespace"]) in want]
    assert doc["commands"] == full["commands"] - hidden
    csv_rows = list(csv.DictReader(io.StringIO(cs.read_text())))
    assert [(r["interval"], r["io_type"], int(r["bytes"]), r["namespace"], int(r["n"]))
            for r in csv_rows] == [(str(r["interval"]), r["io_type"], r["bytes"],
                                    r["namespace"], r["n"]) for r in doc["rows"]]
    rows = [l.split() for l in text.splitlines() if not l.startswith("#")]
    assert len(rows) == len(doc["rows"])
    assert (f"# top:               the {len(want)} groups with the most commands, of {ngroups};"
            f" {ngroups - len(want)} groups ({hidden} commands) left out") in text
    h2 = re.findall(r"<h2>([^<]*)</h2>", page.read_text())
    assert h2[0] == "Rate" and len(h2) == 1 + len(want)


def test_top_counts_the_commands_that_pass_the_filters(run, many):
    f = {"io_type": ["write"], "time": (None, 4 * S)}
    want, hidden, ngroups = top_groups(many, 2, f)
    doc = series_json(run, "--top", "2", *args_of(f), many)
    assert {(r["io_type"], r["bytes"], r["namespace"]) for r in doc["rows"]} == want
    assert doc["top"]["groups"] == ngroups and doc["top"]["commands_hidden"] == hidden


def test_top_of_joined_recordings_is_per_host_file(run, pair):
    counts = {}
    for c in pair.matched():
        key = (c.group.report_io_type, c.group.bytes, c.group.namespace)
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=lambda k: counts[k])
    doc = series_json(run, "--top", "1", *pair.host_paths, *pair.target_paths)
    assert {(r["io_type"], r["bytes"], r["namespace"]) for r in doc["rows"]} == {best}
    assert doc["commands"] == counts[best]


@pytest.mark.parametrize("value", ["0", "-1", "x", "2.5"])
def test_bad_top(run, host, value):
    usage_error(run, "series", "--top", value, host, says="--top")


# ---- the page's rate panel -------------------------------------------------------------

def chart(page, title_start):
    """(lines [[(x, y) px]], legend names, y of the value 0) of the chart whose title begins so"""
    for svg in re.findall(r'<svg [^>]*class="chart".*?</svg>', page, re.S):
        title = re.search(r"<title>([^<]*)</title>", svg)[1]
        if title.startswith(title_start):
            lines = [[tuple(map(float, p.split(","))) for p in pts.split()]
                     for pts in re.findall(r'<polyline [^>]*points="([^"]*)"', svg)]
            names = re.findall(r'<rect [^>]*width="12" height="12"[^>]*/>\s*<text[^>]*>([^<]*)</text>',
                               svg)
            # the first grid line is the value 0
            y0 = float(re.search(r'<line x1="[^"]*" y1="([^"]*)"[^>]*stroke="#ddd"/>', svg)[1])
            return lines, names, y0
    raise AssertionError(f"no chart {title_start!r}")


def test_rate_panel_draws_each_groups_rate_and_their_sum(run, many, tmp_path):
    page = tmp_path / "s.html"
    run_ok(run, "series", "--top", "3", "--html", page, many)
    doc = series_json(run, "--top", "3", many)
    lines, names, y0 = chart(page.read_text(), "est. commands/s per 1 s interval")
    want, _, _ = top_groups(many, 3)
    size = {4096: "4KiB", 16384: "16KiB", 131072: "128KiB"}
    # the groups, most commands first, then all of them
    count = {}
    for r in doc["rows"]:
        count[(r["io_type"], r["bytes"], r["namespace"])] = \
            count.get((r["io_type"], r["bytes"], r["namespace"]), 0) + r["n"]
    order = sorted(count, key=lambda k: (-count[k], k[2], RANK[k[0]], k[1]))
    assert names == [f"{io} {size[b]} {ns}" for io, b, ns in order] + ["all 3 groups"]
    # a point per interval that had commands; heights in proportion to the rates
    intervals = sorted({r["interval"] for r in doc["rows"]})
    rate = {(r["interval"], r["io_type"], r["bytes"], r["namespace"]): r["est_cmds_per_s"]
            for r in doc["rows"]}
    want_lines = [[rate.get((i,) + k, 0.0) for i in intervals] for k in order]
    want_lines.append([sum(x) for x in zip(*want_lines)])
    assert [len(l) for l in lines] == [len(intervals)] * 4
    top = max(max(l) for l in want_lines)
    height = max(y0 - y for l in lines for _, y in l)
    for got, wl in zip(lines, want_lines):
        for (_, y), v in zip(got, wl):
            assert (y0 - y) / height == pytest.approx(v / top, abs=2e-3)
