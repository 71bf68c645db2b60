# SPDX-License-Identifier: GPL-2.0
"""NVMe/RDMA recordings (meta transport 'rdma'), as the RDMA collectors write
them: no R2T on the host (h_r2t, h_data_sent NULL), and on the target the
RDMA READ that pulls a large write's data from t_r2t to t_submit.

Every expected stage is computed here from the stored rows, with the RDMA
formulas written out below, not taken from the generator: the READ is
network time, never target driver time, and --stages=detail shows it as its
own sub-stage, read-wait, taken out of the network.  A TCP and an RDMA
recording must not be joined or compared."""

import csv
import io
import json
import re
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok

FIVE = ("block", "driver", "network", "target_driver", "storage")
LABELS = {"block": "block", "driver": "driver(h)", "network": "network",
          "target_driver": "driver(t)", "storage": "storage"}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("rdma")
    js = ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31, transport="rdma")
    return js


@pytest.fixture(scope="module")
def tcp_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("tcp")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31)


def rows(path, table):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    out = [dict(r) for r in db.execute(f"SELECT * FROM {table} ORDER BY id")]
    db.close()
    return out


def meta(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = dict(db.execute("SELECT key, value FROM meta"))
    db.close()
    return out


def read_wait(t):
    """The RDMA READ of a write's data, target clock: network time."""
    return t["t_submit_ns"] - t["t_r2t_ns"] if t["t_r2t_ns"] is not None else 0


def rdma_stages(h, t):
    """The five stages of one RDMA command from its host and target rows.

    Host round trip: capsule posted (h_cmd_sent) to response received (h_recv).
    Target residence: t_recv to t_sent (response posted), less the READ."""
    residence = (t["t_sent_ns"] - t["t_recv_ns"]) - read_wait(t)
    return {"block": h["h_queue_ns"] - h["h_start_ns"],
            "driver": (h["h_cmd_sent_ns"] - h["h_queue_ns"]) + (h["h_done_ns"] - h["h_recv_ns"]),
            "network": (h["h_recv_ns"] - h["h_cmd_sent_ns"]) - residence,
            "target_driver": (t["t_submit_ns"] - t["t_recv_ns"] - read_wait(t))
                             + (t["t_sent_ns"] - t["t_cmpl_ns"]),
            "storage": t["t_cmpl_ns"] - t["t_submit_ns"]}


def mean(v):
    return ntpgen.mean_ns(v)


def groups_of(js):
    """{(io_type, bytes, namespace): [(host row, target row)]} of the joined commands."""
    out = {}
    for c in js.matched():
        out.setdefault((c.group.report_io_type, c.group.bytes, c.group.namespace), []).append(
            (c.host, c.target))
    return out


def by_key(groups):
    return {(g["io_type"], g["bytes"], g["namespace"]): g for g in groups}


# ---- the synthetic files themselves ----------------------------------------

def test_files__what_the_rdma_collectors_record(pair):
    for p in pair.host_paths + pair.target_paths:
        assert meta(p)["transport"] == "rdma"
    host = rows(pair.host_paths[0], "host_io")
    target = rows(pair.target_paths[0], "target_io")
    assert host and target
    assert all(r["h_r2t_ns"] is None and r["h_data_sent_ns"] is None for r in host)
    assert all(r["flags"] & 4 == 0 for r in host)
    read = [r for r in target if r["t_r2t_ns"] is not None]
    assert read, "no target write with an RDMA READ"
    assert all(r["opcode"] == 1 and r["bytes"] > ntpgen.RDMA_INLINE_BYTES for r in read)
    assert all((r["flags"] & 1) == (r["t_r2t_ns"] is not None) for r in target)
    assert any(r["opcode"] == 1 and r["t_r2t_ns"] is None for r in target), "no in-capsule write"
    # the rows written are the generator's pairs (the tests below use those pairs)
    key = lambda r: tuple(sorted(r.items()))
    want = sorted(key(c.host) for c in pair.commands if c.fate != "lost_host")
    assert sorted(key({k: r[k] for k in pair.commands[0].host}) for r in host) == want


def test_expected_stages__add_up_and_match_the_generator(pair):
    for c in pair.matched():
        s = rdma_stages(c.host, c.target)
        assert sum(s.values()) == c.host["h_done_ns"] - c.host["h_start_ns"]
        assert all(v > 0 for v in s.values()), s
        g = ntpgen.joined_stages(c.host, c.target)
        assert {k: g[k] for k in FIVE} == s


# ---- report ---------------------------------------------------------------------

def test_report_json__rdma_joined_five_stages(run, pair):
    doc = json.loads(run_ok(run, "report", "-j", "-", pair.host_paths[0], pair.target_paths[0]).stdout)
    assert doc["kind"] == "joined"
    assert [f["transport"] for f in doc["files"]] == ["rdma", "rdma"]
    assert [f["role"] for f in doc["files"]] == ["host", "target"]
    got = by_key(doc["groups"])
    want = groups_of(pair)
    assert set(got) == set(want)
    for k, cmds in want.items():
        g = got[k]
        assert g["n"] == len(cmds)
        e2e = [h["h_done_ns"] - h["h_start_ns"] for h, _ in cmds]
        assert g["e2e"]["mean_ns"] == mean(e2e)
        assert g["sum_check"]["ok"] is True and g["sum_check"]["mismatched_commands"] == 0
        assert g["sum_check"]["stage_sum_ns"] == g["sum_check"]["e2e_sum_ns"] == sum(e2e)
        stages = {s["stage"]: s for s in g["stages"]}
        assert tuple(stages) == FIVE
        per = [rdma_stages(h, t) for h, t in cmds]
        for st in FIVE:
            v = [p[st] for p in per]
            assert stages[st]["mean_ns"] == mean(v), (k, st)
            assert stages[st]["min_ns"] == min(v) and stages[st]["max_ns"] == max(v), (k, st)
            assert stages[st]["p99_ns"] == (ntpgen.percentile(v, 99) if len(v) >= 100 else None), \
                (k, st)
        # the five means add up to the end-to-end mean (each rounded to 1 ns)
        assert abs(sum(stages[st]["mean_ns"] for st in FIVE) - g["e2e"]["mean_ns"]) <= 3


def test_report__rdma_read_wait_is_network_not_target_driver(run, pair):
    doc = json.loads(run_ok(run, "report", "-j", "-", pair.host_paths[0], pair.target_paths[0]).stdout)
    got = by_key(doc["groups"])
    big = [(k, c) for k, c in groups_of(pair).items() if k[0] == "write" and k[1] > 4096]
    assert big
    for k, cmds in big:
        assert all(t["t_r2t_ns"] is not None for _, t in cmds)
        stages = {s["stage"]: s for s in got[k]["stages"]}
        wait = mean([read_wait(t) for _, t in cmds])
        residence = [t["t_sent_ns"] - t["t_recv_ns"] for _, t in cmds]   # READ included
        rtt = [h["h_recv_ns"] - h["h_cmd_sent_ns"] for h, _ in cmds]
        # network = the host's round trip less the residence without the READ
        net = [r - (s - read_wait(t)) for r, s, (_, t) in zip(rtt, residence, cmds)]
        assert stages["network"]["mean_ns"] == mean(net)
        assert stages["network"]["min_ns"] == min(net)
        # the target driver's receive side ends when the READ is posted
        tdrv = [(t["t_r2t_ns"] - t["t_recv_ns"]) + (t["t_sent_ns"] - t["t_cmpl_ns"])
                for _, t in cmds]
        assert stages["target_driver"]["mean_ns"] == mean(tdrv)
        # had the READ been counted as the target's, both would be off by the wait
        assert wait > 20_000
        assert stages["target_driver"]["mean_ns"] < wait


def test_report_text__transport_rdma_and_the_network_column(run, pair):
    text = run_ok(run, "report", pair.host_paths[0], pair.target_paths[0]).stdout
    assert re.findall(r"^#\s+transport:\s+(\S+)$", text, re.M) == ["rdma", "rdma"]
    want = groups_of(pair)
    for (io_type, nbytes, ns), cmds in want.items():
        size = f"{nbytes // 1024}KiB"
        m = re.search(rf"^# stages of {io_type} {size} {ns} of file 1 \(n=(\d+)\).*\n"
                      rf"# stage .*\n((?:[^#\n].*\n)+)# sum check: (\S+)", text, re.M)
        assert m, (io_type, size, ns)
        assert int(m[1]) == len(cmds) and m[3] == "ok"
        table = {line.split()[0]: line.split() for line in m[2].splitlines()}
        per = [rdma_stages(h, t) for h, t in cmds]
        for st in FIVE:
            # mean in us with two decimals
            assert float(table[LABELS[st]][2]) == pytest.approx(mean([p[st] for p in per]) / 1000,
                                                                abs=0.0051), (io_type, size, st)


DETAIL = ("block", "host_tx", "network", "target_rx", "read_wait", "storage", "target_tx",
          "host_rx")
DETAIL_LABELS = ("block", "host-tx", "network", "target-rx", "read-wait", "storage",
                 "target-tx", "host-rx")


def rdma_detail(h, t):
    """The eight RDMA sub-stages of one command, each from its own timestamps.

    The host has no R2T points: host-tx ends at the capsule posted, host-rx
    starts at the response received.  The READ is its own sub-stage, so the
    network is the host's round trip less all of the target's time."""
    return {"block": h["h_queue_ns"] - h["h_start_ns"],
            "host_tx": h["h_cmd_sent_ns"] - h["h_queue_ns"],
            "network": (h["h_recv_ns"] - h["h_cmd_sent_ns"]) - (t["t_sent_ns"] - t["t_recv_ns"]),
            "target_rx": (t["t_r2t_ns"] if t["t_r2t_ns"] is not None else t["t_submit_ns"])
                         - t["t_recv_ns"],
            "read_wait": read_wait(t),
            "storage": t["t_cmpl_ns"] - t["t_submit_ns"],
            "target_tx": t["t_sent_ns"] - t["t_cmpl_ns"],
            "host_rx": h["h_done_ns"] - h["h_recv_ns"]}


def test_expected_detail__adds_up_to_the_five_stages(pair):
    for c in pair.matched():
        d, s = rdma_detail(c.host, c.target), rdma_stages(c.host, c.target)
        assert sum(d.values()) == c.host["h_done_ns"] - c.host["h_start_ns"]
        assert d["block"] == s["block"]
        assert d["host_tx"] + d["host_rx"] == s["driver"]
        assert d["network"] + d["read_wait"] == s["network"]
        assert d["target_rx"] + d["target_tx"] == s["target_driver"]
        assert d["storage"] == s["storage"]
        assert all(v >= 0 for v in d.values()), d


def test_report_detail_json__read_wait_is_its_own_substage(run, pair):
    doc = json.loads(run_ok(run, "report", "-S", "detail", "-j", "-",
                        pair.host_paths[0], pair.target_paths[0]).stdout)
    assert doc["stage_view"] == "detail"
    got = by_key(doc["groups"])
    reads = 0
    for k, cmds in groups_of(pair).items():
        g = got[k]
        stages = {s["stage"]: s for s in g["stages"]}
        # no R2T sub-stages over RDMA, the READ between target-rx and storage
        assert tuple(stages) == DETAIL, k
        per = [rdma_detail(h, t) for h, t in cmds]
        for st in DETAIL:
            v = [p[st] for p in per]
            assert stages[st]["mean_ns"] == mean(v), (k, st)
            assert stages[st]["min_ns"] == min(v) and stages[st]["max_ns"] == max(v), (k, st)
            assert stages[st]["p99_ns"] == (ntpgen.percentile(v, 99) if len(v) >= 100 else None), \
                (k, st)
        assert g["sum_check"]["ok"] is True and g["sum_check"]["mismatched_commands"] == 0
        e2e = sum(h["h_done_ns"] - h["h_start_ns"] for h, _ in cmds)
        assert g["sum_check"]["stage_sum_ns"] == g["sum_check"]["e2e_sum_ns"] == e2e
        waits = [read_wait(t) for _, t in cmds]
        if k[0] == "write" and k[1] > ntpgen.RDMA_INLINE_BYTES:
            # every such write pulled its data: the wait is real, and out of the network
            assert min(waits) > 0
            assert stages["read_wait"]["mean_ns"] > 20_000
            reads += 1
        else:
            assert stages["read_wait"]["max_ns"] == 0, k
    assert reads
    notes = doc["stage_notes"]
    assert tuple(sorted(notes)) == tuple(sorted(DETAIL))
    assert "RDMA READ" in notes["read_wait"]
    assert "nvme_rdma_post_send" in notes["host_tx"]
    assert "nvme_rdma_recv_done" in notes["host_rx"]
    assert "nvmet_rdma_queue_response" in notes["target_tx"]
    assert not any("tcp" in v or "R2T" in v for v in notes.values()), notes
    # the RDMA hooks are the points themselves: nothing is approximate or missing
    assert doc["stage_gaps"] == []


def test_report_detail_text__rdma_rows_and_notes(run, pair):
    text = run_ok(run, "report", "-S", "detail", pair.host_paths[0], pair.target_paths[0]).stdout
    for (io_type, nbytes, ns), cmds in groups_of(pair).items():
        size = f"{nbytes // 1024}KiB"
        m = re.search(rf"^# stages of {io_type} {size} {ns} of file 1 \(n=(\d+)\).*\n"
                      rf"# stage .*\n((?:[^#\n].*\n)+)# sum check: (\S+)", text, re.M)
        assert m, (io_type, size, ns)
        assert int(m[1]) == len(cmds) and m[3] == "ok"
        table = [line.split() for line in m[2].splitlines()]
        assert [r[0] for r in table] == list(DETAIL_LABELS) + ["unattributed", "end-to-end"]
        per = [rdma_detail(h, t) for h, t in cmds]
        for row, st in zip(table, DETAIL):
            assert float(row[2]) == pytest.approx(mean([p[st] for p in per]) / 1000,
                                                  abs=0.0051), (io_type, size, st)
    notes = text[text.index("# stages (detail):"):]
    assert "r2t" not in notes and "R2T" not in notes and "nvme_tcp" not in notes
    assert re.search(r"^#   read-wait +.*RDMA READ", notes, re.M)
    assert "# hook gap:" not in text


def test_report_summary__network_note_names_the_read(run, pair, tcp_pair):
    notes = lambda t: t[t.index("# stages (summary):"):]
    text = run_ok(run, "report", pair.host_paths[0], pair.target_paths[0]).stdout
    net = re.search(r"^#   network +(.*)$", notes(text), re.M)[1]
    assert "RDMA READ" in net and "R2T" not in net
    tcp = run_ok(run, "report", tcp_pair.host_paths[0], tcp_pair.target_paths[0]).stdout
    assert "R2T" in re.search(r"^#   network +(.*)$", notes(tcp), re.M)[1]


def test_report_detail__rdma_hook_gaps(run, tmp_path):
    """A missing RDMA hook names the RDMA sub-stages; h_r2t and h_data_sent
    (always 'none' over RDMA) are no gap."""
    nohook = lambda hooks, point: tuple(
        (h[0], h[1], "none", "none", "not offered") if h[1] == point else h for h in hooks)
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=38, transport="rdma",
                              host_hooks=nohook(ntpgen.HOST_HOOKS_RDMA, "h_recv"),
                              target_hooks=nohook(ntpgen.TARGET_HOOKS_RDMA, "t_r2t"))
    doc = json.loads(run_ok(run, "report", "-S", "detail", "-j", "-",
                        js.host_paths[0], js.target_paths[0]).stdout)
    gaps = {(g["file"], g["point"]): g for g in doc["stage_gaps"]}
    assert set(gaps) == {(1, "h_recv"), (2, "t_r2t")}
    assert gaps[(1, "h_recv")]["stages"] == "host-rx"
    assert "read-wait" in gaps[(2, "t_r2t")]["stages"]
    assert "RDMA READ" in gaps[(2, "t_r2t")]["what"]


def test_report_both__one_rdma_file_joins_itself(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=32, transport="rdma")
    doc = json.loads(run_ok(run, "report", "-j", "-", tmp_path / "both.ntp").stdout)
    assert doc["kind"] == "joined" and doc["files"][0]["transport"] == "rdma"
    got = by_key(doc["groups"])
    for k, cmds in groups_of(js).items():
        stages = {s["stage"]: s for s in got[k]["stages"]}
        per = [rdma_stages(h, t) for h, t in cmds]
        for st in FIVE:
            assert stages[st]["mean_ns"] == mean([p[st] for p in per]), (k, st)


def test_report_host_only__read_wait_in_network_star(run, tmp_path):
    groups = (ntpgen.Group("write", 131072, "nvme0n1", 60, r2t_share=1.0),
              ntpgen.Group("read", 4096, "nvme0n1", 60))
    rec = ntpgen.generate(tmp_path / "h.ntp", seed=33, groups=groups, transport="rdma")
    doc = json.loads(run_ok(run, "report", "-j", "-", tmp_path / "h.ntp").stdout)
    assert [f["transport"] for f in doc["files"]] == ["rdma"]
    text = run_ok(run, "report", tmp_path / "h.ntp").stdout
    assert re.findall(r"^#\s+transport:\s+(\S+)$", text, re.M) == ["rdma"]
    got = by_key(doc["groups"])
    for k, cmds in rec.by_group().items():
        h = [c.row for c in cmds]
        assert all(r["h_r2t_ns"] is None and r["h_data_sent_ns"] is None for r in h)
        stages = {s["stage"]: s for s in got[k]["stages"]}
        star = [r["h_recv_ns"] - r["h_cmd_sent_ns"] for r in h]
        drv = [(r["h_cmd_sent_ns"] - r["h_queue_ns"]) + (r["h_done_ns"] - r["h_recv_ns"]) for r in h]
        assert stages["network_star"]["mean_ns"] == mean(star), k
        assert stages["driver"]["mean_ns"] == mean(drv), k


def test_report_host_only_detail__no_r2t_host(run, tmp_path):
    groups = (ntpgen.Group("write", 131072, "nvme0n1", 60, r2t_share=1.0),
              ntpgen.Group("read", 4096, "nvme0n1", 60))
    rec = ntpgen.generate(tmp_path / "h.ntp", seed=33, groups=groups, transport="rdma")
    doc = json.loads(run_ok(run, "report", "-S", "detail", "-j", "-", tmp_path / "h.ntp").stdout)
    got = by_key(doc["groups"])
    for k, cmds in rec.by_group().items():
        h = [c.row for c in cmds]
        stages = {s["stage"]: s for s in got[k]["stages"]}
        assert tuple(stages) == ("block", "host_tx", "network_star", "host_rx"), k
        want = {"block": [r["h_queue_ns"] - r["h_start_ns"] for r in h],
                "host_tx": [r["h_cmd_sent_ns"] - r["h_queue_ns"] for r in h],
                "network_star": [r["h_recv_ns"] - r["h_cmd_sent_ns"] for r in h],
                "host_rx": [r["h_done_ns"] - r["h_recv_ns"] for r in h]}
        for st, v in want.items():
            assert stages[st]["mean_ns"] == mean(v), (k, st)
            assert stages[st]["max_ns"] == max(v), (k, st)
        assert got[k]["sum_check"]["ok"] is True
    assert "nvme_rdma_post_send" in doc["stage_notes"]["host_tx"]
    assert "RDMA READ" in doc["stage_notes"]["network_star"]
    text = run_ok(run, "report", "-S", "detail", tmp_path / "h.ntp").stdout
    assert "r2t-host" not in text and "nvme_tcp" not in text


def test_report_target_only__rdma_words(run, pair):
    t = pair.target_paths[0]
    for view in ("summary", "detail"):
        text = run_ok(run, "report", "-S", view, t).stdout
        assert "R2T" not in text and "nvmet_tcp" not in text
        assert re.search(r"^# residence on the target .*RDMA READ", text, re.M)
        assert re.search(r"^#   residence +.*RDMA READ", text, re.M)
    doc = json.loads(run_ok(run, "report", "-S", "detail", "-j", "-", t).stdout)
    assert "RDMA READ" in doc["stage_notes"]["residence"]
    assert "nvmet_rdma_queue_response" in doc["stage_notes"]["target_tx"]
    assert doc["stage_gaps"] == []
    # the residence and target-rx leave the READ out: it is network time
    got = by_key([dict(g, namespace=g["device"]) for g in doc["groups"]])
    assert {k[0] for k in got} == {"read", "write"}
    stored = rows(t, "target_io")
    for (io_type, nbytes, dev), g in got.items():
        op = {"write": 1, "read": 2}[io_type]
        trs = [r for r in stored if (r["opcode"], r["bytes"], r["device"]) == (op, nbytes, dev)]
        assert len(trs) == g["n"]
        rx = [(r["t_r2t_ns"] if r["t_r2t_ns"] is not None else r["t_submit_ns"]) - r["t_recv_ns"]
              for r in trs]
        stages = {s["stage"]: s for s in g["stages"]}
        assert stages["target_rx"]["mean_ns"] == mean(rx), (io_type, nbytes)


# ---- TCP and RDMA never mix ------------------------------------------------------

def refused(r, *paths):
    assert r.returncode == Exit.MISMATCH, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "transport" in lines[0] and "tcp" in lines[0] and "rdma" in lines[0], lines[0]
    for p in paths:
        assert str(p) in lines[0]
    return lines[0]


@pytest.mark.parametrize("cmd", [("report",), ("report", "-j", "-"), ("dump",)])
def test_join_tcp_host_rdma_target__refused(run, pair, tcp_pair, cmd):
    h, t = tcp_pair.host_paths[0], pair.target_paths[0]
    line = refused(run(*cmd, h, t), h, t)
    assert line.startswith(f"ntprof {cmd[0]}: error: ")


def test_join_rdma_host_tcp_target__refused(run, pair, tcp_pair):
    h, t = pair.host_paths[0], tcp_pair.target_paths[0]
    refused(run("report", h, t), h, t)


@pytest.mark.parametrize("order", ["tcp_first", "rdma_first"])
def test_compare_tcp_with_rdma__refused(run, tmp_path, order):
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 40),)
    a = ntpgen.generate(tmp_path / "tcp.ntp", seed=34, groups=groups).path
    b = ntpgen.generate(tmp_path / "rdma.ntp", seed=34, groups=groups, transport="rdma").path
    if order == "rdma_first":
        a, b = b, a
    line = refused(run("compare", a, b), a, b)
    assert line.startswith("ntprof compare: error: ")
    refused(run("compare", "-j", "-", a, b), a, b)


def test_compare_two_rdma__allowed(run, tmp_path):
    groups = (ntpgen.Group("read", 4096, "nvme0n1", 40),)
    a = ntpgen.generate(tmp_path / "a.ntp", seed=35, groups=groups, transport="rdma").path
    b = ntpgen.generate(tmp_path / "b.ntp", seed=36, groups=groups, transport="rdma").path
    doc = json.loads(run_ok(run, "compare", "-j", "-", a, b).stdout)
    assert json.dumps(doc).count('"transport": "rdma"') >= 2


# ---- dump -----------------------------------------------------------------------

def test_dump_host_only_rdma(run, tmp_path):
    groups = (ntpgen.Group("write", 131072, "nvme0n1", 30, r2t_share=1.0),
              ntpgen.Group("read", 4096, "nvme0n1", 30))
    rec = ntpgen.generate(tmp_path / "h.ntp", seed=37, groups=groups, transport="rdma")
    out = list(csv.DictReader(io.StringIO(run_ok(run, "dump", rec.path).stdout)))
    assert len(out) == len(rec.commands)
    stored = {r["id"]: r for r in rows(rec.path, "host_io")}
    for r in out:
        s = stored[int(r["id"])]
        assert r["h_r2t_ns"] == "" and r["h_data_sent_ns"] == ""
        assert int(r["network_star_ns"]) == s["h_recv_ns"] - s["h_cmd_sent_ns"]
        assert int(r["e2e_ns"]) == s["h_done_ns"] - s["h_start_ns"]


def test_dump_joined_rdma(run, pair):
    out = list(csv.DictReader(io.StringIO(
        run_ok(run, "dump", pair.host_paths[0], pair.target_paths[0]).stdout)))
    matched = [r for r in out if r["host_id"] and r["target_id"]]
    assert len(matched) == len(pair.matched())
    assert all(r["h_r2t_ns"] == "" and r["h_data_sent_ns"] == "" for r in out)
    reads = [r for r in matched if r["t_r2t_ns"]]
    assert reads and all(r["io_type"] == "write" and int(r["bytes"]) > 4096 for r in reads)
    for r in matched:
        h = {k: int(r[k]) if r[k] else None for k in r if k.startswith("h_")}
        t = {k: int(r[k]) if r[k] else None for k in r if k.startswith("t_") and k != "t_status"}
        s = rdma_stages(h, t)
        assert int(r["network_ns"]) == s["network"]
        assert int(r["target_driver_ns"]) == s["target_driver"]
