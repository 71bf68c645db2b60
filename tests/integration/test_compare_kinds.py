# SPDX-License-Identifier: GPL-2.0
"""ntprof compare on every kind of recording the report model has: joined
pairs (HOST,TARGET runs), "-r both" files, target recordings alone, and the
detailed view.  Each second run is drawn from the same seed with every
command's storage time longer by a known constant, so exactly the storage
stage (and the end-to-end latency, or a target's residence) moves by exactly
that much, and compare must name storage as the stage that changed most."""

import json
import sqlite3
import os

import pytest

import ntpgen
from conftest import Exit, run_ok

# the known change of the storage stage, ns: odd, so rounding would show
DELTA = 5_417


def slower_storage(groups, ns):
    """The same groups with every storage time longer by ns: the same random draws."""
    return tuple(ntpgen.JGroup(**{**g.__dict__, "storage": (g.storage[0] + ns, g.storage[1] + ns)})
                 for g in groups)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("kinds")
    slow = slower_storage(ntpgen.DEFAULT_JGROUPS, DELTA)
    out = {}
    for name, groups in (("base", ntpgen.DEFAULT_JGROUPS), ("new", slow)):
        ntpgen.generate_pair(d / f"{name}-h.ntp", d / f"{name}-t.ntp", seed=21, groups=groups,
                             drift=0.0)  # a drift would round target times by a ns either way
        ntpgen.generate_both(d / f"{name}-both.ntp", seed=22, groups=groups)
        out[name] = {"host": str(d / f"{name}-h.ntp"), "target": str(d / f"{name}-t.ntp"),
                     "both": str(d / f"{name}-both.ntp")}
    out["dir"] = d
    return out


def compare_json(run, *args):
    return json.loads(run_ok(run, "compare", "-j", "-", "--stat", "mean,p99", *args).stdout)


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *args).stdout)


def mean_deltas(doc):
    """{(io_type, bytes, stage): delta_ns} of the groups in both runs."""
    return {(g["io_type"], g["bytes"], s["stage"]): s["mean"]["delta_ns"]
            for g in doc["groups"] if g["present"] == "both" for s in g["stages"]}


def check_only_storage_moved(doc, total="e2e"):
    deltas = mean_deltas(doc)
    assert deltas
    for (io_type, nbytes, stage), d in deltas.items():
        want = DELTA if stage in ("storage", total) else 0
        assert d == want, (io_type, nbytes, stage, d)
    most = doc["changed_most"]
    assert most["stage"] == "storage" and most["delta_ns"] == DELTA
    assert most["new_mean_ns"] - most["baseline_mean_ns"] == DELTA


def test_joined_pairs__all_five_stages__storage_changed_most(run, runs):
    base = f"{runs['base']['host']},{runs['base']['target']}"
    new = f"{runs['new']['target']},{runs['new']['host']}"     # any order, as report takes them
    doc = compare_json(run, base, new)
    assert (doc["format_version"], doc["kind"], doc["stage_view"]) == (2, "joined", "summary")
    for g in doc["groups"]:
        assert [s["stage"] for s in g["stages"]] == list(ntpgen.JOIN_STAGES) + ["e2e"]
    check_only_storage_moved(doc)
    # every file of both runs is listed, numbered within its run
    assert [(f["baseline"], f["file"]) for f in doc["files"]] == \
        [(True, 1), (True, 2), (False, 1), (False, 2)]
    # the numbers are report's, run by run
    rep = report_json(run, runs["base"]["host"], runs["base"]["target"])
    for g, rg in zip(doc["groups"], rep["groups"]):
        assert g["n_baseline"] == rg["n"]
        storage, = [s for s in g["stages"] if s["stage"] == "storage"]
        rs, = [s for s in rg["stages"] if s["stage"] == "storage"]
        assert storage["mean"]["baseline_ns"] == rs["mean_ns"]
        assert storage["p99"]["baseline_ns"] == rs["p99_ns"]
    text = run_ok(run, "compare", base, new).stdout
    assert "# changed most: storage of " in text
    assert f"mean +{DELTA // 1000}.{DELTA % 1000:03d} us" in text
    for label in ("block", "driver(h)", "network", "driver(t)", "storage", "end-to-end"):
        assert f" {label} " in text
    assert "# stages (summary):\n#   block " in text


def test_both_files__joined_stages(run, runs):
    doc = compare_json(run, runs["base"]["both"], runs["new"]["both"])
    assert doc["kind"] == "joined"
    check_only_storage_moved(doc)


def test_target_alone__target_stages_and_residence(run, runs):
    doc = compare_json(run, runs["base"]["target"], runs["new"]["target"])
    assert (doc["kind"], doc["e2e_is"]) == ("target", "residence")
    for g in doc["groups"]:
        assert g["namespace"] is None and g["device"] == "/dev/nullb0"
        assert [s["stage"] for s in g["stages"]] == ["target_driver", "storage", "e2e"]
    check_only_storage_moved(doc)
    assert "residence" in doc["stage_notes"]
    text = run_ok(run, "compare", runs["base"]["target"], runs["new"]["target"]).stdout
    assert " residence " in text and "# io_type    size device " in text
    assert "no sampled host commands" not in text


def target_rows(path):
    db = sqlite3.connect(path)
    n = db.execute("SELECT count(*) FROM target_io").fetchone()[0]
    db.close()
    return n


@pytest.mark.parametrize("kind", ["target", "both"])
def test_files_counts__each_side_from_its_own_table(run, runs, kind):
    """A target recording's commands are its target_io's, not the host's 0;
    a file of both sides gives both."""
    base, new = runs["base"][kind], runs["new"][kind]
    doc = compare_json(run, base, new)
    text = run_ok(run, "compare", base, new).stdout
    for f, path in zip(doc["files"], (base, new)):
        if kind == "target":
            assert f["commands_in_file"] == target_rows(path) > 0
            assert f["target_commands_in_file"] is None
        else:
            assert f["target_commands_in_file"] == target_rows(path) > 0
    if kind == "target":
        assert f"#   commands:        {target_rows(base)} in file, " in text
        assert "#   commands:        0 in file" not in text
    else:
        assert " in file, " in text and f"{target_rows(base)} in file" in text
        assert text.count(" lost (target)") == 2 and text.count(" lost (host)") == 2


def test_detail_view__sub_stages(run, runs):
    base = f"{runs['base']['host']},{runs['base']['target']}"
    new = f"{runs['new']['host']},{runs['new']['target']}"
    doc = compare_json(run, "--stages", "detail", base, new)
    assert doc["stage_view"] == "detail"
    for g in doc["groups"]:
        assert [s["stage"] for s in g["stages"]] == list(ntpgen.DETAIL_STAGES) + ["e2e"]
    check_only_storage_moved(doc)
    short = compare_json(run, "-S", "detail", base, new)
    assert short == doc


@pytest.mark.parametrize("base,new,words", [
    ("host", "target", "host recordings (baseline) vs target recordings (new)"),
    ("both", "host", "joined recordings (baseline) vs host recordings (new)"),
])
def test_different_kinds__mismatch(run, runs, base, new, words):
    a, b = runs["base"][base], runs["new"][new]
    r = run("compare", a, b)
    assert r.returncode == Exit.MISMATCH and r.stdout == ""
    assert r.stderr == f"ntprof compare: error: {a}, {b}: cannot compare: {words}\n"


def test_comma_in_a_file_name__that_file(run, runs):
    named = runs["dir"] / "run,1.ntp"
    os.link(runs["base"]["target"], named)
    doc = compare_json(run, named, runs["new"]["target"])
    assert doc["kind"] == "target"
    assert doc["files"][0]["path"] == str(named)


def test_run_that_cannot_be_joined__mismatch_named(run, runs):
    # two host recordings are no joined run
    r = run("compare", f"{runs['base']['host']},{runs['new']['host']}", runs["new"]["both"])
    assert r.returncode == Exit.MISMATCH
    assert "cannot join" in r.stderr and len(r.stderr.splitlines()) == 1


def test_missing_file_in_a_run__named(run, runs):
    gone = str(runs["dir"] / "gone.ntp")
    r = run("compare", f"{runs['base']['host']},{gone}", runs["new"]["both"])
    assert r.returncode == Exit.NOFILE
    assert r.stderr.startswith(f"ntprof compare: error: {gone}: ")


def test_two_hosts_of_one_name_stay_apart__paired_by_their_place(run, tmp_path):
    """Two hosts whose namespaces are both nvme0n1, one target: the baseline
    and the new run each join h1, h2 and t (in another order in the new).
    Only the second host's storage got slower: compare pairs h1 with h1 and
    h2 with h2 (file 1 and 2), and only file 2's groups moved."""
    same = ntpgen.DEFAULT_JGROUPS[:2]

    def links(groups2):
        return [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=3_600_000_123_457, drift=0.0, groups=same),
                ntpgen.Link(1, 0, "nvme0", 2, offset_ns=-700_000_654_321, drift=0.0,
                            groups=groups2)]
    slow = tuple(ntpgen.JGroup(**{**g.__dict__, "storage": (g.storage[0] + DELTA,
                                                            g.storage[1] + DELTA)}) for g in same)
    runs = {}
    for name, g2 in (("a", same), ("b", slow)):
        paths = [tmp_path / f"{name}-h1.ntp", tmp_path / f"{name}-h2.ntp", tmp_path / f"{name}-t.ntp"]
        ntpgen.generate_joined(paths[:2], paths[2:], links(g2), seed=13, lose_host=0,
                               lose_target=0, reject=0)
        runs[name] = paths
    base = ",".join(map(str, runs["a"]))
    new = ",".join(map(str, (runs["b"][2], runs["b"][0], runs["b"][1])))   # t, h1, h2
    doc = compare_json(run, base, new)
    files = {}
    for g in doc["groups"]:
        assert g["present"] == "both", g
        files.setdefault(g["file"], []).append(g)
    assert sorted(files) == [1, 2] and all(len(v) == len(same) for v in files.values())
    for f, groups in files.items():
        for g in groups:
            assert g["namespace"] == "nvme0n1"
            storage = next(s for s in g["stages"] if s["stage"] == "storage")
            assert storage["mean"]["delta_ns"] == (DELTA if f == 2 else 0), (f, storage)
    text = run_ok(run, "compare", base, new).stdout
    assert "2:nvme0n1" in text and "1:nvme0n1" in text
