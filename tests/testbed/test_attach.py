# SPDX-License-Identifier: GPL-2.0
"""Attach policy under a busy kernel thread (ntprof-record(1) "Busy CPUs",
ntprof-design(7) "Attaching") and `ntprof check`, on a loopback NVMe/TCP test bed
(guest/attach_busy.sh).  An io_uring SQPOLL fio job keeps a kernel thread
polling; on 6.1 the first fentry attach of the system then waits for an
RCU-tasks grace period for as long as the job runs.

- 6.1, AUTO: record falls back to kprobes (one warning line saying why,
  reasons in the hooks table), within the bound, and records correctly:
  every one of the 8 KiB reads issued after the attach, and counters that
  agree with the rows up to the commands in flight at the stop.
- 6.1, --kprobes -r both: kprobes only on both sides, no warning, correct.
- 6.1, --fentry (first in its boot): waits and says so, attaches once the
  busy job ends, records correctly with fentry/fexit.
- 6.12 and 7.3, AUTO: the attach does not wait there (asynchronous), so
  fentry is kept; the recording is correct, and the stop (whose detaches
  wait for the busy thread) still ends.
- check, on each kernel: every role supported, the flavours and hooks of
  each mode, the stages.
- 6.12 and 7.3, tracepoints only (fentry, kprobes and tp_btf disabled through
  NTPROF_ATTACH_DISABLE): raw_tp on the nvme/nvmet tracepoints, both sides
  record every 8 KiB read with the points tracepoints give, and check says so.
The only time asserted is the fallback bound.
"""
import json
import os
import re
import sqlite3
import warnings as py_warnings
from pathlib import Path

import pytest

from conftest import REPO

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
SCRIPT = "tests/testbed/guest/attach_busy.sh"
ATTACH_TIMEOUT_S = 10           # NTP_ATTACH_FENTRY_TIMEOUT_S
FALLBACK_BOUND_S = 25           # that plus TCG slack
IN_FLIGHT = 16 + 8              # iodepth of the busy job + of the 8 KiB job
HOST_FUNC_POINTS = {"h_cmd_sent", "h_r2t", "h_data_sent", "h_recv", "h_done"}
TARGET_FUNC_POINTS = {"t_recv", "t_r2t", "t_submit", "t_cmpl", "t_sent"}


def open_db(path):
    assert path.exists(), f"no recording {path}"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def hooks(db, side):
    return {r["point"]: dict(r) for r in db.execute("SELECT * FROM hooks WHERE side = ?", (side,))}


def attach_s(err):
    m = re.search(r"programs attached in ([0-9.]+) s", err)
    assert m, f"no attach line in:\n{err}"
    return float(m.group(1))


def warnings(err):
    return [line for line in err.splitlines() if ": warning: " in line]


def check_recording(r, mode, side="host", order=True):
    """Every 8 KiB read fio issued after the attach is recorded, and the
    counters agree with the rows up to the commands in flight at the stop."""
    res = r.result
    assert res[f"{mode}_rc"] == "0", (r.out / f"{mode}.err").read_text()
    assert res[f"{mode}_progs_left"] == "0", "ntprof left BPF programs in the kernel"
    db = open_db(r.out / f"{mode}.ntp")
    table = "host_io" if side == "host" else "target_io"
    n8k = db.execute(f"SELECT count(*) FROM {table} WHERE bytes = 8192").fetchone()[0]
    assert n8k == int(res[f"{mode}_fio8k"]), f"{side}: {n8k} 8 KiB reads recorded"
    iv = db.execute("SELECT sum(seen), sum(sampled), sum(lost_ringbuf), sum(lost_map) "
                    "FROM intervals WHERE side = ?", (side,)).fetchone()
    seen, sampled, lost_rb, lost_map = iv
    rows = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    assert seen == sampled and lost_rb == 0 and lost_map == 0, tuple(iv)
    assert sampled - IN_FLIGHT <= rows <= sampled, (rows, sampled)
    if side == "host" and order:
        bad = db.execute("""SELECT count(*) FROM host_io WHERE bytes = 8192 AND NOT (
                h_start_ns <= h_queue_ns AND h_cmd_sent_ns BETWEEN h_queue_ns AND h_recv_ns
                AND h_recv_ns BETWEEN h_queue_ns AND h_done_ns)""").fetchone()[0]
        assert bad == 0, f"{bad} 8 KiB reads with timestamps out of order"
    return db


def assert_flavours(h, points, allowed):
    for p in points:
        assert h[p]["flavour"] in allowed, (p, h[p])


def check_doc(r, kernel):
    assert r.result["check_rc"] == "0", (r.out / "check.err").read_text()
    doc = json.loads((r.out / "check.json").read_text())
    assert doc["command"] == "check" and doc["kernel_release"] == r.result["kernel"]
    k = doc["kernel"]
    assert k["fentry"] and k["kprobe"] and k["tp_btf"] and k["raw_tp"] and k["btf"], k
    roles = {x["role"]: x for x in doc["roles"]}
    assert set(roles) == {"host", "target"}
    for role, points in (("host", HOST_FUNC_POINTS), ("target", TARGET_FUNC_POINTS)):
        x = roles[role]
        assert x["supported"] and x["exit_code"] == 0 and x["transport"] == "tcp"
        modes = {m["mode"]: m for m in x["modes"]}
        assert modes["fentry"]["available"] and modes["kprobe"]["available"]
        # kprobes work here, so AUTO never goes down to tracepoints only
        assert not modes["tracepoint"]["available"] and modes["tracepoint"]["hooks"] == []
        fe = {h["point"]: h for h in modes["fentry"]["hooks"]}
        kp = {h["point"]: h for h in modes["kprobe"]["hooks"]}
        assert_flavours(fe, points, {"fentry", "fexit"})
        assert_flavours(kp, points, {"kprobe", "kretprobe"})
        for p in points:
            assert fe[p]["hook"] == kp[p]["hook"], (fe[p], kp[p])
        if role == "host":
            assert fe["h_queue"]["flavour"] == kp["h_queue"]["flavour"] == "tp_btf"
            assert modes["fentry"]["stages"] == modes["kprobe"]["stages"] == "block, driver, network*"
            send = "nvme_tcp_try_send" if kernel == "6.1" else "nvme_tcp_try_send_cmd_pdu"
            assert fe["h_cmd_sent"]["hook"] == send
            assert kp["h_cmd_sent"]["flavour"] == "kretprobe"
        else:
            assert modes["fentry"]["stages"] == "target_driver, storage"
            sent = "nvmet_setup_response_pdu" if kernel == "6.1" else "nvmet_try_send_response"
            assert fe["t_sent"]["hook"] == sent


def test_attach__busy_sqpoll__auto_falls_back_kprobes_works_6_1(testbed):
    def run():
        return testbed.run(SCRIPT, args=("auto", "kprobes"), kernel="6.1", timeout=420,
                           env={"NTPROF": str(NTPROF)}).assert_ok()

    def held_up(r, err):
        if warnings(err) or attach_s(err) >= ATTACH_TIMEOUT_S:
            return True
        # The busy job's polling thread let the grace period end before the timeout (the
        # guest script starts record 2 s after fio, polling or not): keeping fentry is then
        # right, and is checked, but the fallback this test is for did not happen.
        assert warnings(err) == [], err
        assert_flavours(hooks(check_recording(r, "auto"), "host"), HOST_FUNC_POINTS,
                        {"fentry", "fexit"})
        py_warnings.warn(f"6.1: the SQPOLL thread did not hold up the attach ("
                         f"{attach_s(err)} s, in {r.out}): the fallback was not exercised")
        return False

    for boot in range(2):
        r = run()
        err = (r.out / "auto.err").read_text()
        if held_up(r, err):
            break
    else:
        # not a pass: what this test is for did not happen here (fentry kept, and checked)
        pytest.skip("6.1: in two boots the busy SQPOLL thread did not hold up the fentry "
                    "attach past 10 s, so the kprobes fallback was not exercised")

    # AUTO: one warning that says why, within the bound, and the hooks table says it too
    w = warnings(err)
    assert len(w) == 1 and "using kprobes" in w[0] and "did not return within 10 s" in w[0], err
    assert attach_s(err) < FALLBACK_BOUND_S, err
    db = check_recording(r, "auto")
    h = hooks(db, "host")
    assert_flavours(h, HOST_FUNC_POINTS, {"kprobe", "kretprobe"})
    assert h["h_queue"]["flavour"] == "tp_btf"
    for p in HOST_FUNC_POINTS:
        assert "did not return within 10 s" in h[p]["reason"], h[p]

    # --kprobes on both sides: no fentry program, no warning
    err = (r.out / "kprobes.err").read_text()
    assert warnings(err) == [], err
    for side, points in (("host", HOST_FUNC_POINTS), ("target", TARGET_FUNC_POINTS)):
        db = check_recording(r, "kprobes", side)
        h = hooks(db, side)
        assert_flavours(h, points, {"kprobe", "kretprobe"})
        for p in points:
            assert h[p]["reason"].startswith("--kprobes"), h[p]


def test_attach__busy_sqpoll__fentry_waits_then_records_6_1(testbed):
    for boot in range(2):
        r = testbed.run(SCRIPT, args=("fentry", "check"), kernel="6.1", timeout=420,
                        env={"NTPROF": str(NTPROF)})
        r.assert_ok()
        check_doc(r, "6.1")
        err = (r.out / "fentry.err").read_text()
        db = check_recording(r, "fentry")
        assert_flavours(hooks(db, "host"), HOST_FUNC_POINTS, {"fentry", "fexit"})
        if warnings(err) or attach_s(err) >= ATTACH_TIMEOUT_S:
            break
        # as in the test above: the polling thread let the grace period end within the
        # timeout, so --fentry had nothing to wait for (its recording is checked above)
        assert warnings(err) == [], err
        py_warnings.warn(f"6.1: the SQPOLL thread did not hold up the attach ("
                         f"{attach_s(err)} s, in {r.out}): --fentry's wait was not exercised")
    else:
        pytest.skip("6.1: in two boots the busy SQPOLL thread did not hold up the fentry "
                    "attach past 10 s, so --fentry's wait was not exercised")
    w = warnings(err)
    assert len(w) == 1 and "--fentry waits for it" in w[0], err


@pytest.mark.parametrize("kernel", ("6.12", "7.3"))
def test_attach__busy_sqpoll__auto_keeps_fentry(testbed, kernel):
    r = testbed.run(SCRIPT, args=("auto", "check", "tponly"), kernel=kernel, timeout=480,
                    env={"NTPROF": str(NTPROF)})
    r.assert_ok()
    err = (r.out / "auto.err").read_text()
    assert warnings(err) == [], err
    db = check_recording(r, "auto")
    h = hooks(db, "host")
    assert_flavours(h, HOST_FUNC_POINTS, {"fentry", "fexit"})
    check_doc(r, kernel)

    # tracepoints only: one warning per collector, raw_tp, the points tracepoints give
    err = (r.out / "tponly.err").read_text()
    w = warnings(err)
    assert len(w) == 2 and all("using tracepoints only" in x for x in w), err
    db = check_recording(r, "tponly", "host", order=False)
    h = hooks(db, "host")
    assert (h["h_queue"]["hook"], h["h_queue"]["flavour"]) == ("nvme_setup_cmd", "raw_tp")
    assert (h["h_done"]["hook"], h["h_done"]["flavour"]) == ("nvme_complete_rq", "raw_tp")
    assert_flavours(h, HOST_FUNC_POINTS - {"h_done"}, {"none"})
    bad = db.execute("SELECT count(*) FROM host_io WHERE h_cmd_sent_ns IS NOT NULL "
                     "OR h_recv_ns IS NOT NULL OR NOT h_queue_ns < h_done_ns").fetchone()[0]
    assert bad == 0
    db = check_recording(r, "tponly", "target")
    t = hooks(db, "target")
    assert (t["t_recv"]["hook"], t["t_recv"]["flavour"]) == ("nvmet_req_init", "raw_tp")
    assert (t["t_cmpl"]["hook"], t["t_cmpl"]["flavour"]) == ("nvmet_req_complete", "raw_tp")
    assert (t["t_sent"]["hook"], t["t_sent"]["flavour"]) == ("nvmet_req_complete", "raw_tp")
    assert_flavours(t, {"t_r2t", "t_submit"}, {"none"})
    # t_sent is the closest point the tracepoints give: t_cmpl
    bad = db.execute("SELECT count(*) FROM target_io WHERE t_submit_ns IS NOT NULL "
                     "OR t_sent_ns != t_cmpl_ns OR NOT t_recv_ns < t_cmpl_ns").fetchone()[0]
    assert bad == 0

    assert r.result["check_tp_rc"] == "0", (r.out / "check-tp.err").read_text()
    doc = json.loads((r.out / "check-tp.json").read_text())
    assert not doc["kernel"]["fentry"] and "NTPROF_ATTACH_DISABLE" in doc["kernel"]["fentry_why_not"]
    assert not doc["kernel"]["kprobe"] and not doc["kernel"]["tp_btf"]
    for x in doc["roles"]:
        modes = {m["mode"]: m for m in x["modes"]}
        assert not modes["fentry"]["available"] and not modes["kprobe"]["available"]
        assert modes["tracepoint"]["available"], x
        assert modes["tracepoint"]["stages"] == ("block, network*" if x["role"] == "host"
                                                 else "storage")
