# SPDX-License-Identifier: GPL-2.0
"""ntprof report on a target recording alone (`record -r target`): the
target's own stages per group, driver(t) and storage, which add up to the
command's residence on the target.  The target file of ntpgen's
generate_pair (R2T writes included, samples lost, records no host matches);
every number is checked against values computed here from its target_io
rows, the JSON against the text."""

import json
import math
import re
import sqlite3

import pytest

import ntpgen
import tidy
from report_text import parse_tables, size_str, us
from conftest import Exit, run_ok

US = 1000.0
SUMMARY = ("min_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns")
TEXT_COLS = (("min", "min_ns"), ("mean", "mean_ns"), ("p50", "p50_ns"), ("p90", "p90_ns"),
             ("p99", "p99_ns"), ("p99.9", "p99_9_ns"), ("max", "max_ns"))
SUMMARY_STAGES = (("driver(t)", "target_driver"), ("storage", "storage"))
DETAIL_STAGES = (("target-rx", "target_rx"), ("storage", "storage"), ("target-tx", "target_tx"))
NOTE = ("a target recording alone has the target's stages only; the network and host stages "
        "(block, driver(h), network) need the host's recording: "
        "ntprof report HOST.ntp TARGET.ntp")


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    d = tmp_path_factory.mktemp("target")
    js = ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31)
    return js.target_paths[0]


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *args).stdout)


def stages_of(t):
    """One target_io row's stages from its raw times (ntprof-design(7)): an R2T
    write's wait for its data is network time, outside the residence."""
    r2t_wait = t["t_submit_ns"] - t["t_r2t_ns"] if t["t_r2t_ns"] is not None else 0
    rx = t["t_submit_ns"] - t["t_recv_ns"] - r2t_wait
    storage = t["t_cmpl_ns"] - t["t_submit_ns"]
    tx = t["t_sent_ns"] - t["t_cmpl_ns"]
    return {"target_driver": rx + tx, "storage": storage, "target_rx": rx, "target_tx": tx,
            "residence": t["t_sent_ns"] - t["t_recv_ns"] - r2t_wait}


def expected(path, names):
    """The report's groups in its order (device; read, write, other; size)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute("SELECT * FROM target_io")]
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    assert any(r["t_r2t_ns"] is not None for r in rows), "no R2T write to test"
    io = {1: "write", 2: "read"}
    groups = {}
    for r in rows:
        key = (r["device"], io.get(r["opcode"], "other"), r["bytes"])
        groups.setdefault(key, []).append(stages_of(r))
    rank = {"read": 0, "write": 1, "other": 2}
    duration_s = (meta["stop_ns"] - meta["start_ns"]) / 1e9
    out = []
    for (dev, io_type, nbytes), vals in sorted(groups.items(),
                                               key=lambda kv: (kv[0][0], rank[kv[0][1]], kv[0][2])):
        res = [v["residence"] for v in vals]
        g = {"device": dev, "io_type": io_type, "bytes": nbytes, "n": len(vals),
             "est_cmds_per_s": len(vals) * meta["sample_one_in"] / duration_s,
             "residence": ntpgen.summary(res), "stages": {}}
        for name in names:
            v = [x[name] for x in vals]
            g["stages"][name] = ntpgen.summary(v)
            g["stages"][name]["share_pct"] = (sum(v) / len(v)) / (sum(res) / len(res)) * 100
        out.append(g)
    return out, len(rows)


def assert_groups(doc, want, names):
    assert [(g["file"], g["device"], g["io_type"], g["bytes"], g["n"]) for g in doc["groups"]] \
        == [(1, w["device"], w["io_type"], w["bytes"], w["n"]) for w in want]
    for g, w in zip(doc["groups"], want):
        assert g["namespace"] is None and "residence" not in g
        assert {k: g["e2e"][k] for k in SUMMARY} == w["residence"]
        assert g["e2e"]["histogram"] is None
        assert math.isclose(g["est_cmds_per_s"], w["est_cmds_per_s"])
        assert [s["stage"] for s in g["stages"]] == list(names)
        for s in g["stages"]:
            assert {k: s[k] for k in SUMMARY} == {k: w["stages"][s["stage"]][k] for k in SUMMARY}
            assert math.isclose(s["share_pct"], w["stages"][s["stage"]]["share_pct"],
                                rel_tol=1e-9)
        # the stages add up to the residence, command by command
        sc = g["sum_check"]
        assert sc["ok"] and sc["mismatched_commands"] == 0
        assert sc["stage_sum_ns"] == sc["e2e_sum_ns"]
        assert g["unattributed_mean_ns"] == 0


def test_target_alone_reports_its_stages(run, target):
    doc = report_json(run, target)
    assert (doc["command"], doc["kind"], doc["e2e_is"]) == ("report", "target", "residence")
    assert doc["stage_view"] == "summary"
    assert doc["note"] == NOTE
    want, nrows = expected(target, ("target_driver", "storage"))
    assert_groups(doc, want, ("target_driver", "storage"))
    assert sum(g["n"] for g in doc["groups"]) == nrows
    f, = doc["files"]
    assert (f["role"], f["sides"]) == ("target", ["target"])
    assert f["target_commands"]["in_file"] == nrows
    assert set(doc["stage_notes"]) == {"target_driver", "storage", "residence"}
    assert doc["clock_pairs"] == [] and doc["join"] is None


def test_target_alone_text_equals_json(run, target):
    doc = report_json(run, target)
    text = run_ok(run, "report", target).stdout
    assert "no sampled host commands" not in text
    assert f"# note: {NOTE}\n" in text
    assert re.search(r"^# io_type +size device +n ", text, re.M)
    t = parse_tables(text)
    # a recording alone has no file numbers; every stage table is in shares of the residence
    titles = re.findall(r"^# stages of .*$", text, re.M)
    assert titles and all(re.search(r" /dev/\S+ \(n=\d+\), us; share% of the residence mean$", x)
                          for x in titles), titles
    assert len(t["groups"]) == len(doc["groups"]) > 1
    for tg, g in zip(t["groups"], doc["groups"]):
        key = (g["io_type"], size_str(g["bytes"]), g["device"])
        assert (tg["io_type"], tg["size"], tg["device"], int(tg["n"])) == key + (g["n"],)
        assert tg["est_cmds/s"] == f"{g['est_cmds_per_s']:.1f}"
        for col, k in TEXT_COLS:
            assert tg[col] == us(g['e2e'][k]), col
        rows = t["stages"][key]
        assert list(rows) == ["driver(t)", "storage", "unattributed", "residence"]
        for label, name in SUMMARY_STAGES:
            s, = [s for s in g["stages"] if s["stage"] == name]
            for col, k in TEXT_COLS:
                assert rows[label][col] == us(s[k]), (label, col)
            assert rows[label]["share%"] == f"{s['share_pct']:.1f}"
        for col, k in TEXT_COLS:
            assert rows["residence"][col] == us(g['e2e'][k])
        assert rows["unattributed"]["mean"] == "0.00"
        assert t["checks"][key].startswith("ok (the stage means add up to the residence mean")


def test_target_alone_detail(run, target):
    doc = report_json(run, "--stages=detail", target)
    assert (doc["kind"], doc["stage_view"]) == ("target", "detail")
    names = [n for _, n in DETAIL_STAGES]
    want, _ = expected(target, names)
    assert_groups(doc, want, names)
    t = parse_tables(run_ok(run, "report", "--stages=detail", target).stdout)
    for rows in t["stages"].values():
        assert list(rows) == [label for label, _ in DETAIL_STAGES] + ["unattributed", "residence"]


def test_target_alone_percent_limit_and_separator(run, target):
    doc = report_json(run, "--percent-limit", "20", target)
    total = sum(g["n"] for g in report_json(run, target)["groups"])
    assert doc["hidden_groups"] >= 1
    assert all(g["n"] * 100 / total >= 20 for g in doc["groups"])
    r = run("report", "-t", ",", target)
    # the text's warning of lost commands goes to stderr, the rows stay rows
    assert r.returncode == Exit.OK and "were lost while recording" in r.stderr
    header, rows = tidy.read(r.stdout)
    assert header == tidy.REPORT_COLUMNS
    assert rows and all(row["namespace"] == "" and row["device"] for row in rows)
    assert tidy.tidy_report_cells(rows) == pytest.approx(tidy.report_cells(report_json(run, target)))
    assert {row["stage"] for row in rows} == {"target_driver", "storage", "unattributed", "e2e"}


def test_target_alone_without_commands(run, tmp_path):
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", groups=())
    text = run_ok(run, "report", js.target_paths[0]).stdout
    assert "# no sampled target commands in this recording\n" in text
    assert f"# note: {NOTE}\n" in text
    assert all(line.startswith("#") for line in text.splitlines())
    doc = report_json(run, js.target_paths[0])
    assert doc["groups"] == [] and doc["kind"] == "target"
    assert doc["files"][0]["target_commands"]["in_file"] == 0


def test_host_alone_unchanged(run, tmp_path):
    """The host file of the same pair keeps the report on one host recording."""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=3)
    doc = report_json(run, js.host_paths[0])
    assert (doc["kind"], doc["e2e_is"], doc["note"]) == ("host", "end-to-end", None)
    assert [s["stage"] for s in doc["groups"][0]["stages"]] == ["block", "driver", "network_star"]
