# SPDX-License-Identifier: GPL-2.0
"""The fleet's engine (ntprof-push(1), ntprof-fleet(7), report --url).

On real ClickHouse servers (Debian's 18.16) that the tests start and stop
themselves on loopback (fleet_server.py): one server, and a Distributed
table over two shards.  For each recording of the corpus (a host alone, a
target alone, "-r both", a pair, two hosts on one target, a pair whose
blocks are all hot) pushed to each, `report --url` prints the report of
`report FILES` (groups, counts, means, percentiles: the JSON is equal but
for the paths and hooks) and the engine's pairs are `ntprof join`'s, pair
by pair.  The commit protocol: a second push stores nothing, a push killed
half way and pushed again stores the run once; bad input: an unreachable
URL, a refused password, a schema of another version, a push stopped part
way (14, 15, 16), one line each.  ClickHouse's quantileExact against
nearest rank; the stage columns against the table of stages; the fleet
questions of ntprof-fleet(7) as documented.  A missing clickhouse-server
fails these tests, loudly.
"""

import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time

import pytest

import fleet_server
import ntpgen
from conftest import Exit, REPO, assert_ok

FLEET_DOC = REPO / "Documentation" / "ntprof-fleet.rst"
STAGE_TABLE = REPO / "lib" / "core" / "stage_table.c"
J = ntpgen.JGroup


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    why = fleet_server.missing()
    if why:
        pytest.fail(why, pytrace=False)
    s = fleet_server.Server(tmp_path_factory.mktemp("ch"), "one").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def shards(tmp_path_factory, run):
    why = fleet_server.missing()
    if why:
        pytest.fail(why, pytrace=False)
    a, b = fleet_server.two_shards(tmp_path_factory.mktemp("shards"))
    a.start()
    b.start()
    yield a, b
    a.stop()
    b.stop()


# ---- the corpus ----------------------------------------------------------------------

def _hot(n):
    return (J("read", 4096, "nvme0n1", n), J("write", 8192, "nvme0n1", n // 2))


CASES = {
    # name: (host paths, target paths, links, kwargs, which files push and report read)
    "host": (["h"], ["t"], [ntpgen.Link(0, 0, groups=ntpgen.DEFAULT_JGROUPS)],
             dict(seed=61), ["h"]),
    "target": (["h"], ["t"], [ntpgen.Link(0, 0, groups=ntpgen.DEFAULT_JGROUPS)],
               dict(seed=62), ["t"]),
    "both": (["b"], ["b"], [ntpgen.Link(0, 0, offset_ns=0, drift=0.0,
                                        groups=ntpgen.DEFAULT_JGROUPS)], dict(seed=63), ["b"]),
    "pair": (["h"], ["t"], [ntpgen.Link(0, 0, offset_ns=-5_000_000_000, drift=40e-6,
                                        groups=ntpgen.DEFAULT_JGROUPS)], dict(seed=64),
             ["h", "t"]),
    "twohosts": (["h0", "h1"], ["t"],
                 [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=3_600_000_123_457, drift=20e-6,
                              groups=ntpgen.DEFAULT_JGROUPS),
                  ntpgen.Link(1, 0, "nvme0", 2, offset_ns=-700_000_654_321, drift=-35e-6,
                              groups=ntpgen.DEFAULT_JGROUPS)], dict(seed=65), ["h0", "h1", "t"]),
    "hot": (["h"], ["t"], [ntpgen.Link(0, 0, offset_ns=123_456_789, drift=5e-6, groups=_hot(1500))],
            dict(seed=66, nslbas=1), ["h", "t"]),
}


# Run in the plain integration pass only (make check-asan deselects it): the fleet's C code
# each one runs is run under ASan by the tests and cases left in that pass, which keep one
# case of each kind of report (host, target, joined), one server and two shards, push and
# its repeat, stopped part way (16), every bad input, --approx, --histogram, compare and
# series; what is left out varies the data more than the code.
PLAIN_ONLY = pytest.mark.plain_only


def cases(*under_asan, of=sorted(CASES)):
    """of, with the cases not in under_asan marked PLAIN_ONLY"""
    return [c if c in under_asan else pytest.param(c, marks=PLAIN_ONLY) for c in of]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = {}
    for name, (hs, ts, links, kw, use) in CASES.items():
        d = tmp_path_factory.mktemp(f"fleet_{name}")
        ntpgen.generate_joined([d / f"{p}.ntp" for p in hs], [d / f"{p}.ntp" for p in ts],
                               links, **kw)
        out[name] = [d / f"{p}.ntp" for p in use]
    return out


# The diagnosis's evidence that differs by design: the engine stores each command's stages,
# not its queue, its CPUs or the target's backend statistics, so an engine's report has no
# host queue or send figures and names no source of that evidence (ntprof-fleet(7)); every
# other field, the tail and its stages, the cause and the text included, is compared.
NOT_IN_ENGINE = ("sources", "host_queue", "sends")


def without(x, keys):
    """x with the keys of keys removed at every depth"""
    if isinstance(x, dict):
        return {k: without(v, keys) for k, v in x.items() if k not in keys}
    if isinstance(x, list):
        return [without(v, keys) for v in x]
    return x


def comparable(doc):
    """A report's JSON without what the engine does not have: the files' paths and hooks,
    and the diagnosis's evidence read from the recordings' commands (NOT_IN_ENGINE,
    test_report_url__diagnosis__evidence_not_recorded)."""
    for f in doc.get("files", []):
        f.pop("path", None)
        f.pop("hooks", None)
    doc.pop("command", None)
    if "diagnosis" in doc:
        doc["diagnosis"] = without(doc["diagnosis"], NOT_IN_ENGINE)
    return doc


def report_json(run, *args):
    r = run("report", "-j", "-", *args, timeout=300)
    assert_ok(r)
    return comparable(json.loads(r.stdout))


def engine_pairs(srv, db):
    return sorted(tuple(map(int, row)) for row in srv.rows(
        "SELECT host_id, target_id, offset_ns FROM pairs "
        "WHERE (host_run, target_run) GLOBAL IN (SELECT host_run, target_run FROM clocks)", db))


def join_pairs(run, tmp, files):
    """ntprof join's pairs of a pair's or a "-r both" file's commands."""
    out = tmp / "joined.ntp"
    out.unlink(missing_ok=True)
    assert_ok(run("join", "-o", out, *files))
    with sqlite3.connect(out) as db:
        return sorted(db.execute("SELECT host_id, target_id, offset_ns FROM join_pairs"))


def push(run, url, *args, ok=True, env=None, timeout=300):
    r = run("push", "--url", url, *args, timeout=timeout, env=env)
    if ok:
        assert_ok(r)
    return r


# ---- parity with the files -------------------------------------------------------------

@pytest.mark.parametrize("case", cases("host", "target", "pair"))
def test_report_url__equals_report_files__one_server(run, server, corpus, case, tmp_path):
    files = corpus[case]
    db = f"one_{case}"
    push(run, server.url, "--database", db, *files)
    assert report_json(run, "--url", server.url, "--database", db) == report_json(run, *files)
    assert report_tables(run, "--url", server.url, "--database", db) == \
        report_tables(run, *files)
    if case in ("both", "pair", "hot"):
        assert engine_pairs(server, db) == [tuple(p) for p in join_pairs(run, tmp_path, files)]


DIAG_VERDICT = re.compile(r"^# (recording|read|write|other) .*?: |^# recording: ")


def report_tables(run, *args):
    """the text report's tables and its diagnosis's verdicts: its lines but the other "#"
    ones (the header names the files and their hooks; the diagnosis's closing lines say
    which evidence each source lacks, and the engine lacks more, NOT_IN_ENGINE)"""
    r = run("report", *args, timeout=300)
    assert_ok(r)
    lines = [line for line in r.stdout.splitlines()
             if not line.startswith("#") or DIAG_VERDICT.match(line)]
    assert any(line.strip() for line in lines), r.stdout
    assert any(DIAG_VERDICT.match(line) for line in lines), r.stdout
    return lines


def test_report_url__diagnosis__evidence_not_recorded(run, server, corpus):
    """The engine holds the stages, not the commands' queues, processes or backend: the
    diagnosis says so of each source (JSON) and in its closing lines (text), and --by,
    which reads them, is refused in one line (report, series and compare).  The tails are
    the engine's own."""
    db = "diag_host"
    push(run, server.url, "--database", db, *corpus["host"])
    r = run("report", "-j", "-", "--url", server.url, "--database", db)
    assert_ok(r)
    doc = json.loads(r.stdout)
    assert doc["diagnosis"]["groups"], doc["diagnosis"]
    assert not any(doc["diagnosis"]["sources"].values()), doc["diagnosis"]["sources"]
    # the tail is the engine's own: each group of the corpus has the n of a tested percentile
    for g in doc["diagnosis"]["groups"]:
        assert g["cause"] != "insufficient_evidence" and g["tail"]["percentile"], g
        assert 0 < g["evidence"]["tail_n"] < g["evidence"]["n"], g
    # the text's closing lines name each evidence of a host's that the engine lacks
    r = run("report", "--url", server.url, "--database", db)
    assert_ok(r)
    missing = [line for line in r.stdout.splitlines() if "not recorded" in line]
    assert [line.split(":")[0] for line in missing] == \
        ["# send deferral", "# processes", "# queue depth", "# resets"], r.stdout
    assert all(": not recorded in the engine (" in line for line in missing), missing
    for args in (("report", "--by", "queue"), ("series", "--by", "process"),
                 ("compare", "--by", "queue", "2000-01-01..", "2000-01-01..")):
        r = run(*args, "--url", server.url, "--database", db)
        assert r.returncode == Exit.USAGE, (args, r.stderr)
        assert len(r.stderr.splitlines()) == 1 and " ".join(args[1:3]) in r.stderr, r.stderr


@pytest.mark.parametrize("case", cases("twohosts"))
def test_report_url__equals_report_files__two_shards(run, shards, corpus, case, tmp_path):
    a, b = shards
    files = corpus[case]
    db = f"two_{case}"
    # the tables on each node, over the cluster; a push to one, the report from the other
    for s in (a, b):
        push(run, s.url, "--database", db, "--cluster", fleet_server.CLUSTER)
    push(run, a.url, "--database", db, *files)
    assert report_json(run, "--url", b.url, "--database", db) == report_json(run, *files)
    local = [int(s.query("SELECT count() FROM cmds_local", db)) for s in (a, b)]
    rows = sum(ntpgen_rows(f) for f in files)
    assert sum(local) == rows, (local, rows)
    if case == "twohosts":
        # two controllers (cntlid 1 and 2) on two shards: the join ran on each
        assert all(n > 0 for n in local), local
        assert_pairs_of_each_host(run, a, db, tmp_path, *files)
    if case in ("both", "pair", "hot"):
        assert engine_pairs(a, db) == [tuple(p) for p in join_pairs(run, tmp_path, files)]


def ntpgen_rows(path):
    with sqlite3.connect(path) as db:
        return sum(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                   for t in ("host_io", "target_io"))


def assert_pairs_of_each_host(run, srv, db, tmp_path, h0, h1, t):
    """the engine's pairs of each host of "twohosts" with the target (read through srv) are
    ntprof join's of that host with the target, the target's other host's rows left out"""
    got = {}
    for hr, hid, tid, off in srv.rows("SELECT hostname, host_id, target_id, offset_ns FROM pairs "
                                      "GLOBAL ANY INNER JOIN (SELECT run_id AS host_run, "
                                      "any(hostname) AS hostname FROM runs GROUP BY run_id) "
                                      "USING (host_run)", db):
        got.setdefault(hr, []).append((int(hid), int(tid), int(off)))
    for name, h in (("gen-host-0", h0), ("gen-host-1", h1)):
        want = join_pairs(run, tmp_path, [h, t])
        assert want and sorted(got[name]) == [tuple(p) for p in want], name


def test_twohosts__pairs_equal_join_of_each_host(run, server, corpus, tmp_path):
    """two hosts on one target: each (host, target) pair of runs, as ntprof join pairs it"""
    db = "one_twohosts_pairs"
    push(run, server.url, "--database", db, *corpus["twohosts"])
    assert_pairs_of_each_host(run, server, db, tmp_path, *corpus["twohosts"])


def clock_counts(srv, db):
    return srv.rows("SELECT hostname, matched, unmatched_host, unmatched_target, rejected "
                    "FROM clocks GLOBAL ANY INNER JOIN (SELECT run_id AS host_run, "
                    "any(hostname) AS hostname FROM runs GROUP BY run_id) USING (host_run) "
                    "ORDER BY hostname", db)


@pytest.mark.parametrize("case", cases("hot", of=["both", "hot", "pair", "twohosts"]))
def test_join_rows__parts_pair_as_the_whole(run, server, shards, corpus, case, tmp_path):
    """--join-rows 150: the engine's join in parts of the keys (several parts here) gives
    ntprof join's pairs and the counts of a join in one part, on one server and two shards"""
    files = corpus[case]
    whole, parts = f"whole_{case}", f"parts_{case}"
    push(run, server.url, "--database", whole, "--join-rows", "1000000", *files)
    r = run("-v", "push", "--url", server.url, "--database", parts, "--join-rows", "150", *files)
    assert r.returncode == 0, r.stderr
    assert re.search(r"joined in \d+ parts of the keys", r.stderr), r.stderr
    assert re.search(r"joined in 1 part of the keys",
                     run("-v", "push", "--url", server.url, "--database", whole + "_1",
                         *files).stderr)
    assert clock_counts(server, parts) == clock_counts(server, whole)
    a, b = shards
    for s in (a, b):
        push(run, s.url, "--database", parts, "--cluster", fleet_server.CLUSTER)
    push(run, a.url, "--database", parts, "--join-rows", "150", *files)
    assert clock_counts(b, parts) == clock_counts(server, whole)
    for srv in (server, b):
        if case == "twohosts":
            assert_pairs_of_each_host(run, srv, parts, tmp_path, *files)
        else:
            assert engine_pairs(srv, parts) == [tuple(p) for p in join_pairs(run, tmp_path, files)]


def _weeks(tmp_path, storage=((10_000, 40_000), (20_000, 90_000))):
    """two pairs of one host and one target, a week apart: (h, t, start) each"""
    out = []
    tuesday = 1715076000       # 2024-05-07T10:00:00Z
    for i, st in enumerate(storage):
        start = tuesday - (1 - i) * 7 * 86400
        meta = {"start_realtime_ns": start * 10**9}
        groups = (J("read", 4096, "nvme0n1", 1200, storage=st),
                  J("write", 8192, "nvme0n1", 300, storage=st))
        h, t = tmp_path / f"wh{i}.ntp", tmp_path / f"wt{i}.ntp"
        ntpgen.generate_joined([h], [t], [ntpgen.Link(0, 0, offset_ns=(i + 1) * 7_000_000,
                                                      drift=10e-6, groups=groups)],
                               seed=80 + i, host_meta=[dict(meta, hostname="hostw")],
                               target_meta=[dict(meta, hostname="targetw")])
        out.append((h, t, start))
    return out


def same(got, want, where="doc"):
    """got is want: every count, string, integer time and percentile (with its interval) the
    same; a float that comes of a standard deviation (a mean's interval and p-value) to 1e-9,
    as the engine sums the squares in another order than ntprof, and a clock line's drift
    (the report's, and the diagnosis's clock evidence), estimated on rows read in another
    order"""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (where, got, want)
        for k in want:
            same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and (".mean." in where + "." or
                                         where.endswith(("drift_ppm", ".clock.drift"))):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-300), where
    else:
        assert got == want, (where, got, want)


def compare_json(run, *args):
    r = run("compare", "-j", "-", *args, timeout=300)
    assert_ok(r)
    return comparable(json.loads(r.stdout))


@pytest.mark.parametrize("where", cases("two", of=["one", "two"]))
def test_compare_url__time_ranges_and_runs__equal_compare_files(run, server, shards, tmp_path,
                                                                where):
    """compare --url of two weeks (as time ranges, then as runs) is compare of the files"""
    (h0, t0, s0), (h1, t1, s1) = _weeks(tmp_path)
    db = "compare_weeks"
    if where == "one":
        url = server.url
    else:
        for s in shards:
            push(run, s.url, "--database", db, "--cluster", fleet_server.CLUSTER)
        url = shards[1].url
    push(run, shards[0].url if where == "two" else url, "--database", db, h0, t0, h1, t1)
    # pushed together, a week apart: each host joined with its own week's target only
    node = server if where == "one" else shards[0]
    assert node.query("SELECT count() FROM clocks", db) == "2\n"
    want = compare_json(run, f"{h0},{t0}", f"{h1},{t1}")
    assert want["groups"], want
    ranges = (f"@{s0 - 60}..@{s0 + 3600}", f"@{s1 - 60}..@{s1 + 3600}")
    same(compare_json(run, "--url", url, "--database", db, *ranges), want)
    base, new = ("%016x" % int(r[0]) for r in node.rows(
        "SELECT run_id FROM runs WHERE role = 'host' AND complete = 1 ORDER BY start_utc_ns", db))
    same(compare_json(run, "--url", url, "--database", db, base, new), want)
    # the read filters and the fleet filters apply to both runs
    same(compare_json(run, "--url", url, "--database", db, "--io-type", "read", "--host",
                      "hostw", *ranges),
         compare_json(run, "--io-type", "read", f"{h0},{t0}", f"{h1},{t1}"))


@pytest.mark.parametrize("args, says", [
    (("--from", "2024-05-01", "2024-05-01..2024-05-02", "2024-05-08..2024-05-09"), "--from"),
    (("--run", "00000000000000ab", "00000000000000ab", "00000000000000cd"), "--run"),
    (("..", "2024-05-08.."), "FROM, UNTIL or both"),
    (("2024-05-01..",), "no new run"),
    (("2024-05-01..x", "2024-05-08.."), "--until"),
])
def test_compare_url__bad_runs__usage_error(run, server, args, says):
    one_line(run("compare", "--url", server.url, *args), Exit.USAGE, says)


def test_compare_fleet_filter_without_url__usage_error(run, corpus):
    h, t = corpus["pair"]
    one_line(run("compare", "--host", "x", h, t), Exit.USAGE, "'--host' needs --url")


def series_json(run, *args):
    r = run("series", "-j", "-", *args, timeout=300)
    assert_ok(r)
    return comparable(json.loads(r.stdout))


@pytest.mark.parametrize("case", cases("pair"))
def test_series_url__equals_series_files(run, server, shards, corpus, case):
    """series --url: each interval's groups, counts, rates, means and percentiles of series
    FILES, from one server and from two shards (the same databases report's tests push)"""
    files = corpus[case]
    want = series_json(run, "-i", "2", *files)
    assert want["rows"], want
    push(run, server.url, "--database", f"one_{case}", *files)
    assert series_json(run, "--url", server.url, "--database", f"one_{case}", "-i", "2") == want
    a, b = shards
    db = f"two_{case}"
    for s in (a, b):
        push(run, s.url, "--database", db, "--cluster", fleet_server.CLUSTER)
    push(run, a.url, "--database", db, *files)
    assert series_json(run, "--url", b.url, "--database", db, "-i", "2") == want


def test_series_url__options_as_on_files(run, server, corpus):
    """--top, --percentiles, a read filter and a fleet filter; and the CSV"""
    h0, h1, t = corpus["twohosts"]
    db = "series_opts"
    push(run, server.url, "--database", db, h0, h1, t)
    url = ("--url", server.url, "--database", db)
    for args in (("--top", "1"), ("--percentiles", "50,99.9"), ("--io-type", "write"),
                 ("-i", "500ms", "--time", "2,6")):
        assert series_json(run, *url, *args) == series_json(run, *args, h0, h1, t), args
    assert series_json(run, *url, "--host", "gen-host-1") == series_json(run, h1, t)
    csv = [run("series", "--csv", "-", *a) for a in (url, (h0, h1, t))]
    for r in csv:
        assert_ok(r)
    assert csv[0].stdout == csv[1].stdout and csv[0].stdout.count("\n") > 2


def _name(path, role, nqn):
    """nvmf_ids rows as record writes them: a host's controller, a target's namespace"""
    with sqlite3.connect(path) as db:
        if role == "host":
            for ctrl, cntlid in db.execute("SELECT DISTINCT controller, cntlid FROM host_stages"
                                           ).fetchall():
                db.execute("INSERT INTO nvmf_ids (side, object, name, subsysnqn, cntlid, transport,"
                           " traddr, trsvcid, hostnqn) VALUES ('host', 'controller', ?, ?, ?, "
                           "'tcp', '10.0.0.2', '4420', 'nqn.2014-08.org.nvmexpress:uuid:h')",
                           (ctrl, nqn, cntlid))
        else:
            for dev, nsid in db.execute("SELECT DISTINCT device, nsid FROM target_stages"
                                        ).fetchall():
                db.execute("INSERT INTO nvmf_ids (side, object, name, subsysnqn, nsid, device) "
                           "VALUES ('target', 'namespace', ?, ?, ?, ?)", (str(nsid), nqn, nsid, dev))


def test_pushed_apart__joined_by_names(run, server, tmp_path):
    """a host's and its target's recordings pushed by two commands: joined in the engine when
    their nvmf_ids name one subsystem and their spans overlap, as ntprof join joins them; and
    not without names"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_joined([h], [t], [ntpgen.Link(0, 0, offset_ns=2_000_000_000, drift=15e-6,
                                                  groups=ntpgen.DEFAULT_JGROUPS)], seed=90)
    bare = "apart_bare"
    push(run, server.url, "--database", bare, h)
    push(run, server.url, "--database", bare, t)
    assert server.query("SELECT count() FROM clocks", bare) == "0\n"
    one_line(run("report", "--url", server.url, "--database", bare), Exit.MISMATCH, "no clock line")
    want_pairs = [tuple(p) for p in join_pairs(run, tmp_path, [h, t])]
    nqn = "nqn.2024-05.io.ntprof:fleet-test"
    _name(h, "host", nqn)
    _name(t, "target", nqn)
    db = "apart_named"
    push(run, server.url, "--database", db, t)        # the target first, then its host
    assert server.query("SELECT count() FROM clocks", db) == "0\n"
    push(run, server.url, "--database", db, h)
    assert server.query("SELECT count() FROM clocks", db) == "1\n"
    assert server.query("SELECT DISTINCT subsysnqn FROM cmds", db) == nqn + "\n"
    assert engine_pairs(server, db) == want_pairs
    # the line as the files' join estimates it, to the last bits of its drift: the engine's
    # sample is read in id order, which need not be the order of the files' rows
    same(report_json(run, "--url", server.url, "--database", db), report_json(run, h, t))
    # another subsystem's host, at the same time: not joined to this target
    h2 = tmp_path / "h2.ntp"
    ntpgen.generate_joined([h2], [tmp_path / "t2.ntp"], [ntpgen.Link(
        0, 0, groups=ntpgen.DEFAULT_JGROUPS)], seed=91, host_meta=[{"hostname": "other"}])
    _name(h2, "host", "nqn.2024-05.io.ntprof:elsewhere")
    push(run, server.url, "--database", db, h2)
    assert server.query("SELECT count() FROM clocks", db) == "1\n"


def _versions_named(line, words, a, b):
    """the refusal names the setting and both runs' values"""
    m = re.search(re.escape(words) + r" (\d+) and (\d+) ", line)
    return m is not None and sorted(map(int, m.groups())) == sorted((a, b))


@pytest.mark.parametrize("key,h_v,t_v,words,code", [
    ("hash_version", 2, 3, "sampling hash version", Exit.HASH),
    ("sample_one_in", 1000, 100, "sample rate one in", Exit.MISMATCH),
])
def test_two_settings__pushed_together__refused_as_files_are(run, server, tmp_path, key, h_v,
                                                            t_v, words, code):
    """a host and a target recording of two hash versions (or sample rates) pushed together:
    both runs are stored, the join is refused in one line naming both values with the code
    report FILES gives (19 for the hash); report, compare and series --url over both runs
    refuse them alike, and each side alone is reported"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, seed=92, host_meta=[{key: h_v}], target_meta=[{key: t_v}])
    r = run("report", h, t)
    one_line(r, code)
    assert _versions_named(r.stderr, words, h_v, t_v), r.stderr
    db = f"two_{key}"
    r = run("push", "--url", server.url, "--database", db, h, t)
    one_line(r, code, "cannot join run")
    assert _versions_named(r.stderr, words, h_v, t_v), r.stderr
    assert server.query("SELECT count() FROM runs WHERE complete = 1", db) == "2\n"
    assert server.query("SELECT count() FROM clocks", db) == "0\n"
    url = ("--url", server.url, "--database", db)
    for args in (("report", *url), ("series", *url),
                 ("compare", *url, "2000-01-01..", "2000-01-01..")):
        r = run(*args)
        one_line(r, code, "cannot join run", "--host")
        assert _versions_named(r.stderr, words, h_v, t_v), (args, r.stderr)
    # each side alone: its report, as from its file
    assert report_json(run, *url, "--host", "gen-host-0") == report_json(run, h)
    assert report_json(run, *url, "--target", "gen-target-0") == report_json(run, t)
    # pushed again: stored once, refused again
    one_line(run("push", *url, h, t), code, "cannot join run")
    assert server.query("SELECT count() FROM runs WHERE complete = 1", db) == "2\n"


def test_two_hash_versions__pushed_apart_named__refused_exit_19(run, server, tmp_path):
    """a target run of hash version 3, then its host's of version 2, tied by a subsystem NQN
    and recording at one time: the second push refuses the join (exit 19, one line), and so
    does report --url; a host of another subsystem with another version is not its pair, so
    not refused"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, seed=93, host_meta=[{"hash_version": 2}],
                         target_meta=[{"hash_version": 3}])
    nqn = "nqn.2024-05.io.ntprof:fleet-hash"
    _name(h, "host", nqn)
    _name(t, "target", nqn)
    db = "hash_apart"
    push(run, server.url, "--database", db, t)
    r = run("push", "--url", server.url, "--database", db, h)
    one_line(r, Exit.HASH, "cannot join run")
    assert _versions_named(r.stderr, "sampling hash version", 2, 3), r.stderr
    r = run("report", "--url", server.url, "--database", db)
    one_line(r, Exit.HASH, "cannot join run")
    assert _versions_named(r.stderr, "sampling hash version", 2, 3), r.stderr
    # another subsystem's host of version 2 at the same time: not tied to this target
    db2 = "hash_other_nqn"
    h2, t2 = tmp_path / "h2.ntp", tmp_path / "t2.ntp"
    ntpgen.generate_pair(h2, t2, seed=94, host_meta=[{"hash_version": 2}])
    _name(h2, "host", "nqn.2024-05.io.ntprof:elsewhere")
    push(run, server.url, "--database", db2, t)
    push(run, server.url, "--database", db2, h2)
    # host and target runs without a clock line: report's own refusal, not the hash's
    one_line(run("report", "--url", server.url, "--database", db2), Exit.MISMATCH,
             "no clock line")


# ---- the commit protocol ---------------------------------------------------------------

def test_push_twice__stored_once(run, server, corpus):
    files = corpus["pair"]
    db = "twice"
    push(run, server.url, "--database", db, *files)
    before = server.query("SELECT count(), sum(e2e_ns) FROM cmds", db)
    r = run("-v", "push", "--url", server.url, "--database", db, *files)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("already") == 2, r.stderr
    assert server.query("SELECT count(), sum(e2e_ns) FROM cmds", db) == before
    assert server.query("SELECT count() FROM runs WHERE complete = 1", db) == "2\n"
    assert server.query("SELECT count() FROM clocks", db) == "1\n"


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """a recording of 100,000 commands: a push of it in batches of 1000 is stopped part way"""
    path = tmp_path_factory.mktemp("big") / "big.ntp"
    ntpgen.generate_bulk(path, 100_000)
    return path


def _wait(pred, what, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


@PLAIN_ONLY
def test_push_killed_half_way__repeated__stored_once(run, ntprof, server, big):
    db = "killed"
    push(run, server.url, "--database", db)       # the tables, so that count() can be asked
    p = subprocess.Popen([str(ntprof), "push", "--url", server.url, "--database", db,
                          "--batch-rows", "1000", str(big)], stderr=subprocess.PIPE)
    _wait(lambda: int(server.query("SELECT count() FROM cmds", db)) > 0 or p.poll() is not None,
          "the first batch")
    p.kill()
    p.wait()
    sent = int(server.query("SELECT count() FROM cmds", db))
    assert 0 < sent < 100_000, f"killed after {sent} rows: not half way"
    # nothing committed: no reader sees the run
    r = run("report", "--url", server.url, "--database", db)
    assert r.returncode == Exit.NOFILE and len(r.stderr.splitlines()) == 1, r.stderr
    push(run, server.url, "--database", db, big)
    want = report_json(run, big)
    assert report_json(run, "--url", server.url, "--database", db) == want
    committed = server.query("SELECT count() FROM cmds WHERE push_id IN (SELECT min(push_id) "
                             "FROM runs WHERE complete = 1)", db)
    assert committed == "100000\n"


def test_push_stopped_part_way__exit_16__repeated(run, ntprof, tmp_path_factory, big):
    srv = fleet_server.Server(tmp_path_factory.mktemp("ch_stop"), "stop").start()
    try:
        db = "stopped"
        push(run, srv.url, "--database", db)
        p = subprocess.Popen([str(ntprof), "push", "--url", srv.url, "--database", db,
                              "--batch-rows", "1000", str(big)], stderr=subprocess.PIPE, text=True)
        _wait(lambda: int(srv.query("SELECT count() FROM cmds", db)) > 0 or p.poll() is not None,
              "the first batch")
        p.send_signal(signal.SIGSTOP)
        srv.stop()
        p.send_signal(signal.SIGCONT)
        err = p.communicate(timeout=120)[1]
        assert p.returncode == Exit.FLEET_PARTIAL, err
        assert len(err.splitlines()) == 1 and "run it again" in err, err
        srv.start()
        push(run, srv.url, "--database", db, big)
        assert report_json(run, "--url", srv.url, "--database", db) == report_json(run, big)
    finally:
        srv.stop()


@pytest.mark.parametrize("threads", ["1", "2"])
def test_damaged_file__exit_9__nothing_committed(run, server, tmp_path, threads):
    """the file's structure is checked beside the sending (NTPROF_THREADS=1: before it): a
    host_io page one cell fewer, which reads as a shorter table, is exit 9 naming the file in
    one line, its rows sent uncommitted (no run for a reader); the whole file then pushed is
    stored once and reported as from the file"""
    from test_damage import damages
    whole, bad = tmp_path / "host.ntp", tmp_path / "bad" / "host.ntp"
    ntpgen.generate(whole, seed=7)
    bad.parent.mkdir()
    (tree, _, damage), = [c for c in damages(whole) if c[0] == "host_io" and c[1] == "cells"]
    shutil.copy(whole, bad)
    damage(bad)
    db = "damaged" + threads
    r = run("push", "--url", server.url, "--database", db, bad, env={"NTPROF_THREADS": threads})
    one_line(r, Exit.CORRUPT, f"{bad}: corrupt: ")
    assert server.query("SELECT count() FROM runs WHERE complete = 1", db) == "0\n"
    # beside: the rows were read and sent while the check ran; one thread: none was
    sent = int(server.query("SELECT count() FROM cmds", db))
    assert (sent > 0) == (threads == "2"), sent
    push(run, server.url, "--database", db, whole)
    assert server.query("SELECT count() FROM runs WHERE complete = 1", db) == "1\n"
    assert report_json(run, "--url", server.url, "--database", db) == report_json(run, whole)


# ---- bad input ---------------------------------------------------------------------------

def one_line(r, code, *says):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1, r.stderr
    for s in says:
        assert s in r.stderr, r.stderr


def test_unreachable_url__exit_14(run, corpus):
    port = fleet_server.free_ports(1)[0]
    url = f"http://127.0.0.1:{port}"
    one_line(run("push", "--url", url, corpus["host"][0]), Exit.FLEET_DOWN, url)
    one_line(run("report", "--url", url), Exit.FLEET_DOWN, url)


def test_wrong_password__refused_exit_14__right_one_from_file_or_env(run, server, corpus, tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("not-it\n")
    r = run("push", "--url", server.url, "--user", "fleet", "--password-file", pw,
            "--database", "auth", corpus["host"][0])
    one_line(r, Exit.FLEET_DOWN, "refused")
    assert "not-it" not in r.stderr
    pw.write_text(fleet_server.PASSWORD + "\n")
    push(run, server.url, "--user", "fleet", "--password-file", pw, "--database", "auth",
         corpus["host"][0])
    r = run("report", "--url", server.url, "--user", "fleet", "--database", "auth", "-q",
            env={"NTPROF_FLEET_PASSWORD": fleet_server.PASSWORD})
    assert_ok(r)
    r = run("report", "--url", server.url, "--user", "fleet", "--database", "auth",
            env={"NTPROF_FLEET_PASSWORD": "wrong"})
    one_line(r, Exit.FLEET_DOWN, "refused")


def test_password_in_url__usage_error(run, server):
    url = server.url.replace("http://", "http://fleet:secret@")
    r = run("push", "--url", url)
    one_line(r, Exit.USAGE, "--url")
    assert "secret" not in r.stderr


def test_missing_password_file__exit_5(run, server, tmp_path):
    one_line(run("push", "--url", server.url, "--user", "fleet", "--password-file",
                 tmp_path / "none"), Exit.NOFILE, "--password-file")


def _set_version(server, db, version):
    server.query("DROP TABLE ntprof_schema", db)
    server.query("CREATE TABLE ntprof_schema (key String, value String) ENGINE = TinyLog", db)
    server.query(f"INSERT INTO ntprof_schema VALUES ('version', '{version}'), ('cluster', '')", db)


@pytest.mark.parametrize("version, says", [
    ("3", ("version 3, newer than this ntprof's version 2",)),
    ("0", ("version 0", "versions 1 to 2")),
    ("2a", ("version 2a", "versions 1 to 2")),
])
def test_schema_of_another_version__exit_15(run, server, corpus, version, says):
    """tables of a newer schema version than this ntprof's, or of none it knows: one line
    naming both, exit 15, for push (nothing sent), report and series"""
    db = "version_" + version
    push(run, server.url, "--database", db)
    assert server.query("SELECT value FROM ntprof_schema WHERE key = 'version'", db) == "2\n"
    _set_version(server, db, version)
    for args in (("push", "--url", server.url, "--database", db, corpus["host"][0]),
                 ("report", "--url", server.url, "--database", db),
                 ("series", "--url", server.url, "--database", db)):
        one_line(run(*args), Exit.FLEET_SCHEMA, *says)
    assert server.query("SELECT count() FROM runs", db) == "0\n"


def test_schema_version_1__read_and_written_as_it_is(run, server, corpus):
    """tables of version 1 (the stages of cmds DEFAULT columns, stored at each insert): a
    push into them and report --url read them as version 2's, and they stay version 1"""
    db = "version_1"
    push(run, server.url, "--database", db)
    create = server.query("SHOW CREATE TABLE cmds FORMAT TSVRaw", db)
    assert " ALIAS " in create
    server.query("DROP TABLE cmds", db)
    server.query(create.replace(" ALIAS ", " DEFAULT "), db)
    _set_version(server, db, "1")
    files = corpus["pair"]
    r = run("-v", "push", "--url", server.url, "--database", db, *files)
    assert r.returncode == 0, r.stderr
    assert "schema version 1" in r.stderr and "read and written as they are" in r.stderr
    assert report_json(run, "--url", server.url, "--database", db) == report_json(run, *files)
    # the stages are stored: columns of the table's parts, not computed when read
    stored = server.query("SELECT count() FROM system.columns WHERE database = '%s' AND "
                          "table = 'cmds' AND default_kind = 'DEFAULT'" % db)
    assert int(stored) >= 7, stored
    assert server.query("SELECT value FROM ntprof_schema WHERE key = 'version'", db) == "1\n"


def test_no_tables__report_exit_15(run, server):
    one_line(run("report", "--url", server.url, "--database", "nothing_here"), Exit.FLEET_SCHEMA,
             "no ntprof tables")


def test_other_cluster__exit_15(run, server):
    db = "onecluster"
    push(run, server.url, "--database", db)
    one_line(run("push", "--url", server.url, "--database", db, "--cluster", "elsewhere"),
             Exit.FLEET_SCHEMA, "elsewhere")


@pytest.mark.parametrize("args, says", [
    (("report", "--host", "x", "f.ntp"), "'--host' needs --url"),
    (("report", "--user", "x", "f.ntp"), "'--user' needs --url"),
    (("report", "--approx", "f.ntp"), "'--approx' needs --url"),
    (("push", "f.ntp"), "no --url"),
    (("push", "--url", "ftp://x"), "not an http"),
    (("push", "--url", "http://127.0.0.1:1", "--database", "a-b"), "--database"),
    (("push", "--url", "http://127.0.0.1:1", "--join-rows", "0"), "--join-rows"),
    (("report", "--url", "http://127.0.0.1:1", "f.ntp"), "not files"),
    (("report", "--url", "http://127.0.0.1:1", "--from", "yesterday"), "--from"),
    (("report", "--url", "http://127.0.0.1:1", "--run", "xyz"), "--run"),
    (("report", "--url", "http://127.0.0.1:1", "--controller", "70000"), "--controller"),
])
def test_bad_options__usage_error(run, server, args, says):
    args = tuple(a.replace("http://127.0.0.1:1", server.url) for a in args)
    one_line(run(*args), Exit.USAGE, says)


def test_joined_recording__refused_exit_10(run, server, corpus, tmp_path):
    out = tmp_path / "j.ntp"
    assert_ok(run("join", "-o", out, *corpus["pair"]))
    one_line(run("push", "--url", server.url, "--database", "joined", out), Exit.MISMATCH,
             "joined recording")


def test_detail_stages__refused(run, server, corpus):
    db = "detail"
    push(run, server.url, "--database", db, corpus["host"][0])
    one_line(run("report", "--url", server.url, "--database", db, "-S", "detail"), Exit.USAGE,
             "detail")


# ---- options ---------------------------------------------------------------------------

def test_no_join__pushes_without_pairs(run, server, corpus):
    db = "nojoin"
    push(run, server.url, "--database", db, "--no-join", *corpus["pair"])
    assert server.query("SELECT count() FROM pairs", db) == "0\n"
    # unjoined host and target runs: refused as report refuses them
    one_line(run("report", "--url", server.url, "--database", db), Exit.MISMATCH, "joins")
    # one side: a report of it
    assert report_json(run, "--url", server.url, "--database", db, "--host", "gen-host-0") == \
        report_json(run, corpus["pair"][0])


def test_batch_rows__batches(run, server, corpus):
    db = "batches"
    r = run("-v", "push", "--url", server.url, "--database", db, "--batch-rows", "100",
            corpus["host"][0])
    assert r.returncode == 0, r.stderr
    rows = ntpgen_rows(corpus["host"][0])
    assert f"{rows} commands in {(rows + 99) // 100} batches" in r.stderr, r.stderr


def test_fleet_filters__choose_runs_and_commands(run, server, corpus):
    db = "filters"
    h0, h1, t = corpus["twohosts"]
    push(run, server.url, "--database", db, h0, h1, t)
    whole = report_json(run, "--url", server.url, "--database", db)
    # --host: that host's run and the target run joined to it
    one = report_json(run, "--url", server.url, "--database", db, "--host", "gen-host-1")
    assert [f["hostname"] for f in one["files"]] == ["gen-host-1", "gen-target-0"]
    assert one["groups"] and all(g["file"] == 1 for g in one["groups"])
    # --target: the target and every host joined to it
    assert report_json(run, "--url", server.url, "--database", db, "--target", "gen-target-0") \
        == whole
    # --controller: the commands of one cntlid (host 1's: cntlid 2)
    two = report_json(run, "--url", server.url, "--database", db, "--controller", "2")
    assert {g["file"] for g in two["groups"]} == {2}
    # --subsysnqn: recordings without names have the empty one only
    r = run("report", "-j", "-", "--url", server.url, "--database", db, "--subsysnqn", "nqn.x")
    assert r.returncode == 0 and not json.loads(r.stdout)["groups"]
    # --from / --until: the synthetic runs start 2024-05-01T10:00:00Z and last 10 s
    assert report_json(run, "--url", server.url, "--database", db, "--from", "2024-05-01",
                       "--until", "@1714557700") == whole
    r = run("report", "--url", server.url, "--database", db, "--from", "2024-05-02")
    one_line(r, Exit.NOFILE, "no run")
    # --run: by the id push prints
    ids = server.rows("SELECT run_id FROM runs WHERE hostname = 'gen-host-0' LIMIT 1", db)
    only = report_json(run, "--url", server.url, "--database", db, "--run",
                       "%016x" % int(ids[0][0]))
    assert [f["hostname"] for f in only["files"]] == ["gen-host-0", "gen-target-0"]
    # the read filters, in the engine: as on the files
    for args in (("--io-type", "read"), ("--size", "4K"), ("--session", "nvme0n1"),
                 ("--qid", "1-2"), ("--time", "2,8")):
        assert report_json(run, "--url", server.url, "--database", db, *args) == \
            report_json(run, *args, h0, h1, t), args


def test_https__cacert(run, corpus, tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    srv = fleet_server.Server(d, "tls", https=(cert, key)).start()
    try:
        # the server's certificate is no system CA's: refused without --cacert
        one_line(run("push", "--url", srv.https_url, corpus["host"][0]), Exit.FLEET_DOWN,
                 srv.https_url)
        push(run, srv.https_url, "--cacert", cert, corpus["host"][0])
        assert report_json(run, "--url", srv.https_url, "--cacert", cert) == \
            report_json(run, corpus["host"][0])
    finally:
        srv.stop()


# ---- definitions held to their one source --------------------------------------------------

def level(p):
    """the quantileExact level of the p-th percentile: the double just above 1 - p/100"""
    ppm = round(p * 1_000_000)
    return math.nextafter((100_000_000 - ppm) / 1e8, 1.0)


def test_quantile_exact__of_negated_values_is_nearest_rank(server):
    """ntprof-fleet(7), PERCENTILES: for every n to 2000, on values with ties, for the
    default percentiles and others (30: a level whose double is below its decimal)"""
    ps = (50, 90, 99, 99.9, 30, 95, 99.99)
    got = server.rows(
        "SELECT n, " + ", ".join(f"-quantileExact({level(p)!r})(-v)" for p in ps) +
        " FROM (SELECT n, (number * 7919 + n) % 1000 AS v FROM (SELECT number + 1 AS n "
        "FROM numbers(2000)) ARRAY JOIN range(n) AS number) GROUP BY n ORDER BY n")
    assert len(got) == 2000
    for row in got:
        n = int(row[0])
        vals = sorted((i * 7919 + n) % 1000 for i in range(n))
        for k, p in enumerate(ps):
            rank = -(-round(p * 1_000_000) * n // 100_000_000)   # ceil, in integers
            assert int(row[1 + k]) == vals[max(rank, 1) - 1], (n, p)


def test_percentiles_option__as_on_files(run, server, corpus):
    files = corpus["pair"]
    db = "percentiles"
    push(run, server.url, "--database", db, *files)
    for args in (("--percentiles", "30,95,99.99"), ("--percentiles", "50:75")):
        assert report_json(run, "--url", server.url, "--database", db, *args) == \
            report_json(run, *args, *files), args


def _summaries(doc):
    """each group's summaries (e2e and each stage's), in the report's order"""
    for g in doc["groups"]:
        yield (g["io_type"], g["bytes"], g["namespace"], "e2e"), g["n"], g["e2e"]
        for st in g["stages"]:
            yield (g["io_type"], g["bytes"], g["namespace"], st["stage"]), g["n"], st


@pytest.mark.parametrize("case", cases("pair", of=["pair", "hot", "target"]))
def test_report_url_approx__within_the_documented_bound(run, server, corpus, case):
    """--approx (ntprof-fleet(7), PERCENTILES): each percentile between ntprof's exact
    (p - 1)-th and (p + 1)-th (the maximum past 100) in a group of at least 100 commands,
    between its minimum and maximum below; without it they are exact (as from the files)"""
    files = corpus[case]
    db = f"approx_{case}"
    push(run, server.url, "--database", db, *files)
    url = ("--url", server.url, "--database", db)
    approx = report_json(run, *url, "--approx")
    assert report_json(run, *url) == report_json(run, *files)
    exact = {}
    for ps in ("49,50,51,89,90,91", "98,98.9,99,99.9"):
        for key, n, s in _summaries(report_json(run, *url, "--percentiles", ps)):
            exact.setdefault(key, {"n": n}).update(s)
    checked = 0
    for key, n, s in _summaries(approx):
        e = exact[key]
        assert e["n"] == n and e["min_ns"] == s["min_ns"] and e["max_ns"] == s["max_ns"], key
        for p, below, above in (("50", "49", "51"), ("90", "89", "91"), ("99", "98", None),
                                ("99_9", "98_9", None)):
            v = s[f"p{p}_ns"]
            if v is None:
                continue
            lo, hi = e["min_ns"], e["max_ns"]
            if n >= 100:
                lo = e[f"p{below}_ns"]
                hi = e[f"p{above}_ns"] if above else e["max_ns"]
            assert lo <= v <= hi, (key, p, n, lo, v, hi)
            checked += 1
    assert checked >= 20, checked


@pytest.mark.parametrize("case", cases("pair", of=["pair", "target", "hot"]))
def test_histogram__as_on_files(run, server, corpus, case):
    """--histogram's fine buckets counted by the engine (bpf/ntp_hist.h's, in SQL), read at
    every resolution and unit as from the files"""
    files = corpus[case]
    db = f"one_{case}"
    push(run, server.url, "--database", db, *files)
    for args in (("--histogram",), ("--histogram-buckets", "8"), ("--histogram-buckets", "1"),
                 ("--histogram-unit", "ns")):
        want = report_json(run, *args, *files)
        assert any(st.get("histogram") for g in want["groups"] for st in g["stages"]), want
        assert report_json(run, "--url", server.url, "--database", db, *args) == want, args


def stage_rows():
    """(key, view, formula) of each row of lib/core/stage_table.c"""
    text = STAGE_TABLE.read_text()
    out = []
    for m in re.finditer(r'\[NTP_STAGE_\w+\] = \{ "(\w+)", "[^"]*", "[^"]*", \w,\s*'
                         r'(NULL|"(\w+)"),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\}', text):
        formula = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(4)))
        out.append((m.group(1), m.group(3), formula))
    return out


def test_stage_columns__the_table_of_stages_row_by_row(run, server):
    db = "stages"
    push(run, server.url, "--database", db)
    cols = {n: (kind, expr) for n, kind, expr in server.rows(
        "SELECT name, default_kind, default_expression FROM system.columns "
        f"WHERE database = '{db}' AND table = 'cmds'")}
    pairs = {n for n, in server.rows(
        f"SELECT name FROM system.columns WHERE database = '{db}' AND table = 'pairs'")}
    rows = stage_rows()
    assert len(rows) == STAGE_TABLE.read_text().count("] = { \""), rows
    norm = lambda s: re.sub(r"[\s()]", "", s)
    for key, view, formula in rows:
        if view in ("host_stages", "target_stages"):
            kind, expr = cols[f"{key}_ns"]
            assert kind == "ALIAS" and norm(expr) == norm(formula), (key, expr, formula)
        else:
            assert cols.get(f"{key}_ns", ("", ""))[0] != "ALIAS", key
        if view in ("host_stages", "target_stages", "joined_stages") and \
                key not in ("network_star", "residence"):
            assert f"{key}_ns" in pairs, key


def doc_queries():
    """{name: sql} of the '-- query: NAME' literal blocks of ntprof-fleet(7)"""
    out = {}
    for block in re.findall(r"::\n\n((?:    .*\n|\n)+)", FLEET_DOC.read_text()):
        text = "\n".join(line[4:] for line in block.splitlines()).strip()
        m = re.match(r"-- query: (\w+)\n", text)
        if m:
            out[m.group(1)] = text
    return out


def nearest(values, p):
    values = sorted(values)
    rank = -(-round(p * 1_000_000) * len(values) // 100_000_000)
    return values[max(rank, 1) - 1]


@pytest.mark.parametrize("where", cases("two", of=["one", "two"]))
def test_fleet_questions__as_documented(run, server, shards, tmp_path, where):
    qs = doc_queries()
    assert set(qs) == {"target_hour_p99", "shared_slow", "week_over_week"}
    # two targets, each with its host; target 1 recorded in two weeks
    d = tmp_path
    runs = []
    tuesday = 1715076000       # 2024-05-07T10:00:00Z, in the week of 2024-05-06
    for i, (start, storage) in enumerate([(tuesday, (20_000, 90_000)),
                                          (tuesday - 7 * 86400, (10_000, 40_000)),
                                          (tuesday + 3600, (200_000, 300_000))]):
        groups = (J("read", 4096, "nvme0n1", 300, storage=storage),)
        meta = {"start_realtime_ns": start * 10**9}
        target = "t1" if i < 2 else "t2"
        ntpgen.generate_joined([d / f"h{i}.ntp"], [d / f"t{i}.ntp"],
                               [ntpgen.Link(0, 0, groups=groups)], seed=70 + i,
                               host_meta=[dict(meta, hostname=f"host{i}")],
                               target_meta=[dict(meta, hostname=target)])
        runs.append((d / f"h{i}.ntp", d / f"t{i}.ntp", target))
    if where == "one":
        nodes = [server]
        db = "questions"
    else:
        nodes = list(shards)
        db = "questions"
        for s in nodes:
            push(run, s.url, "--database", db, "--cluster", fleet_server.CLUSTER)
    for h, t, _ in runs:
        push(run, nodes[0].url, "--database", db, h, t)
    # what the files say: each joined command's stages (ntprof join)
    stages = []
    for i, (h, t, target) in enumerate(runs):
        out = d / f"j{i}.ntp"
        assert_ok(run("join", "-o", out, h, t))
        with sqlite3.connect(out) as c:
            for e2e, storage, host_start in c.execute(
                    "SELECT e2e_ns, storage_ns, h_start_ns FROM joined_stages"):
                stages.append((target, f"host{i}", i, e2e, storage))
    sql = lambda name: qs[name].replace("ntprof.", f"{db}.")
    got = nodes[-1].rows(sql("target_hour_p99"))
    want = {}
    for target, _, i, e2e, storage in stages:
        want.setdefault((target, i), []).append((e2e, storage))
    hours = {0: "2024-05-07 10:00:00", 1: "2024-04-30 10:00:00", 2: "2024-05-07 11:00:00"}
    assert sorted((r[0], r[1], int(r[2]), int(r[3]), int(r[6])) for r in got) == sorted(
        (tg, hours[i], len(v), nearest([s for _, s in v], 99), nearest([e for e, _ in v], 99))
        for (tg, i), v in want.items())
    got = nodes[-1].rows(sql("shared_slow"))
    by_target = {}
    for target, host, _, _, storage in stages:
        by_target.setdefault(target, ([], set()))
        by_target[target][0].append(storage)
        by_target[target][1].add(host)
    assert [(r[0], int(r[2]), int(r[3]), r[4]) for r in got] == [
        (tg, len(v[0]), nearest(v[0], 99), "[" + ",".join(f"'{h}'" for h in sorted(v[1])) + "]")
        for tg, v in sorted(by_target.items(), key=lambda kv: -nearest(kv[1][0], 99))]
    got = {r[0]: r for r in nodes[-1].rows(sql("week_over_week"))}
    this = [s for tg, _, i, _, s in stages if tg == "t1" and i == 0]
    before = [s for tg, _, i, _, s in stages if tg == "t1" and i == 1]
    assert int(got["t1"][1]) == nearest(this, 99) and int(got["t1"][2]) == nearest(before, 99)
    assert float(got["t1"][3]) == pytest.approx(nearest(this, 99) / nearest(before, 99))
