# SPDX-License-Identifier: GPL-2.0
"""The application's stages in report and compare (ntprof-report(1), "The
application's stages"): recordings from ntpgen.py with App(), whose submit,
complete, reap and app e2e are known per command, host-only and joined; the
means and percentiles against those computed here, the wider sum check, the
JSON against its schema (conftest's run validates every -j document), the
long form, --sort and -F; and recordings without the application's stamps
(an older file, or stamps never seen) reported exactly as before."""

import csv
import io
import json
import re
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok
from report_text import size_str, us

SUMMARY_KEYS = ("min_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns",
                "max_ns")


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *args).stdout)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("app") / "host.ntp", seed=3, app=ntpgen.App())


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The same commands without the application's side: the columns all NULL."""
    return ntpgen.generate(tmp_path_factory.mktemp("app") / "plain.ntp", seed=3)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("app_pair")
    return ntpgen.generate_pair(d / "h.ntp", d / "t.ntp", seed=5, app=ntpgen.App(seed=9))


def check_app(got, cmds):
    want = ntpgen.expected_app(cmds)
    assert got["n"] == want["n"] > 0 and got["reaped"] == want["reaped"]
    assert got["impossible_commands"] == 0
    assert {k: got["e2e"][k] for k in SUMMARY_KEYS} == want["e2e"]
    assert [s["stage"] for s in got["stages"]] == list(ntpgen.APP_STAGES)
    for s in got["stages"]:
        assert {k: s[k] for k in SUMMARY_KEYS} == want["stages"][s["stage"]], s["stage"]
        assert s["share_pct"] == pytest.approx(
            s["mean_ns"] / got["e2e"]["mean_ns"] * 100, rel=1e-3)
    sc = got["sum_check"]
    a = [c.app for c in cmds if c.app]
    assert sc["ok"] and sc["mismatched_commands"] == 0
    assert sc["app_e2e_sum_ns"] == sum(x["app_e2e"] for x in a) == sc["stage_sum_ns"]
    assert sc["e2e_sum_ns"] == sum(x["app_e2e"] - x["submit"] - x["complete"] - x["reap"]
                                   for x in a)


def test_host_only_app_stages_equal_the_generated(run, host):
    doc = report_json(run, str(host.path))
    groups = host.by_group()
    assert len(doc["groups"]) == len(groups)
    for g in doc["groups"]:
        cmds = groups[(g["io_type"], g["bytes"], g["namespace"])]
        # the window's stages are those of every command, as before
        assert g["n"] == len(cmds) and g["sum_check"]["ok"]
        check_app(g["app"], cmds)
    assert {"submit", "complete", "reap", "app_e2e"} <= set(doc["stage_notes"])


def test_joined_app_stages_equal_the_generated(run, pair):
    doc = report_json(run, *map(str, pair.host_paths + pair.target_paths))
    groups = pair.by_group()
    assert doc["kind"] == "joined" and len(doc["groups"]) == len(groups)
    for g in doc["groups"]:
        cmds = groups[(g["file"], g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(cmds) and g["sum_check"]["ok"]
        check_app(g["app"], cmds)


@pytest.fixture(scope="module")
def big_pair(tmp_path_factory):
    """Enough commands that two readers share the join (100,000 rows a reader), and
    their application's stages in a scratch file of their own (lib/join/join_base.h)."""
    d = tmp_path_factory.mktemp("app_big")
    groups = (ntpgen.JGroup("read", 4096, "nvme0n1", 60_000),
              ntpgen.JGroup("write", 131072, "nvme0n1", 45_000, r2t_share=0.6))
    return ntpgen.generate_pair(d / "h.ntp", d / "t.ntp", seed=7, groups=groups,
                                app=ntpgen.App(seed=11, unseen=0.3))


def test_joined_app_stages__two_readers_as_one(run, big_pair):
    files = [str(p) for p in big_pair.host_paths + big_pair.target_paths]
    one = run("report", "-j", "-", *files, env={"NTPROF_THREADS": "1"})
    two = run("report", "-j", "-", *files, env={"NTPROF_THREADS": "2"})
    assert one.returncode == two.returncode == Exit.OK, one.stderr + two.stderr
    assert one.stdout == two.stdout
    doc = json.loads(two.stdout)
    groups = big_pair.by_group()
    assert len(doc["groups"]) == len(groups) == 2
    for g in doc["groups"]:
        cmds = groups[(g["file"], g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(cmds) and g["sum_check"]["ok"]
        # the unseen submissions: commands without the application's record among those with
        assert 0 < g["app"]["n"] < g["n"]
        check_app(g["app"], cmds)


def stage_rows(text):
    """{group title: [(stage, cells)]} of the text's stage tables, and the sum check lines."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"# stages of (.*) \(n=\d+\)", line)
        if m:
            cur = out.setdefault(m[1], {"rows": [], "checks": [], "side": None})
        elif cur is not None and line.startswith("# application's side:"):
            cur["side"] = line
        elif cur is not None and "sum check:" in line:
            cur["checks"].append(line)
        elif cur is not None and line and not line.startswith("#"):
            parts = re.split(r"\s{2,}", line.strip())
            cur["rows"].append((parts[0], parts[1:]))
        elif line.startswith("# stages ("):
            cur = None
    return out


@pytest.mark.parametrize("joined", [False, True])
def test_text_order_and_sum_checks(run, host, pair, joined):
    files = pair.host_paths + pair.target_paths if joined else [host.path]
    text = run_ok(run, "report", *map(str, files)).stdout
    tables = stage_rows(text)
    window = ["block", "driver(h)", "network", "driver(t)", "storage"] if joined else \
             ["block", "driver", "network*"]
    assert tables
    for title, t in tables.items():
        assert [r[0] for r in t["rows"]] == ["submit", *window, "complete", "reap",
                                             "unattributed", "end-to-end", "app e2e"], title
        assert t["side"] and re.match(r"# application's side: \d+ of the \d+ commands", t["side"])
        assert len(t["checks"]) == 2 and t["checks"][1].startswith("# app sum check: ok ")
    # the notes define the new stages, in the same order
    notes = re.findall(r"^#   (\S+(?: e2e)?) ", text.split("# stages (summary):")[1], re.M)
    assert notes[0] == "submit" and notes[-3:] == ["complete", "reap", "app e2e"]


def test_text_means_match_the_json(run, host):
    text = run_ok(run, "report", str(host.path)).stdout
    doc = report_json(run, str(host.path))
    tables = list(stage_rows(text).values())
    for g, t in zip(doc["groups"], tables):
        rows = dict(t["rows"])
        want = {s["stage"]: s["mean_ns"] for s in g["app"]["stages"]}
        want["app e2e"] = g["app"]["e2e"]["mean_ns"]
        for stage, mean in want.items():
            assert rows[stage][1] == us(mean)


def test_tidy_has_the_app_rows(run, host):
    doc = report_json(run, str(host.path))
    rows = list(csv.DictReader(io.StringIO(run_ok(run, "report", "-t", ",", str(host.path)).stdout)))
    g = doc["groups"][0]
    mine = [r for r in rows if (r["io_type"], int(r["bytes"]), r["namespace"]) ==
            (g["io_type"], g["bytes"], g["namespace"])]
    stages = []
    for r in mine:
        if r["stage"] not in stages:
            stages.append(r["stage"])
    assert stages == ["submit", "block", "driver", "network_star", "complete", "reap",
                      "unattributed", "e2e", "app_e2e"]
    val = {(r["stage"], r["stat"]): r["value"] for r in mine}
    for s in g["app"]["stages"]:
        assert int(val[(s["stage"], "p99_ns")]) == s["p99_ns"]
        assert int(val[(s["stage"], "n")]) == g["app"]["n"]
    assert int(val[("app_e2e", "mean_ns")]) == g["app"]["e2e"]["mean_ns"]
    assert val[("app_e2e", "mismatched_commands")] == "0"


def test_sort_and_fields_take_the_new_stages(run, host):
    groups = host.by_group()
    for key, pick in (("reap.mean", lambda a: a["stages"]["reap"]["mean_ns"]),
                      ("app_e2e.p99", lambda a: a["e2e"]["p99_ns"]),
                      ("app e2e.max", lambda a: a["e2e"]["max_ns"]),
                      ("submit.min:asc", lambda a: -a["stages"]["submit"]["min_ns"])):
        doc = report_json(run, "--sort", key, str(host.path))
        got = [(g["io_type"], g["bytes"], g["namespace"]) for g in doc["groups"]]
        vals = [pick(ntpgen.expected_app(groups[k])) for k in got]
        # a statistic a group has too few commands for (a p99 of 80) sorts last
        shown = [v for v in vals if v is not None]
        assert vals == sorted(shown, reverse=True) + [None] * (len(vals) - len(shown)), key
        assert doc["sort"][0]["stage"] == key.split(".")[0]
    text = run_ok(run, "report", "-F", "mean,p99", str(host.path)).stdout
    for t in stage_rows(text).values():
        assert [len(c) for _, c in t["rows"]] == [2] * len(t["rows"])
        assert t["rows"][0][0] == "submit" and t["rows"][-1][0] == "app e2e"


def test_sort_by_an_app_stage_without_stamps_is_refused(run, plain):
    r = run("report", "--sort", "reap.mean", str(plain.path))
    assert r.returncode == Exit.USAGE
    assert "no stage 'reap'" in r.stderr and len(r.stderr.splitlines()) == 1


def without_paths(text, *paths):
    for p in paths:
        text = text.replace(str(p), "FILE")
    return text


@pytest.mark.parametrize("args", [(), ("-j", "-"), ("-t", ","), ("--sort", "driver.p99")])
def test_without_stamps_reports_as_before(run, plain, tmp_path, args):
    """An older file, and one whose commands have no stamps, report alike:
    no application rows, the JSON's app null."""
    old = tmp_path / "old.ntp"
    old.write_bytes(plain.path.read_bytes())
    ntpgen.without_app_columns(old)
    a = run_ok(run, "report", *args, str(plain.path)).stdout
    b = run_ok(run, "report", *args, str(old)).stdout
    assert without_paths(a, plain.path) == without_paths(b, old)
    assert "submit" not in a and "app e2e" not in a and "app_e2e" not in a
    if args[:1] == ("-j",):
        assert all(g["app"] is None for g in json.loads(a)["groups"])


def test_commands_without_their_submission_are_not_counted(run, tmp_path):
    """Every command's submission unseen (h_app_submit NULL): no application's side."""
    rec = ntpgen.generate(tmp_path / "unseen.ntp", app=ntpgen.App(unseen=1.0))
    doc = report_json(run, str(rec.path))
    assert all(g["app"] is None for g in doc["groups"])


def test_backwards_app_stamps_are_left_out_of_the_app_stages(run, host, tmp_path):
    bad = tmp_path / "bad.ntp"
    bad.write_bytes(host.path.read_bytes())
    db = sqlite3.connect(bad)
    n = db.execute("UPDATE host_io SET h_app_done_ns = h_done_ns - 1 WHERE id IN"
                   " (SELECT id FROM host_io WHERE h_app_submit_ns IS NOT NULL"
                   " AND opcode = 2 AND bytes = 4096 LIMIT 3)").rowcount
    db.commit()
    db.close()
    assert n == 3
    doc = report_json(run, str(bad))
    g = next(g for g in doc["groups"] if (g["io_type"], g["bytes"]) == ("read", 4096) and
             g["namespace"] == "nvme0n1")
    want = ntpgen.expected_app(host.by_group()[("read", 4096, "nvme0n1")])
    assert g["app"]["impossible_commands"] == 3 and g["app"]["n"] == want["n"] - 3
    assert g["app"]["sum_check"]["ok"] and g["sum_check"]["ok"]
    text = run_ok(run, "report", str(bad)).stdout
    assert "3 commands' application stamps excluded" in text


def test_compare_pairs_the_app_stages(run, host, tmp_path):
    slow = tmp_path / "slow.ntp"
    slow.write_bytes(host.path.read_bytes())
    db = sqlite3.connect(slow)
    db.execute("UPDATE host_io SET h_app_reap_ns = h_app_reap_ns + 50000")
    db.commit()
    db.close()
    r = run("compare", "-j", "-", str(host.path), str(slow))
    assert r.returncode in (Exit.OK,), r.stderr
    doc = json.loads(r.stdout)
    g = doc["groups"][0]
    names = [s["stage"] for s in g["stages"]]
    assert names[0] == "submit" and names[-3:] == ["reap", "app_e2e", "e2e"], names
    reap = next(s for s in g["stages"] if s["stage"] == "reap")
    block = next(s for s in g["stages"] if s["stage"] == "block")
    assert reap["mean"]["delta_ns"] > 0 and block["mean"]["delta_ns"] == 0
    assert "reap" in doc["stage_notes"]


def test_compare_changed_most_is_a_stage_not_the_app_e2e(run, host, tmp_path):
    """complete grows by 20 us and reap by 30 us: the app e2e by 50 us, more
    than any stage, but a total; the line names reap."""
    slow = tmp_path / "slow.ntp"
    slow.write_bytes(host.path.read_bytes())
    db = sqlite3.connect(slow)
    db.execute("UPDATE host_io SET h_app_done_ns = h_app_done_ns + 20000,"
               " h_app_reap_ns = h_app_reap_ns + 50000 WHERE h_app_reap_ns IS NOT NULL")
    db.commit()
    db.close()
    doc = json.loads(run("compare", "-j", "-", str(host.path), str(slow)).stdout)
    g = doc["groups"][0]
    mean = {s["stage"]: s["mean"]["delta_ns"] for s in g["stages"]}
    assert mean["app_e2e"] > max(v for k, v in mean.items() if k not in ("app_e2e", "e2e")), mean
    assert doc["changed_most"]["stage"] == "reap", doc["changed_most"]


def test_group_without_the_stamps_shows_dashes_and_nulls(run, host, tmp_path):
    """A group none of whose commands has the application's stamps has no app
    latency: "-" in the text and null in the JSON, never a 0.00 that reads
    as one; the other groups keep theirs."""
    path = tmp_path / "some.ntp"
    path.write_bytes(host.path.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE host_io SET h_app_submit_ns = NULL, h_app_done_ns = NULL, "
                   "h_app_reap_ns = NULL, app_kind = NULL WHERE opcode = 1")
    db.close()
    doc = report_json(run, str(path))
    tables = stage_rows(run_ok(run, "report", str(path)).stdout)
    bare = [g for g in doc["groups"] if g["io_type"] == "write"]
    assert bare and any(g["app"]["n"] for g in doc["groups"] if g["io_type"] == "read")
    for g in doc["groups"]:
        rows = dict(tables[f"{g['io_type']} {size_str(g['bytes'])} {g['namespace']}"]["rows"])
        for stage in ("submit", "complete", "reap", "app e2e"):
            if g["io_type"] == "write":
                assert rows[stage] == ["-"] * 9, (g["io_type"], stage)
            else:
                assert rows[stage][1] != "-"
    for g in bare:
        assert g["app"]["n"] == 0
        for summary in [g["app"]["e2e"]] + [s for s in g["app"]["stages"]]:
            assert all(summary[k] is None for k in SUMMARY_KEYS), summary
