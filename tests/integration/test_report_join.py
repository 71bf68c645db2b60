# SPDX-License-Identifier: GPL-2.0
"""ntprof report on joined recordings: host and target files that ntpgen.py
wrote from known per-stage latencies, on clocks with an offset and a drift,
with reused command ids, samples lost on either side and a few records no
clock offset can pair.  Every number is checked against values computed
here from the stored timestamps, the JSON against the text, and every
refusal's exit code."""

import csv
import io
import json
import math
import re
import sqlite3
import subprocess
import sys

import pytest

import ntpgen
from report_text import parse_tables, size_str, us
from conftest import Exit, REPO, run_ok

US = 1000.0
SUMMARY = ("min_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns")
TEXT_COLS = (("min", "min_ns"), ("mean", "mean_ns"), ("p50", "p50_ns"), ("p90", "p90_ns"),
             ("p99", "p99_ns"), ("p99.9", "p99_9_ns"), ("max", "max_ns"))
FIVE_LABELS = ("block", "driver(h)", "network", "driver(t)", "storage")
DETAIL_LABELS = ("block", "host-tx", "network", "target-rx", "r2t-wait", "r2t-host",
                 "storage", "target-tx", "host-rx")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("join")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=21)


def report_json(run, *args):
    return json.loads(run_ok(run, "report", "-j", "-", *map(str, args)).stdout)


def assert_groups_equal(doc, want, names):
    """JSON groups against Python's: integers exact, means within a double's 1 ns."""
    assert [(g["file"], g["io_type"], g["bytes"], g["namespace"], g["n"]) for g in doc["groups"]] \
        == [(w["file"], w["io_type"], w["bytes"], w["namespace"], w["n"]) for w in want]
    for g, w in zip(doc["groups"], want):
        for k in SUMMARY:
            assert ntpgen.near(g["e2e"][k], w["e2e"][k], k), k
        assert [s["stage"] for s in g["stages"]] == list(names)
        for s in g["stages"]:
            ws = w["stages"][s["stage"]]
            for k in SUMMARY:
                assert ntpgen.near(s[k], ws[k], k), (s["stage"], k)
            assert math.isclose(s["share_pct"], ws["share_pct"], rel_tol=1e-9, abs_tol=1e-9)
        # every joined command's stages add up to its end-to-end latency exactly
        sc = g["sum_check"]
        assert sc["ok"] and sc["mismatched_commands"] == 0
        assert sc["stage_sum_ns"] == sc["e2e_sum_ns"]
        assert g["unattributed_mean_ns"] == 0


def assert_text_equals_json(text, doc, labels):
    t = parse_tables(text, by_file=True)
    assert len(t["groups"]) == len(doc["groups"])
    for tg, g in zip(t["groups"], doc["groups"]):
        assert (int(tg["file"]), tg["io_type"], tg["size"], tg["namespace"], int(tg["n"])) == \
            (g["file"], g["io_type"], size_str(g["bytes"]), g["namespace"], g["n"])
        assert tg["est_cmds/s"] == f"{g['est_cmds_per_s']:.1f}"
        for col, k in TEXT_COLS:
            assert tg[col] == us(g['e2e'][k]), col
        rows = t["stages"][(g["file"], g["io_type"], size_str(g["bytes"]), g["namespace"])]
        assert list(rows) == list(labels) + ["unattributed", "end-to-end"]
        for s, label in zip(g["stages"], labels):
            for col, k in TEXT_COLS:
                assert rows[label][col] == us(s[k]), (label, col)
            assert rows[label]["share%"] == f"{s['share_pct']:.1f}"
        assert rows["unattributed"]["mean"] == "0.00"
        assert t["checks"][(g["file"], g["io_type"], size_str(g["bytes"]), g["namespace"])] \
            .startswith("ok")
    return t


# ---- one host and one target -------------------------------------------------

def test_five_stages_equal_python(run, pair):
    doc = report_json(run, pair.host_paths[0], pair.target_paths[0])
    assert doc["kind"] == "joined" and doc["stage_view"] == "summary"
    assert_groups_equal(doc, ntpgen.expected_joined_groups(pair), ntpgen.JOIN_STAGES)
    assert sum(g["n"] for g in doc["groups"]) == pair.counts()["matched"]


def test_counts_of_matched_unmatched_rejected(run, pair):
    doc = report_json(run, pair.host_paths[0], pair.target_paths[0])
    want = pair.counts()
    assert want["rejected"] == 2 and want["unmatched_host"] > 0 and want["unmatched_target"] > 0
    j = doc["join"]
    assert {k: j[k] for k in want} == want
    assert math.isclose(j["matched_pct"], 100 * want["matched"] / want["host_commands"])
    # below 99% joined: a warning, in the JSON and in the text
    assert any("99%" in w for w in doc["warnings"])
    text = run_ok(run, "report", "--header", pair.host_paths[0], pair.target_paths[0]).stdout
    h = parse_tables(text, by_file=True)["header"]
    assert h["commands matched"][0].startswith(f"{want['matched']} (")
    assert h["unmatched host"][0].startswith(f"{want['unmatched_host']} (")
    assert h["unmatched target"][0].startswith(f"{want['unmatched_target']} (")
    assert h["rejected"][0].startswith("2 (")
    assert re.search(r"^# warning: only [\d.]+% of the host's sampled commands were joined "
                     r"\(below 99%\)", text, re.M)


def test_header_lists_files_and_clock_pair(run, pair):
    hp, tp = pair.host_paths[0], pair.target_paths[0]
    doc = report_json(run, hp, tp)
    f1, f2 = doc["files"]
    assert (f1["file"], f1["path"], f1["role"], f1["sides"]) == (1, str(hp), "host", ["host"])
    assert (f2["file"], f2["path"], f2["role"], f2["sides"]) == (2, str(tp), "target", ["target"])
    assert f1["hostname"] == pair.host_meta[0]["hostname"]
    assert f2["hostname"] == pair.target_meta[0]["hostname"]
    assert f1["kernel_release"] == f2["kernel_release"] == "6.1.0-ntpgen"
    c = pair.counts()
    assert f1["commands"]["in_file"] == c["host_commands"]
    assert f2["target_commands"]["in_file"] == c["target_commands"]
    # the samples ntpgen left out are counted as lost, per side
    assert f1["commands"]["lost"] == c["unmatched_target"] - c["rejected"]
    assert f2["target_commands"]["lost"] == c["unmatched_host"]

    p, = doc["clock_pairs"]
    link = pair.links[0]
    assert (p["host_file"], p["target_file"], p["estimated"]) == (1, 2, True)
    assert (p["same_clock"], p["clock"]) == (False, "estimated")
    assert p["matched"] == c["matched"]
    # any line inside every pair's offset bound is right; the bound is the
    # round trip outside the target, >= 2 x 10 us here, so the estimate is near
    t0 = 1_000_000_000_000 + 5_000_000_000
    true = link.offset_ns + link.drift * (p["t0_ns"] - t0)
    assert abs(p["offset_ns"] - true) < 20_000
    assert abs(p["drift_ppm"] - link.drift * 1e6) < 5

    text = run_ok(run, "report", "--header", hp, tp).stdout
    h = parse_tables(text, by_file=True)["header"]
    assert h["file"] == [str(hp), str(tp)]
    assert h["role"] == ["host", "target"]
    assert h["kernel release"] == ["6.1.0-ntpgen"] * 2
    assert h["host"] == [pair.host_meta[0]["hostname"], pair.target_meta[0]["hostname"]]
    line, = h["clock pair"]
    assert line.startswith(f"file 1 -> file 2: offset {p['offset_ns']:+d} ns, "
                           f"drift {p['drift_ppm']:+.3f} ppm")
    assert f"{p['matched']} commands matched" in line


def test_text_equals_json(run, pair):
    args = (pair.host_paths[0], pair.target_paths[0])
    doc = report_json(run, *args)
    text = run_ok(run, "report", *map(str, args)).stdout
    assert_text_equals_json(text, doc, FIVE_LABELS)
    # -j FILE writes the same document beside the text
    r = run_ok(run, "report", "-j", "/dev/stdout", *map(str, args))
    assert r.stdout.startswith("# ntprof report: 2 recordings joined\n")


def test_order_of_files_does_not_matter(run, pair):
    hp, tp = pair.host_paths[0], pair.target_paths[0]
    a, b = report_json(run, hp, tp), report_json(run, tp, hp)
    assert b["files"][0]["path"] == str(tp)
    assert b["clock_pairs"][0]["host_file"] == 2 and b["clock_pairs"][0]["target_file"] == 1
    assert a["join"] == b["join"]
    for g in b["groups"]:
        assert g["file"] == 2
        g["file"] = 1
    assert a["groups"] == b["groups"]


def test_all_joined_gives_no_warning(run, tmp_path):
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=4,
                              lose_host=0, lose_target=0, reject=0)
    doc = report_json(run, tmp_path / "h.ntp", tmp_path / "t.ntp")
    assert doc["join"]["matched"] == len(js.commands) == doc["join"]["host_commands"]
    assert doc["join"]["unmatched_host"] == doc["join"]["unmatched_target"] == 0
    assert doc["join"]["rejected"] == 0
    assert doc["warnings"] == []
    text = run_ok(run, "report", tmp_path / "h.ntp", tmp_path / "t.ntp").stdout
    assert "# warning" not in text
    assert_groups_equal(doc, ntpgen.expected_joined_groups(js), ntpgen.JOIN_STAGES)


# ---- one "-r both" recording ---------------------------------------------------

def test_both_file_reports_five_stages(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=8)
    doc = report_json(run, tmp_path / "both.ntp")
    assert doc["kind"] == "joined"
    f, = doc["files"]
    assert f["role"] == "both" and f["sides"] == ["host", "target"]
    p, = doc["clock_pairs"]
    assert (p["host_file"], p["target_file"]) == (1, 1)
    assert abs(p["offset_ns"]) < 20_000
    assert {k: doc["join"][k] for k in js.counts()} == js.counts()
    assert_groups_equal(doc, ntpgen.expected_joined_groups(js), ntpgen.JOIN_STAGES)
    text = run_ok(run, "report", tmp_path / "both.ntp").stdout
    assert text.startswith("# ntprof report: 1 recording joined\n")
    assert_text_equals_json(text, doc, FIVE_LABELS)


def test_both_file_one_clock_offset_and_drift_exactly_zero(run, tmp_path):
    """One "-r both" file: one machine, one clock.  Its pair's line is 0, not
    the centre of the pairs' band (which an estimate reports, some us off 0),
    and the report says why, in the JSON and in the text."""
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=8)
    doc = report_json(run, tmp_path / "both.ntp")
    p, = doc["clock_pairs"]
    assert p["offset_ns"] == 0 and p["drift_ppm"] == 0
    assert p["same_clock"] is True and p["clock"] == "same clock (one recording)"
    assert p["estimated"] is False
    assert p["tolerance_ns"] == 1000
    assert p["matched"] == js.counts()["matched"] == doc["join"]["matched"]
    text = run_ok(run, "report", "--header", tmp_path / "both.ntp").stdout
    line, = parse_tables(text, by_file=True)["header"]["clock pair"]
    assert line.startswith("file 1 -> file 1: same clock (one recording): offset 0 ns, "
                           "drift 0 ppm, not estimated; ")
    assert line.endswith(f"; {p['matched']} commands matched")
    # every joined command carries offset 0: the dump shows it per command
    rows = run_ok(run, "dump", tmp_path / "both.ntp").stdout.splitlines()
    col = rows[0].split(",").index("offset_ns")
    assert len(rows) - 1 == p["matched"]
    assert {r.split(",")[col] for r in rows[1:]} == {"0"}


def test_both_file_late_exit_hook_still_joined(run, tmp_path):
    """On loopback the target's exit hook at t_sent may fire after the host
    already completed (a thread preempted after its send).  On one clock the
    receive inside the host's flight is what pairs a command; such a record
    is joined, not taken for a mismatch.  ntpgen's rejected records (received
    before the host queued the command) stay rejected."""
    path = tmp_path / "both.ntp"
    js = ntpgen.generate_both(path, seed=8)
    late = js.matched()[::100][:6]
    assert len(late) == 6
    db = sqlite3.connect(path)
    for c in late:
        n = db.execute("UPDATE target_io SET t_sent_ns = ? WHERE t_recv_ns = ? AND cid = ?"
                       " AND slba = ?", (c.host["h_done_ns"] + 20_000, c.target["t_recv_ns"],
                                         c.target["cid"], c.target["slba"])).rowcount
        assert n == 1
    db.commit()
    db.close()
    doc = report_json(run, path)
    assert {k: doc["join"][k] for k in js.counts()} == js.counts()
    assert doc["join"]["rejected"] == 2
    assert all(g["sum_check"]["ok"] for g in doc["groups"])
    # the late hook moved time from the network to the target's driver
    assert min(s["min_ns"] for g in doc["groups"] for s in g["stages"]
               if s["stage"] == "network") < 0


def test_two_files_of_one_boot_one_clock(run, tmp_path):
    """`record -r host` and `record -r target` on one machine: two files, one
    boot_id, one clock."""
    boot = {"boot_id": "6d1c3a52-1f0e-4b7e-9a55-0c2d4e8f7a19"}
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5, offset_ns=0,
                              drift=0.0, host_meta=[boot], target_meta=[boot])
    doc = report_json(run, tmp_path / "t.ntp", tmp_path / "h.ntp")
    p, = doc["clock_pairs"]
    assert (p["host_file"], p["target_file"]) == (2, 1)
    assert (p["offset_ns"], p["drift_ppm"], p["same_clock"]) == (0, 0, True)
    assert p["clock"] == "same clock (one boot)"
    assert {k: doc["join"][k] for k in js.counts()} == js.counts()
    assert_groups_equal(doc, [dict(g, file=2) for g in ntpgen.expected_joined_groups(js)],
                        ntpgen.JOIN_STAGES)
    text = run_ok(run, "report", "--header", tmp_path / "t.ntp", tmp_path / "h.ntp").stdout
    line, = parse_tables(text, by_file=True)["header"]["clock pair"]
    assert line.startswith("file 2 -> file 1: same clock (one boot): offset 0 ns, drift 0 ppm")


def test_two_boots_still_estimated(run, tmp_path):
    """Two machines (two boot_ids) keep their estimate, and say so."""
    link = dict(offset_ns=-2_000_000_777, drift=-12e-6)
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=6, **link,
                         host_meta=[{"boot_id": "6d1c3a52-1f0e-4b7e-9a55-0c2d4e8f7a19"}],
                         target_meta=[{"boot_id": "0b9e2f41-77aa-4c1d-8e3b-5a6f1d2c3e4f"}])
    doc = report_json(run, tmp_path / "h.ntp", tmp_path / "t.ntp")
    p, = doc["clock_pairs"]
    assert (p["estimated"], p["same_clock"], p["clock"]) == (True, False, "estimated")
    true = link["offset_ns"] + link["drift"] * (p["t0_ns"] - 1_005_000_000_000)
    assert abs(p["offset_ns"] - true) < 20_000 and abs(p["drift_ppm"] + 12) < 5
    text = run_ok(run, "report", "--header", tmp_path / "h.ntp", tmp_path / "t.ntp").stdout
    line, = parse_tables(text, by_file=True)["header"]["clock pair"]
    assert line.startswith(f"file 1 -> file 2: offset {p['offset_ns']:+d} ns, ")
    assert "same clock" not in line


# ---- several files -------------------------------------------------------------

def test_two_hosts_one_target(run, tmp_path):
    links = [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=3_600_000_123_457, drift=20e-6,
                         groups=ntpgen.DEFAULT_JGROUPS[:2]),
             ntpgen.Link(1, 0, "nvme0", 2, offset_ns=-700_000_654_321, drift=-35e-6,
                         groups=ntpgen.DEFAULT_JGROUPS[2:])]
    paths = [tmp_path / "h1.ntp", tmp_path / "h2.ntp", tmp_path / "t.ntp"]
    js = ntpgen.generate_joined(paths[:2], paths[2:], links, seed=12)
    doc = report_json(run, paths[2], paths[0], paths[1])
    # files numbered as given: the target first
    assert [f["role"] for f in doc["files"]] == ["target", "host", "host"]
    pairs = {(p["host_file"], p["target_file"]): p for p in doc["clock_pairs"]}
    assert set(pairs) == {(2, 1), (3, 1)}
    for (hf, _), p in pairs.items():
        link = links[hf - 2]
        true = link.offset_ns + link.drift * (p["t0_ns"] - 1_005_000_000_000)
        assert abs(p["offset_ns"] - true) < 20_000
    assert {k: doc["join"][k] for k in js.counts()} == js.counts()
    want = ntpgen.expected_joined_groups(js)
    for w in want:
        w["file"] += 1          # the hosts are files 2 and 3 here
    assert_groups_equal(doc, want, ntpgen.JOIN_STAGES)


def test_one_host_two_targets(run, tmp_path):
    """The host's two controllers talk to two targets that both call their
    controller cntlid 1: each command joins only with its own target."""
    g0 = (ntpgen.JGroup("read", 4096, "nvme0n1", 250),)
    g1 = (ntpgen.JGroup("write", 8192, "nvme1n1", 250, storage=(200_000, 300_000)),)
    links = [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=11_000_000_000, drift=5e-6, groups=g0),
             ntpgen.Link(0, 1, "nvme1", 1, offset_ns=-3_000_000_000, drift=-8e-6, groups=g1)]
    paths = [tmp_path / "h.ntp", tmp_path / "ta.ntp", tmp_path / "tb.ntp"]
    js = ntpgen.generate_joined(paths[:1], paths[1:], links, seed=13)
    doc = report_json(run, *paths)
    assert {k: doc["join"][k] for k in js.counts()} == js.counts()
    pairs = {(p["host_file"], p["target_file"]): p for p in doc["clock_pairs"]}
    assert set(pairs) == {(1, 2), (1, 3)}
    n0 = sum(1 for c in js.matched() if c.link is links[0])
    assert pairs[(1, 2)]["matched"] == n0
    assert pairs[(1, 3)]["matched"] == len(js.matched()) - n0
    assert_groups_equal(doc, ntpgen.expected_joined_groups(js), ntpgen.JOIN_STAGES)


def test_stages_beyond_32_bits__exact_with_one_or_two_readers(run, tmp_path):
    """The join keeps a command's stages in 32 bits each, and those beyond
    (over 2.1 s) whole in a list of their own (lib/join/join_base.h):
    storage, target driver and block stages of 2.2 to 4 s come out as the
    joined recording's joined_stages view has them, and two readers (100,000 rows
    a reader: more than 200,000 in all), each with a list, give what one
    gives.  (The generator
    reuses command ids while such long commands are in flight, which real
    queues do not: some of them are rejected, so the pairing compared is
    the join's own, as ntprof join stores it.)"""
    groups = (ntpgen.JGroup("read", 4096, "nvme0n1", 104_000),
              ntpgen.JGroup("read", 131072, "nvme0n2", 300,
                            storage=(2_200_000_000, 4_000_000_000)),
              ntpgen.JGroup("write", 8192, "nvme0n1", 300,
                            target_rx=(2_200_000_000, 3_000_000_000)),
              ntpgen.JGroup("write", 65536, "nvme0n2", 300,
                            block=(2_200_000_000, 3_000_000_000)))
    h, t, j = tmp_path / "h.ntp", tmp_path / "t.ntp", tmp_path / "j.ntp"
    ntpgen.generate_pair(h, t, seed=31, groups=groups)
    one = run("report", "-j", "-", str(h), str(t), env={"NTPROF_THREADS": "1"})
    two = run("report", "-j", "-", str(h), str(t), env={"NTPROF_THREADS": "2"})
    assert one.returncode == two.returncode == Exit.OK, one.stderr + two.stderr
    assert one.stdout == two.stdout
    run_ok(run, "join", "-o", str(j), str(h), str(t))
    db = sqlite3.connect(j)
    cols = ("e2e_ns",) + tuple(f"{st}_ns" for st in ntpgen.JOIN_STAGES)
    want = {}
    for row in db.execute(f"SELECT io_type, bytes, namespace, {', '.join(cols)} FROM joined_stages"):
        want.setdefault(row[:3], []).append(row[3:])
    db.close()
    doc = json.loads(two.stdout)
    assert len(doc["groups"]) == len(want) == 4
    for g in doc["groups"]:
        rows = want[(g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(rows)
        for k, name in enumerate(("e2e",) + ntpgen.JOIN_STAGES):
            got = g["e2e"] if name == "e2e" else next(s for s in g["stages"] if s["stage"] == name)
            exp = ntpgen.summary([r[k] for r in rows])
            for key in SUMMARY:
                assert ntpgen.near(got[key], exp[key], key), (name, key)
    by = {(g["io_type"], g["bytes"]): {s["stage"]: s for s in g["stages"]} for g in doc["groups"]}
    assert by[("read", 131072)]["storage"]["min_ns"] > 2**31
    assert by[("write", 8192)]["target_driver"]["min_ns"] > 2**31
    assert by[("write", 65536)]["block"]["min_ns"] > 2**31


# ---- --stages=detail ---------------------------------------------------------------

def test_detail_substages_equal_python_and_sum_to_e2e(run, pair):
    args = (pair.host_paths[0], pair.target_paths[0])
    doc = report_json(run, "--stages=detail", *args)
    assert doc["stage_view"] == "detail"
    assert_groups_equal(doc, ntpgen.expected_joined_groups(pair, ntpgen.DETAIL_STAGES,
                                                           detail=True),
                        ntpgen.DETAIL_STAGES)
    # the sub-stages add up to e2e for every command, as computed here too
    for c in pair.matched():
        assert sum(c.detail().values()) == c.stages()["e2e"]
    # R2T writes really have both R2T sub-stages
    big = next(g for g in doc["groups"] if g["bytes"] == 131072 and g["io_type"] == "write")
    st = {s["stage"]: s for s in big["stages"]}
    assert st["r2t_wait"]["max_ns"] > 0 and st["r2t_host"]["max_ns"] > 0
    assert set(doc["stage_notes"]) == set(ntpgen.DETAIL_STAGES)
    assert doc["stage_gaps"] == []
    text = run_ok(run, "report", "-S", "detail", *map(str, args)).stdout
    assert_text_equals_json(text, doc, DETAIL_LABELS)
    assert "# stages (detail):" in text


def test_default_view_is_the_five_stages(run, pair):
    doc = report_json(run, pair.host_paths[0], pair.target_paths[0])
    for g in doc["groups"]:
        assert [s["stage"] for s in g["stages"]] == list(ntpgen.JOIN_STAGES)
    same = report_json(run, "--stages", "summary", pair.host_paths[0], pair.target_paths[0])
    assert same == doc
    bad = run("report", "--stages=fine", str(pair.host_paths[0]))
    assert bad.returncode == Exit.USAGE and "--stages" in bad.stderr
    assert len(bad.stderr.splitlines()) == 1


def test_detail_of_a_host_recording(run, pair):
    """Alone, a host recording has the host's sub-stages and network*."""
    doc = report_json(run, "-S", "detail", pair.host_paths[0])
    assert doc["kind"] == "host" and doc["join"] is None and doc["clock_pairs"] == []
    host_rows = [c for c in pair.commands if c.fate != "lost_host"]
    groups = {}
    for c in host_rows:
        groups.setdefault((c.group.report_io_type, c.group.bytes, c.group.namespace), []).append(c)
    assert len(doc["groups"]) == len(groups)
    for g in doc["groups"]:
        cmds = groups[(g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(cmds)
        assert [s["stage"] for s in g["stages"]] == list(ntpgen.HOST_DETAIL_STAGES)
        vals = [ntpgen.host_detail_stages(c.host) for c in cmds]
        for s in g["stages"]:
            v = [x[s["stage"]] for x in vals]
            assert (s["min_ns"], s["p50_ns"], s["p99_ns"], s["max_ns"]) == \
                (min(v), ntpgen.percentile(v, 50),
                 ntpgen.percentile(v, 99) if len(v) >= 100 else None, max(v))
        assert g["sum_check"]["ok"]
    # and the plain report of the same file is unchanged: three stages
    plain = report_json(run, pair.host_paths[0])
    assert [s["stage"] for s in plain["groups"][0]["stages"]] == list(ntpgen.STAGES)


def test_detail_names_what_the_hooks_could_not_separate(run, tmp_path):
    """6.1: the sends are taken at nearby functions; no h_recv hook at all."""
    hooks = tuple(("host", "h_recv", "none", "none", "not in BTF") if h[1] == "h_recv" else h
                  for h in ntpgen.HOST_HOOKS_61)
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5, host_hooks=hooks,
                         target_hooks=ntpgen.TARGET_HOOKS_61)
    doc = report_json(run, "--stages=detail", tmp_path / "h.ntp", tmp_path / "t.ntp")
    gaps = {(g["file"], g["point"]): g for g in doc["stage_gaps"]}
    assert set(gaps) == {(1, "h_cmd_sent"), (1, "h_data_sent"), (1, "h_recv"), (2, "t_sent")}
    assert gaps[(1, "h_cmd_sent")]["hook"] == "nvme_tcp_try_send"
    assert gaps[(1, "h_cmd_sent")]["what"].startswith("approximate")
    assert gaps[(2, "t_sent")]["hook"] == "nvmet_setup_response_pdu"
    assert "target-tx" in gaps[(2, "t_sent")]["stages"]
    assert gaps[(1, "h_recv")]["hook"] == "none"
    assert "host-rx" in gaps[(1, "h_recv")]["stages"]
    assert "network" in gaps[(1, "h_recv")]["what"]
    text = run_ok(run, "report", "--stages=detail", tmp_path / "h.ntp", tmp_path / "t.ntp").stdout
    lines = [l for l in text.splitlines() if l.startswith("# hook gap: ")]
    assert len(lines) == 4
    assert any("file 2: t_sent (hook nvmet_setup_response_pdu)" in l for l in lines)


# ---- refusals ------------------------------------------------------------------------

def one_error_line(r, code):
    assert r.returncode == code, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ntprof report: error: "), r.stderr
    return lines[0]


@pytest.mark.parametrize("key,value,words,code", [
    ("sample_one_in", 100, "sample rate", Exit.MISMATCH),
    ("hash_version", 2, "hash version", Exit.HASH),
])
def test_different_recording_settings_are_refused(run, tmp_path, key, value, words, code):
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=3,
                         target_meta=[{key: value}])
    r = run("report", tmp_path / "h.ntp", tmp_path / "t.ntp")
    line = one_error_line(r, code)
    assert words in line and r.stdout == ""
    r = run("report", "-j", "-", tmp_path / "t.ntp", tmp_path / "h.ntp")
    assert words in one_error_line(r, code)
    assert json.loads(r.stdout)["error"]["code"] == code


@pytest.mark.parametrize("version", [1, 2, 3])
def test_recordings_of_one_hash_version_join(run, tmp_path, version):
    """today's hash (3) and the earlier ones (1, 2): a pair of any one joins,
    the version shows in each file's header"""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5,
                              lose_host=0, lose_target=0, reject=0,
                              host_meta=[{"hash_version": version}],
                              target_meta=[{"hash_version": version}])
    doc = report_json(run, tmp_path / "h.ntp", tmp_path / "t.ntp")
    assert doc["join"]["matched"] == len(js.commands) == doc["join"]["host_commands"]
    assert [f["hash_version"] for f in doc["files"]] == [version, version]


def hash_versions_named(line, host_v, target_v):
    """the refusal names both versions"""
    m = re.search(r"sampling hash version (\d+) and (\d+) ", line)
    return m is not None and sorted(map(int, m.groups())) == sorted((host_v, target_v))


@pytest.mark.parametrize("host_v,target_v", [(2, 3), (3, 2), (1, 3), (1, 2)])
def test_recordings_of_two_hash_versions_are_refused(run, tmp_path, host_v, target_v):
    """version 3 selects other commands than 2 and 1: one line naming both
    versions, exit status HASH, apart from the other mismatches"""
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5,
                         host_meta=[{"hash_version": host_v}],
                         target_meta=[{"hash_version": target_v}])
    line = one_error_line(run("report", tmp_path / "h.ntp", tmp_path / "t.ntp"), Exit.HASH)
    assert hash_versions_named(line, host_v, target_v), line
    assert Exit.HASH != Exit.MISMATCH


def test_two_hash_versions__every_reader_of_a_pair_refuses(run, tmp_path):
    """join, dump, series, export and compare open a pair the one way: each
    refuses a version-2 host with a version-3 target in one line, exit HASH,
    and writes no output file"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, seed=5, host_meta=[{"hash_version": 2}],
                         target_meta=[{"hash_version": 3}])
    out = tmp_path / "j.ntp"
    trace = tmp_path / "t.pftrace"
    for cmd, args in (("join", ["-o", out, h, t]), ("dump", [h, t]), ("series", [h, t]),
                      ("export", ["-o", trace, h, t]), ("compare", [f"{h},{t}", f"{h},{t}"])):
        r = run(cmd, *args)
        assert r.returncode == Exit.HASH, (cmd, r.returncode, r.stderr)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"ntprof {cmd}: error: "), r.stderr
        assert hash_versions_named(lines[0], 2, 3), lines[0]
        assert r.stdout == "", (cmd, r.stdout)
    assert not out.exists() and not trace.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.ntp", "t.ntp"]


def test_two_files_of_one_role_are_refused(run, tmp_path):
    links = [ntpgen.Link(0, 0, groups=ntpgen.DEFAULT_JGROUPS[:1]),
             ntpgen.Link(1, 1, "nvme1", 2, groups=ntpgen.DEFAULT_JGROUPS[:1])]
    p = [tmp_path / n for n in ("h1.ntp", "h2.ntp", "t1.ntp", "t2.ntp")]
    ntpgen.generate_joined(p[:2], p[2:], links, seed=6)
    line = one_error_line(run("report", p[0], p[1]), Exit.MISMATCH)
    assert "host recordings" in line
    line = one_error_line(run("report", p[2], p[3]), Exit.MISMATCH)
    assert "target recordings" in line
    # the same file twice is a slip of the command line
    line = one_error_line(run("report", p[0], p[0]), Exit.USAGE)
    assert "twice" in line


def test_bad_file_among_several(run, pair, tmp_path):
    r = run("report", pair.host_paths[0], tmp_path / "missing.ntp")
    line = one_error_line(r, Exit.NOFILE)
    assert "missing.ntp" in line
    junk = tmp_path / "junk.ntp"
    junk.write_text("not a database\n" * 100)
    one_error_line(run("report", junk, pair.target_paths[0]), Exit.NOTSQLITE)


def test_join_never_modifies_the_recordings(run, pair):
    before = [p.read_bytes() for p in (pair.host_paths[0], pair.target_paths[0])]
    run_ok(run, "report", "-S", "detail", pair.host_paths[0], pair.target_paths[0])
    assert [p.read_bytes() for p in (pair.host_paths[0], pair.target_paths[0])] == before


# ---- the scratch files of the stages (TMPDIR) -------------------------------------------

def test_scratch_file_in_tmpdir_leaves_nothing(run, pair, tmp_path):
    """the summary's stages go through scratch files in $TMPDIR: the same
    report as with the default /tmp, and nothing is left there"""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = ("report", pair.host_paths[0], pair.target_paths[0])
    want = run_ok(run, *args).stdout
    got = run_ok(run, *args, env={"TMPDIR": str(scratch)}).stdout
    assert got == want
    assert list(scratch.iterdir()) == []


def test_scratch_dir_missing_is_one_error(run, pair, tmp_path):
    missing = tmp_path / "no-such-dir"
    r = run("report", pair.host_paths[0], pair.target_paths[0], env={"TMPDIR": str(missing)})
    line = one_error_line(r, Exit.FAILURE)
    assert "scratch file" in line and str(missing) in line and "No such file" in line, line
    assert r.stdout == ""
    # the detailed view reads the pairs through temp.joined: no scratch file
    run_ok(run, "report", "-S", "detail", pair.host_paths[0], pair.target_paths[0],
       env={"TMPDIR": str(missing)})


def test_rows_deleted__summary_equals_dump(run, tmp_path):
    """ids with gaps (rows deleted by hand) on both sides: the summary (the
    stages the join kept as it read, by load index, the ranges then counted)
    gives, group by group, the stages dump reads through temp.joined by id"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, seed=8, lose_host=0, lose_target=0, reject=0)
    for path, sql in ((h, "DELETE FROM host_io WHERE id % 5 = 0"),
                      (t, "DELETE FROM target_io WHERE id % 7 = 3")):
        db = sqlite3.connect(path)
        assert db.execute(sql).rowcount > 0
        db.commit()
        db.close()
    doc = report_json(run, h, t)
    rows = list(csv.DictReader(io.StringIO(run_ok(run, "dump", h, t).stdout)))
    assert rows and doc["join"]["matched"] == len(rows)
    groups = {}
    for r in rows:
        groups.setdefault((r["io_type"], int(r["bytes"]), r["namespace"]), []).append(r)
    assert len(doc["groups"]) == len(groups)
    for g in doc["groups"]:
        got = groups[(g["io_type"], g["bytes"], g["namespace"])]
        assert g["n"] == len(got)
        for name, col, s in [("e2e", "e2e_ns", g["e2e"])] + \
                [(s["stage"], s["stage"] + "_ns", s) for s in g["stages"]]:
            v = [int(r[col]) for r in got]
            assert (s["min_ns"], s["max_ns"]) == (min(v), max(v)), name
            assert abs(s["mean_ns"] - sum(v) / len(v)) <= 1, name


def test_group_none_of_whose_commands_matched_has_no_line(run, tmp_path):
    """the summary finds each host command's group as the join reads the
    file, before the matching: a group none of whose commands matched (the
    target recorded no writes) stays empty and is not shown"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, seed=8, lose_host=0, lose_target=0, reject=0)
    db = sqlite3.connect(t)
    assert db.execute("DELETE FROM target_io WHERE opcode = 1").rowcount > 0
    db.commit()
    db.close()
    assert {g["io_type"] for g in report_json(run, h)["groups"]} >= {"read", "write"}
    doc = report_json(run, h, t)
    assert {g["io_type"] for g in doc["groups"]} == {"read"}
    assert all(g["n"] > 0 for g in doc["groups"])
    assert doc["join"]["unmatched_host"] > 0


def test_hot_keys_most_targets_lost__every_target_joined(run, tmp_path):
    """keys repeated hundreds of times, four target records of five lost: no
    sample's line agrees with a quarter of its host commands, so pass 1
    takes the first line with support (lib/join/join.c), and every
    target record left joins its own command on the true line"""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    subprocess.run([sys.executable, str(REPO / "bench" / "join_pair.py"), str(h), str(t),
                    "40000", "--reuse", "heavy"], check=True)
    db = sqlite3.connect(t)
    db.execute("DELETE FROM target_io WHERE id % 5 != 0")
    db.commit()
    left = db.execute("SELECT count(*) FROM target_io").fetchone()[0]
    db.close()
    r = run("report", "-j", "-", str(h), str(t))
    assert r.returncode == Exit.OK, r.stderr
    doc = json.loads(r.stdout)
    assert doc["join"]["matched"] == left == 8000
    assert doc["join"]["rejected"] == doc["join"]["unmatched_target"] == 0
    (p,) = doc["clock_pairs"]
    assert p["estimated"] and abs(p["offset_ns"] - 1_230_000_000) < 1_000_000
