# SPDX-License-Identifier: GPL-2.0
"""ntprof report on synthetic recordings (ntpgen.py) whose per-stage latencies
are known: every number the report prints is checked against statistics
computed here in Python, and the JSON against the text."""

import csv
import json
import math
import re
import sqlite3

import pytest

import ntpgen
import tidy
from report_text import parse_tables, size_str, us
from conftest import Exit, REPO, run_ok

US = 1000.0


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("report") / "host.ntp", seed=7)


def header_map(text):
    """'# key: value' lines of the header; hooks collected in a list."""
    h = {"hook": []}
    for line in text.splitlines():
        m = re.match(r"# ([a-z ]+):\s+(.*)$", line)
        if not m:
            continue
        if m[1] == "hook":
            h["hook"].append(m[2])
        else:
            h.setdefault(m[1], m[2])
    return h


def near(text_us, ns, tol_us=0.005):
    """A text cell (us, 2 decimals) against ns computed here; "-" for None (too few commands)."""
    if ns is None or text_us == "-":
        return ns is None and text_us == "-"
    return abs(float(text_us) - ns / US) <= tol_us + 1e-9


def test_header_lists_the_recording(run, rec):
    r = run_ok(run, "report", "--header", str(rec.path))
    h = header_map(r.stdout)
    m = rec.meta
    assert r.stdout.startswith("# ntprof report\n")
    assert h["file"] == str(rec.path)
    assert h["role"] == "host" and h["transport"] == "tcp"
    assert h["kernel release"] == m["kernel_release"]
    assert h["host"] == m["hostname"]
    assert h["start time"] == "2024-05-01T10:00:00Z"
    assert h["duration"].startswith("10.000 s")
    assert h["sample rate"] == "1/1000"
    assert h["hash version"] == "1"
    # one line per hook, with its flavour and, when there is one, the reason
    assert len(h["hook"]) == len(rec.hooks)
    for (side, point, hook, flavour, reason), line in zip(rec.hooks, h["hook"]):
        assert line.startswith(f"{side} {point}: {hook} ({flavour})")
        assert reason in line
    seen = sum(i[2] for i in rec.intervals)
    assert h["commands seen"] == str(seen)
    assert h["commands sampled"] == str(len(rec.commands))
    # lost events are always shown, even when there were none
    assert h["commands lost"].startswith("0 ")
    assert "warning" not in r.stdout
    assert h["commands in file"] == str(len(rec.commands))


def test_groups_equal_python_statistics(run, rec):
    r = run_ok(run, "report", str(rec.path))
    got = parse_tables(r.stdout)["groups"]
    want = ntpgen.expected_groups(rec)
    assert [(g["io_type"], g["size"], g["namespace"]) for g in got] == \
        [(w["io_type"], size_str(w["bytes"]), w["namespace"]) for w in want]
    for g, w in zip(got, want):
        assert int(g["n"]) == w["n"]
        assert abs(float(g["est_cmds/s"]) - w["est_cmds_per_s"]) <= 0.05 + 1e-9
        e = w["e2e"]
        for col, key in (("min", "min_ns"), ("p50", "p50_ns"), ("p90", "p90_ns"),
                         ("p99", "p99_ns"), ("p99.9", "p99_9_ns"), ("max", "max_ns")):
            assert near(g[col], e[key]), (g, col)
        assert near(g["mean"], e["mean_ns"], tol_us=0.0051), g


def test_stages_equal_python_statistics(run, rec):
    r = run_ok(run, "report", str(rec.path))
    t = parse_tables(r.stdout)
    want = ntpgen.expected_groups(rec)
    assert len(t["stages"]) == len(want)
    for w in want:
        key = (w["io_type"], size_str(w["bytes"]), w["namespace"])
        rows = t["stages"][key]
        assert list(rows) == ["block", "driver", "network*", "unattributed", "end-to-end"]
        for st, label in (("block", "block"), ("driver", "driver"),
                          ("network_star", "network*")):
            row, s = rows[label], w["stages"][st]
            for col, k in (("min", "min_ns"), ("p50", "p50_ns"), ("p90", "p90_ns"),
                           ("p99", "p99_ns"), ("p99.9", "p99_9_ns"), ("max", "max_ns")):
                assert near(row[col], s[k]), (key, label, col)
            assert near(row["mean"], s["mean_ns"], tol_us=0.0051)
            assert abs(float(row["share%"]) - s["share_pct"]) <= 0.05 + 1e-9
        # the stages add up exactly, so nothing is unattributed
        assert rows["unattributed"]["mean"] == "0.00"
        assert rows["unattributed"]["share%"] == "0.0"
        assert rows["end-to-end"]["share%"] == "100.0"
        assert near(rows["end-to-end"]["p99"], w["e2e"]["p99_ns"])
        assert t["checks"][key].startswith("ok")
        assert f"0 of {w['n']} commands do not add up" in t["checks"][key]
    assert "#   network*     the network and the target together" in r.stdout
    assert "# stages (summary):\n#   block        host block layer" in r.stdout


def test_json_equals_python_and_text(run, rec, tmp_path):
    out = tmp_path / "r.json"
    r = run_ok(run, "report", "-j", str(out), str(rec.path))
    doc = json.loads(out.read_text())
    assert list(doc)[:7] == ["ntprof_version", "format_version", "schema_version", "command",
                             "kind", "stage_view", "e2e_is"]
    assert (doc["format_version"], doc["kind"], doc["stage_view"]) == (2, "host", "summary")
    assert doc["command"] == "report" and doc["schema_version"] == 1
    f = doc["files"][0]
    assert f["path"] == str(rec.path)
    assert f["duration_ns"] == rec.meta["stop_ns"] - rec.meta["start_ns"]
    assert f["sample_one_in"] == 1000 and f["hash_version"] == 1
    assert [(h["side"], h["point"], h["hook"], h["flavour"], h["reason"])
            for h in f["hooks"]] == [tuple(h) for h in rec.hooks]
    c = f["commands"]
    assert c["sampled"] == len(rec.commands) == c["in_file"]
    assert c["lost"] == c["lost_ringbuf"] == c["lost_map"] == 0
    assert doc["warnings"] == []

    want = ntpgen.expected_groups(rec)
    text = parse_tables(r.stdout)
    assert len(doc["groups"]) == len(want) == len(text["groups"])
    for g, w, tg in zip(doc["groups"], want, text["groups"]):
        assert (g["io_type"], g["bytes"], g["namespace"], g["n"]) == \
            (w["io_type"], w["bytes"], w["namespace"], w["n"])
        assert math.isclose(g["est_cmds_per_s"], w["est_cmds_per_s"], rel_tol=1e-12)
        # integers exact; the mean within the 1 ns a double's rounding may move it
        for k, v in w["e2e"].items():
            assert ntpgen.near(g["e2e"][k], v, k), k
        assert [s["stage"] for s in g["stages"]] == list(ntpgen.STAGES)
        for s in g["stages"]:
            ws = w["stages"][s["stage"]]
            for k, v in ws.items():
                if k == "share_pct":
                    assert math.isclose(s[k], v, rel_tol=1e-9)
                else:
                    assert ntpgen.near(s[k], v, k), k
        assert g["sum_check"] == {"ok": True, "stage_sum_ns": g["sum_check"]["e2e_sum_ns"],
                                  "e2e_sum_ns": sum(c.e2e for c in rec.commands
                                                    if (c.group.report_io_type, c.group.bytes,
                                                        c.group.namespace) ==
                                                    (w["io_type"], w["bytes"], w["namespace"])),
                                  "mismatched_commands": 0, "impossible_commands": 0,
                                  "impossible": {"backwards": 0, "not_a_number": 0,
                                                 "overflow": 0}}
        assert g["unattributed_mean_ns"] == 0
        # the text shows exactly the JSON's numbers
        assert tg["n"] == str(g["n"])
        assert tg["est_cmds/s"] == f"{g['est_cmds_per_s']:.1f}"
        for col, k in (("min", "min_ns"), ("mean", "mean_ns"), ("p50", "p50_ns"),
                       ("p90", "p90_ns"), ("p99", "p99_ns"), ("p99.9", "p99_9_ns"),
                       ("max", "max_ns")):
            assert tg[col] == us(g['e2e'][k])
        rows = text["stages"][(g["io_type"], size_str(g["bytes"]), g["namespace"])]
        for s, label in zip(g["stages"], ("block", "driver", "network*")):
            assert rows[label]["mean"] == us(s['mean_ns'])
            assert rows[label]["p99.9"] == us(s['p99_9_ns'])
            assert rows[label]["share%"] == f"{s['share_pct']:.1f}"


def test_json_to_stdout_is_one_document_and_no_text(run, rec):
    r = run_ok(run, "report", "--json", "-", str(rec.path))
    doc = json.loads(r.stdout)
    assert doc["command"] == "report"
    assert len(doc["groups"]) == len(ntpgen.expected_groups(rec))
    pretty = run_ok(run, "report", "--pretty", "-j", "-", str(rec.path))
    assert json.loads(pretty.stdout) == doc
    assert pretty.stdout.count("\n") > r.stdout.count("\n")


def test_lost_events_give_a_warning(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "lost.ntp", seed=3, lost_ringbuf=3, lost_map=2)
    r = run_ok(run, "report", "--header", "-j", str(tmp_path / "lost.json"), str(rec.path))
    h = header_map(r.stdout)
    assert h["commands lost"] == "5 (ring buffer full 3, in-flight map full 2)"
    assert h["commands sampled"] == str(len(rec.commands) + 5)
    assert re.search(r"^# warning: 5 sampled commands were lost", r.stdout, re.M)
    doc = json.loads((tmp_path / "lost.json").read_text())
    c = doc["files"][0]["commands"]
    assert (c["lost"], c["lost_ringbuf"], c["lost_map"]) == (5, 3, 2)
    assert len(doc["warnings"]) == 1


def test_field_separator_gives_the_json_in_long_form(run, rec):
    """-t: one header row, then one row per group, stage and statistic, each
    with every key, the values those of -j (ntprof-report(1), Separated fields)."""
    r = run_ok(run, "report", "-t", ",", str(rec.path))
    assert not [line for line in r.stdout.splitlines() if line.startswith("#")]
    header, rows = tidy.read(r.stdout)
    assert header == tidy.REPORT_COLUMNS
    doc = json.loads(run_ok(run, "report", "-j", "-", str(rec.path)).stdout)
    assert tidy.tidy_report_cells(rows) == pytest.approx(tidy.report_cells(doc))
    # 3 stages x 10 statistics, 2 of unattributed, 12 of e2e, per group
    assert len(rows) == len(doc["groups"]) * (3 * 10 + 2 + 12)
    assert {row["bytes"] for row in rows} == {str(g["bytes"]) for g in doc["groups"]}


def test_percent_limit_hides_small_groups(run, rec):
    small = [g for g in ntpgen.expected_groups(rec)
             if g["n"] * 100 / len(rec.commands) < 5]
    assert small, "the default recording has a small group"
    r = run_ok(run, "report", "--percent-limit", "5", "-j", "-", str(rec.path))
    doc = json.loads(r.stdout)
    assert doc["hidden_groups"] == len(small)
    shown = {(g["io_type"], g["bytes"], g["namespace"]) for g in doc["groups"]}
    assert not shown & {(g["io_type"], g["bytes"], g["namespace"]) for g in small}
    t = run_ok(run, "report", "--percent-limit=5", str(rec.path)).stdout
    assert f"# {len(small)} groups below --percent-limit 5% not shown" in t
    bad = run("report", "--percent-limit", "150", str(rec.path))
    assert bad.returncode == Exit.USAGE and "--percent-limit" in bad.stderr


def test_missing_hooks_fall_back_as_documented(run, tmp_path):
    """No h_cmd_sent and no h_recv hook: the command counts as sent at h_queue
    and received at h_done, so the driver is 0 and the network* takes the rest."""
    rec = ntpgen.generate(tmp_path / "nohooks.ntp", seed=5,
                          groups=(ntpgen.Group("read", 4096, "nvme0n1", 200),),
                          drop=("h_cmd_sent_ns", "h_recv_ns"))
    doc = json.loads(run_ok(run, "report", "-j", "-", str(rec.path)).stdout)
    g, = doc["groups"]
    st = {s["stage"]: s for s in g["stages"]}
    block = [c.stages["block"] for c in rec.commands]
    rest = [c.e2e - c.stages["block"] for c in rec.commands]
    assert st["block"]["p99_ns"] == ntpgen.percentile(block, 99)
    assert st["driver"]["max_ns"] == 0 and st["driver"]["min_ns"] == 0
    assert st["network_star"]["p50_ns"] == ntpgen.percentile(rest, 50)
    assert g["sum_check"]["ok"]


def test_duration_without_start_and_stop(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "nostop.ntp", seed=9, meta={"start_ns": None, "stop_ns": None,
                                                                  "duration_ns": None})
    doc = json.loads(run_ok(run, "report", "-j", "-", str(rec.path)).stdout)
    f = doc["files"][0]
    first = min(c.row["h_start_ns"] for c in rec.commands)
    last = max(c.row["h_done_ns"] for c in rec.commands)
    assert f["duration_ns"] == last - first
    assert f["duration_source"] == "first to last sampled command"
    g = doc["groups"][0]
    assert math.isclose(g["est_cmds_per_s"], g["n"] * 1000 / ((last - first) / 1e9))


def test_recording_without_commands(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "empty.ntp", groups=())
    r = run_ok(run, "report", str(rec.path))
    assert "# no sampled host commands in this recording" in r.stdout
    assert all(line.startswith("#") for line in r.stdout.splitlines())
    doc = json.loads(run_ok(run, "report", "-j", "-", str(rec.path)).stdout)
    assert doc["groups"] == [] and doc["files"][0]["commands"]["in_file"] == 0


def test_report_never_modifies_the_recording(run, rec):
    before = rec.path.read_bytes()
    run_ok(run, "report", str(rec.path))
    assert rec.path.read_bytes() == before


def test_help_matches_the_man_page(run):
    """Every option of --help appears, both forms on one line, under OPTIONS."""
    man = (REPO / "Documentation" / "ntprof-report.rst").read_text()
    options = man.split("OPTIONS", 1)[1].split("OUTPUT", 1)[0]
    r = run_ok(run, "report", "--help")
    specs = re.findall(r"^\s+(-\w, --[\w-]+|--[\w-]+)", r.stdout, re.M)
    assert len(specs) >= 4
    for spec in specs:
        forms = [s.strip() for s in spec.split(",")]
        assert any(all(f in line for f in forms) for line in options.splitlines()), spec


def test_large_recording_equals_python(run, tmp_path):
    """Enough commands that the view is read by several threads (one per CPU,
    100000 commands each at least): the merged groups must be exact."""
    rec = ntpgen.generate_bulk(tmp_path / "big.ntp", 250_000)
    db = sqlite3.connect(rec.path)
    groups = {}
    for op, nbytes, ns, s, q, d in db.execute(
            "SELECT opcode, bytes, namespace, h_start_ns, h_queue_ns, h_done_ns FROM host_io"):
        g = groups.setdefault(("write" if op == 1 else "read", nbytes, ns), ([], []))
        g[0].append(d - s)
        g[1].append(q - s)
    db.close()
    doc = json.loads(run_ok(run, "report", "-j", "-", str(rec.path), timeout=120).stdout)
    assert len(doc["groups"]) == len(groups)
    assert sum(g["n"] for g in doc["groups"]) == 250_000
    for g in doc["groups"]:
        e2e, block = groups[(g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(e2e)
        want = ntpgen.summary(e2e)
        for k, v in want.items():
            assert abs(g["e2e"][k] - v) <= (1 if k == "mean_ns" else 0), k
        st = g["stages"][0]
        assert st["stage"] == "block"
        assert (st["min_ns"], st["p50_ns"], st["p99_9_ns"], st["max_ns"]) == \
            (min(block), ntpgen.percentile(block, 50), ntpgen.percentile(block, 99.9), max(block))
        assert g["sum_check"]["ok"]
