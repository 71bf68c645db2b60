# SPDX-License-Identifier: GPL-2.0
"""The application's side of `ntprof record` against fio, per guest kernel, one
boot each (guest/record_app.sh).

fio runs 4k random reads with io_uring and libaio at queue depth 1 and 16, and
psync at 1 and 16 (16 jobs), each under its own `ntprof record -s 1` (every command sampled);
three runs again under `record --kprobes`, for the kprobe/kretprobe twins, and
one under `record --no-app`, which records the same commands without them.
The test checks, per run, that the sampled commands carry the application's
columns (h_app_submit_ns, h_app_done_ns, h_app_reap_ns, app_kind, pid, comm,
cgroup_id), that they are ordered around the block-layer window
(h_app_submit <= h_start, h_done <= h_app_done <= h_app_reap), that
host_app_stages adds up, and that ntprof's application-level end-to-end mean
agrees with fio's mean lat of the same run within 10% or 50 us, whichever is
larger (issue 17); psync at 16 jobs within 25% below (PSYNC16_BELOW says why).

No time is asserted by itself, only the ratio of two means of the same I/Os
of the same run.  Under TCG fio is CPU-bound at queue depth 16, so most of
fio's lat there is completions waiting for fio to take them (ntprof-design(7),
"The application's side"): the reap stage, which the comparison covers.
"""
import json
import os
import sqlite3
from pathlib import Path

import pytest

from conftest import FULL, REPO
from ntp_checks import parse_live

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()

TOLERANCE = 0.10
FLOOR_NS = 50_000
# psync at 16: 16 processes on the guest's 2 vCPUs.  ntprof's app e2e ends
# at pread's return; what fio adds outside the system call (most likely the
# run-queue wait on the way back to user space, ntprof-design(7)) no I/O
# hook sees (measured 0.82 and 0.89 of fio's lat).  Below fio's lat by at
# most this much, and above it by no more than the others.
PSYNC16_BELOW = 0.25
# per thread, a synchronous command's reap to the same thread's next submission
GAP_SQL = """WITH c AS (SELECT tid, h_app_reap_ns AS r, LEAD(h_app_submit_ns)
                           OVER (PARTITION BY tid ORDER BY h_app_submit_ns) AS next
                        FROM host_io WHERE h_app_reap_ns IS NOT NULL)
             SELECT avg(next - r) FROM c WHERE next IS NOT NULL"""
NTP_HF_APP_SYSCALL = 16
# run -> app_kind
RUNS = {
    "uring_qd1": "io_uring",
    "uring_qd16": "io_uring",
    "libaio_qd1": "libaio",
    "libaio_qd16": "libaio",
    "psync_qd1": "sync",
    "psync_qd16": "sync",       # 16 jobs of one synchronous I/O each
    "uring_kp_qd16": "io_uring",
    "libaio_kp_qd16": "libaio",
    "psync_kp_qd1": "sync",
}
NOAPP_RUN = "libaio_noapp_qd16"


def fio_lat_ns(path):
    job = json.loads(path.read_text())["jobs"][0]["read"]
    return job["lat_ns"]["mean"], job["total_ios"]


@pytest.mark.parametrize("kernel", FULL)
def test_record_app(testbed, kernel):
    r = testbed.run("tests/testbed/guest/record_app.sh", kernel=kernel, timeout=400,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    res = r.result
    assert res["kernel"].startswith(kernel + "."), res["kernel"]
    assert res["runs"].split() == list(RUNS) + [NOAPP_RUN]
    lines, bad, pids = [], [], set()
    for run, kind in RUNS.items():
        assert res[f"{run}_rc"] == "0", (r.out / f"{run}.err").read_text()
        db = sqlite3.connect(f"file:{r.out / f'{run}.ntp'}?mode=ro", uri=True)
        hooks = dict(db.execute("SELECT point, flavour FROM hooks WHERE side = 'host'"))
        kp = "_kp_" in run
        assert hooks.get("h_app_submit") == ("kprobe" if kp else "fentry"), hooks
        assert hooks.get("h_app_done") == ("kretprobe" if kp else "fexit"), hooks
        assert hooks.get("h_app_reap") == ("kretprobe" if kp else "fexit"), hooks
        lat, ios = fio_lat_ns(r.out / f"fio-{run}.json")
        n, n_sub, n_done, n_reap, n_kind, n_flag = db.execute(
            """SELECT count(*), count(h_app_submit_ns), count(h_app_done_ns),
                      count(h_app_reap_ns), sum(app_kind = ?), sum((flags & ?) != 0)
               FROM host_io""", (kind, NTP_HF_APP_SYSCALL)).fetchone()
        # every command sampled, fio run inside the recording: each one, even
        # one whose application stamps never came (written without them)
        assert n == ios, f"{run}: {n} commands recorded, fio completed {ios}"
        assert n_kind == n, f"{run}: {n - n_kind} of {n} commands not {kind}"
        assert n_sub >= 0.95 * n and n_flag == n_sub, f"{run}: {n_sub} of {n} with h_app_submit"
        assert n_done >= 0.95 * n, f"{run}: {n_done} of {n} with h_app_done"
        assert n_reap >= 0.95 * n_done, f"{run}: {n_reap} of {n_done} with h_app_reap"
        order = db.execute(
            """SELECT count(*) FROM host_io
               WHERE h_app_submit_ns > h_start_ns OR h_app_done_ns < h_done_ns
                  OR h_app_reap_ns < h_app_done_ns""").fetchone()[0]
        assert order == 0, f"{run}: {order} commands out of order"
        # the submitters: fio's job processes (16 for psync at 16), in a cgroup
        who = db.execute("SELECT DISTINCT pid, comm FROM host_io WHERE pid IS NOT NULL").fetchall()
        jobs = 16 if run == "psync_qd16" else 1
        assert len(who) == jobs and {c for _, c in who} == {"fio"}, f"{run}: submitters {who}"
        assert not pids & {p for p, _ in who}
        pids |= {p for p, _ in who}
        assert db.execute("SELECT count(*) FROM host_io WHERE cgroup_id IS NULL").fetchone()[0] == 0
        # the stages add up, for every command with both ends
        sums = db.execute(
            """SELECT count(*) FROM host_app_stages WHERE app_e2e_ns IS NOT NULL
               AND submit_ns + e2e_ns + complete_ns + COALESCE(reap_ns, 0) != app_e2e_ns
               OR e2e_ns != block_ns + driver_ns + network_star_ns""").fetchone()[0]
        assert sums == 0, f"{run}: {sums} commands whose stages do not add up"
        app, e2e, n_app = db.execute("SELECT avg(app_e2e_ns), avg(e2e_ns), count(*) "
                                     "FROM host_app_stages WHERE app_e2e_ns IS NOT NULL").fetchone()
        # record's live lines carry it too, every command in one of them
        live = [x for lines_ in parse_live((r.out / f"{run}.out").read_text(), 3).values()
                for x in lines_]
        assert live and all(x["app"] is not None for x in live), f"{run}: live lines {live[:3]}"
        assert sum(x["n"] for x in live) == n, f"{run}: live lines of {live}, {n} in the file"
        # a line's mean is of its commands that have the application's side,
        # its n of all of them: weighted by n, the lines' means are the file's
        # mean to within the share of commands without that side times the
        # spread of the lines' means (exactly, when every command has it),
        # and the lines' rounding to 10 ns
        ms = [x["app"] * 1e3 for x in live]
        live_mean = sum(x["n"] * m for x, m in zip(live, ms)) / n
        bound = (1 - n_app / n) * (max(ms) - min(ms)) + 10
        assert abs(live_mean - app) <= bound, \
            f"{run}: live app {live_mean:.0f} ns, file {app:.0f} ({n_app} of {n} with it)"
        ratio = app / lat
        lines.append(f"{run}: ntprof app_e2e mean {app / 1e3:.1f} us (host e2e {e2e / 1e3:.1f}), "
                     f"fio lat mean {lat / 1e3:.1f} us, ratio {ratio:.3f} (n={n})")
        if kind == "sync":
            # what fio sees beyond ntprof lies between the thread's system
            # calls: from a pread's return to the same thread's next pread
            # (25% of slack: the two means are of other samples, fio's of all its
            # I/Os, the gap's of each thread's commands but its last; seen 1.09x
            # at 16 jobs on a loaded machine, 0.5x at one job)
            gap = db.execute(GAP_SQL).fetchone()[0]
            assert lat - app <= 1.25 * gap, \
                f"{run}: fio lat - app e2e {lat - app:.0f} ns, between calls {gap:.0f}"
        below = PSYNC16_BELOW if run == "psync_qd16" else TOLERANCE
        if not -max(below * lat, FLOOR_NS) <= app - lat <= max(TOLERANCE * lat, FLOOR_NS):
            bad.append(lines[-1])
    check_no_app(r, res)
    print(f"\n[{kernel}] " + f"\n[{kernel}] ".join(lines))
    assert not bad, "ntprof's application end-to-end and fio's lat disagree:\n" + "\n".join(bad)


def check_no_app(r, res):
    """record --no-app: every command, none of the application's columns, and
    hooks rows that say why."""
    run = NOAPP_RUN
    assert res[f"{run}_rc"] == "0", (r.out / f"{run}.err").read_text()
    db = sqlite3.connect(f"file:{r.out / f'{run}.ntp'}?mode=ro", uri=True)
    hooks = {p: (f, why) for p, f, why in db.execute(
        "SELECT point, flavour, reason FROM hooks WHERE side = 'host'")}
    for point in ("h_app_submit", "h_app_done", "h_app_reap"):
        assert hooks[point] == ("none", "record --no-app"), hooks
    _, ios = fio_lat_ns(r.out / f"fio-{run}.json")
    n, n_app = db.execute(
        """SELECT count(*), count(h_app_submit_ns) + count(h_app_done_ns) + count(h_app_reap_ns)
                  + count(app_kind) + count(pid) + count(comm) FROM host_io""").fetchone()
    assert n == ios, f"{run}: {n} commands recorded, fio completed {ios}"
    assert n_app == 0, f"{run}: application columns set without the application's side"
    live = [x for lines in parse_live((r.out / f"{run}.out").read_text(), 3).values() for x in lines]
    assert live and all(x["app"] is None for x in live), live[:3]
