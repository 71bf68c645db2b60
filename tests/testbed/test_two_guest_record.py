# SPDX-License-Identifier: GPL-2.0
"""Two machines (issue 4): `ntprof record -r target` on a target guest, `ntprof
record -r host -s 1 -- fio` on a host guest whose wall clock is SKEW_S off the
target's, joined afterwards with `ntprof report HOST.ntp TARGET.ntp`, and the
two phases compared with `ntprof compare` (guest/two_record.sh).

Phase A has no added delay; phase B has `netem delay 5ms` on eth0 of both
guests, 5 ms each way; in phase C the target's clock is slewed while it
records (a clock estimate made loose on purpose: the diagnosis must blame
the clock, never the network).  Each phase is the same fio job (4k randread, QD1, IOS
I/Os), recorded at -s 1 on both sides (target started first, stopped last).

- each phase: at least 99% of the host's commands join a target record;
- phase B's network median is phase A's + what the emulated network really
  added, within 2 ms, and at least 8 ms (netem was asked for 10 ms and comes
  late, never early); no other stage's median moves by more than 1 ms.  What
  the network added is the growth of busybox ping's median round trip, 40
  replies just before and 40 just after each phase: under TCG netem's timers
  fire late, by 0-3 ms depending on the machine's load (seen in CI: ping +11.6
  ms, the stage +12.5 ms), so 10 ms itself is not the oracle, but its floor
  (under load ping's phase A medians were slowed too: +7.9 ms seen);
- compare A (baseline) vs B: network* (the host-only stage) changed by the
  host reports' own difference, at least 8 ms, block and driver by at most
  1 ms; and the joined runs
  (HOST,TARGET) compared: the five stages, each delta the joined reports'
  own, network the stage that changed most.
"""
import re
import sqlite3
import statistics
import os
import subprocess
from datetime import datetime
from pathlib import Path

from conftest import REPO
from ntp_checks import ntprof_doc

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
SKEW_S = -30
IOS = 300
ADDED_NS = 10_000_000           # netem 5 ms on each guest's egress: both ways
ADDED_TOL = 0.2
OTHER_TOL_NS = 1_000_000
STAGES = ("block", "driver", "network", "target_driver", "storage")
TOTALS = ("app_e2e", "e2e")
APP_STAGES = ("submit", "complete", "reap", "app_e2e")


def ntprof_json(*args):
    p = subprocess.run([str(NTPROF), *args, "-j", "-"], capture_output=True, text=True)
    assert p.returncode == 0, f"ntprof {' '.join(args)}: rc={p.returncode}\n{p.stderr}"
    return ntprof_doc(args[0], p.stdout)


def has_app(path):
    """Does a recording have commands with the application's submission and completion?"""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM host_io WHERE h_app_submit_ns IS NOT NULL"
                          " AND h_app_done_ns IS NOT NULL").fetchone()[0] > 0
    finally:
        db.close()


def joined_phase(r, phase):
    """`ntprof report host.ntp target.ntp` of one phase: its one group's p50s."""
    host, tgt = r.host.out / f"host-{phase}.ntp", r.target.out / f"tgt-{phase}.ntp"
    doc = ntprof_json("report", str(host), str(tgt))
    assert doc["kind"] == "joined", doc["join"]
    join = doc["join"]
    assert join["host_commands"] == IOS, (phase, join)
    # the two files' own clocks were paired, not assumed equal
    assert len(doc["clock_pairs"]) == 1 and doc["clock_pairs"][0]["estimated"], doc["clock_pairs"]
    assert join["matched"] >= 0.99 * join["host_commands"], f"phase {phase}: {join}"
    groups = [g for g in doc["groups"] if g["io_type"] == "read" and g["bytes"] == 4096]
    assert len(groups) == 1, doc["groups"]
    g = groups[0]
    assert g["n"] == join["matched"], (g["n"], join)
    assert g["sum_check"]["ok"], g["sum_check"]
    p50 = {s["stage"]: s["p50_ns"] for s in g["stages"]}
    assert set(p50) == set(STAGES), p50
    return p50


def ping_added_ns(r):
    """What the emulated network itself added in phase B: the growth of the
    median round trip of busybox ping (40 replies just before each phase and
    40 just after it, so the oracle spans the phase's load)."""
    med = {}
    for p in "AB":
        times = []
        for name in (f"ping-{p}.txt", f"ping-{p}-after.txt"):
            text = (r.host.out / name).read_text()
            got = [float(m) for m in re.findall(r"time=([0-9.]+) ms", text)]
            assert len(got) >= 30, f"{name}: {text}"
            times += got
        med[p] = statistics.median(times) * 1e6
    return med["B"] - med["A"]


def test_two_guest_record(testbed):
    assert NTPROF.is_file(), f"{NTPROF} missing: build ntprof (make) first"
    r = testbed.run_two("tests/testbed/guest/two_record.sh", kernel="6.1", timeout=420,
                        skew=SKEW_S, env={"NTPROF": str(NTPROF), "TB_IOS": str(IOS)}).assert_ok()
    host, tgt = r.host.result, r.target.result
    assert "traddr=10.0.0.1," in host["host_ctrl_address"], host["host_ctrl_address"]
    for p in "ABC":
        assert host[f"host_{p}_rc"] == "0" and tgt[f"tgt_{p}_rc"] == "0", (host, tgt)
        assert int(host[f"host_{p}_fio_ios"]) == IOS
    for res, role in ((host, "host"), (tgt, "target")):
        assert "netem" not in res[f"{role}_A_qdisc"], res[f"{role}_A_qdisc"]
        assert "netem" in res[f"{role}_B_qdisc"] and "delay 5ms" in res[f"{role}_B_qdisc"]
        assert "netem" not in res[f"{role}_C_qdisc"], res[f"{role}_C_qdisc"]
    # the target's wall clock really was skewed (the join must not rely on it)
    meta = {}
    for p in "AB":
        for role, path in (("host", r.host.out / f"host-{p}.ntp"), ("target", r.target.out / f"tgt-{p}.ntp")):
            meta[role, p] = ntprof_json("report", str(path))["files"][0]
    # target started first, so its wall clock start is at least the skew earlier
    # (whole seconds at boot: 1.5 s of slack)
    t_tgt, t_host = (datetime.fromisoformat(meta[k, "A"]["start_time"].replace("Z", "+00:00"))
                     for k in ("target", "host"))
    gap = (t_host - t_tgt).total_seconds()
    assert gap >= -SKEW_S - 1.5, f"host - target start time {gap} s with the target's clock {SKEW_S} s off"

    a, b = joined_phase(r, "A"), joined_phase(r, "B")
    # netem comes late, never early: a ping growth below the delay asked
    # for is ping's own error (phase A's round trips slowed by the load)
    ping = max(ping_added_ns(r), ADDED_NS)
    print("p50 ns A:", a, "\np50 ns B:", b, f"\nping median added {ping / 1e6:.3f} ms")
    grew = b["network"] - a["network"]
    assert abs(grew - ping) <= ADDED_TOL * ADDED_NS, \
        f"network median grew by {grew / 1e6:.3f} ms, ping's median round trip by " \
        f"{ping / 1e6:.3f} ms (2 x 5 ms netem)"
    assert grew >= (1 - ADDED_TOL) * ADDED_NS, \
        f"network median grew by {grew / 1e6:.3f} ms with 2 x 5 ms netem (ping: {ping / 1e6:.3f} ms)"
    for s in STAGES:
        if s != "network":
            assert abs(b[s] - a[s]) <= OTHER_TOL_NS, \
                f"{s} median moved by {(b[s] - a[s]) / 1e6:.3f} ms (A {a}, B {b})"

    # compare A (baseline) vs B: the host recordings' stages
    cmp = ntprof_json("compare", "--stat", "p50", str(r.host.out / "host-A.ntp"),
                      str(r.host.out / "host-B.ntp"))
    assert len(cmp["groups"]) == 1, cmp["groups"]
    g = cmp["groups"][0]
    assert (g["io_type"], g["bytes"], g["present"]) == ("read", 4096, "both"), g
    assert (g["n_baseline"], g["n_new"]) == (IOS, IOS), g
    delta = {s["stage"]: s["p50"]["delta_ns"] for s in g["stages"]}
    # the application's stages only where the commands have the submission's
    # stamp: here the host guest's I/O is dispatched by a kworker (no
    # submitting thread at nvme_setup_cmd), so none is expected, but the test
    # holds either way
    app = APP_STAGES if has_app(r.host.out / "host-A.ntp") else ()
    assert set(delta) == {"block", "driver", "network_star", "e2e", *app}, delta
    print("compare p50 deltas (ns):", delta)
    # the host-only reports' own p50s, exactly; the size of the change is
    # checked above on the joined network stage: network* holds the target's
    # time too, and its median is not the medians' sum (seen: +12.2 ms when
    # the joined network grew by 10.0 ms and ping's median by 10.7 ms), so
    # here only a bound below: netem's delay can come late, never early
    star = {p: next(g for g in ntprof_json("report", str(r.host.out / f"host-{p}.ntp"))["groups"]
                    if (g["io_type"], g["bytes"]) == ("read", 4096)) for p in "AB"}
    star_p50 = {p: next(st["p50_ns"] for st in star[p]["stages"] if st["stage"] == "network_star")
                for p in "AB"}
    assert delta["network_star"] == star_p50["B"] - star_p50["A"], (delta, star_p50)
    assert delta["network_star"] >= (1 - ADDED_TOL) * ping, \
        f"compare: network* p50 changed by {delta['network_star'] / 1e6:.3f} ms, expected at least " \
        f"{(1 - ADDED_TOL) * ping / 1e6:.3f} ms (ping's median round trip grew by {ping / 1e6:.3f} ms)"
    for s in ("block", "driver"):
        assert abs(delta[s]) <= OTHER_TOL_NS, f"compare: {s} p50 changed by {delta[s] / 1e6:.3f} ms"
    # network is the stage that changed
    assert max(delta, key=lambda s: abs(delta[s]) if s not in TOTALS else -1) == "network_star", \
        delta

    # compare the joined phases (HOST,TARGET runs): the five stages, network the one that moved
    run = {p: f"{r.host.out / f'host-{p}.ntp'},{r.target.out / f'tgt-{p}.ntp'}" for p in "AB"}
    jc = ntprof_json("compare", "--stat", "p50", run["A"], run["B"])
    assert jc["kind"] == "joined" and len(jc["files"]) == 4, jc["files"]
    g, = jc["groups"]
    jd = {s["stage"]: s["p50"]["delta_ns"] for s in g["stages"]}
    want = ["submit", *STAGES, "complete", "reap", "app_e2e", "e2e"] if app else [*STAGES, "e2e"]
    assert list(jd) == want, jd
    print("joined compare p50 deltas (ns):", jd)
    # the same numbers as the two joined reports
    for s in STAGES:
        assert jd[s] == b[s] - a[s], (s, jd[s], b[s] - a[s])
    assert jc["changed_most"]["stage"] == "network", jc["changed_most"]

    slewed_clock(r)


def slewed_clock(r):
    """Phase C: the target's clock slewed while recording (its tick 3% long,
    then 3% short, a second each).  No one line of offset and drift pairs both
    clocks, so part of each side stays unpaired, and the diagnosis blames
    the clock estimate, never the network."""
    assert int(r.target.result["tgt_C_slews"]) >= 1, r.target.result
    doc = ntprof_json("report", str(r.host.out / "host-C.ntp"), str(r.target.out / "tgt-C.ntp"))
    j = doc["join"]
    d = doc["diagnosis"]["recording"]
    print("phase C join:", j, "\ndiagnosis:", d["text"], d["evidence"]["clock"])
    assert d["cause"] == "clock_doubt", d
    assert "slow_or_lossy_network" not in d["holds"], d
    for g in doc["diagnosis"]["groups"]:
        assert g["cause"] in ("clock_doubt", "insufficient_evidence"), g
