# SPDX-License-Identifier: GPL-2.0
"""The diagnosis (ntprof-report(1), DIAGNOSIS) on the cases the test bed
induces, one boot for all (guest/diagnosis.sh): each case recorded with
`ntprof record -r both -s 1` around fio, then reported here on the build
machine.  Each case's report must name the stage and the cause the issue
expects, the quiet baseline none, the slow backend storage but not
saturation; and compare of the baseline and the case names the same cause.
No time is asserted: only which rule holds, from what the recording holds.
"""
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import FULL, REPO

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
CASES = ("baseline", "slow_disk", "one_queue", "full_queue", "netem", "busy_disk", "reset",
         "cpu_hog")


def ntprof(*args):
    p = subprocess.run([str(NTPROF), *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def read4k(diag):
    """The diagnosis line of the 4 KiB reads (fio's only group)."""
    lines = [g for g in diag["groups"] if (g["io_type"], g["bytes"]) == ("read", 4096)]
    assert len(lines) == 1, diag["groups"]
    return lines[0]


def run_cases(testbed):
    r = testbed.run("tests/testbed/guest/diagnosis.sh", kernel=FULL[0], timeout=900,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    assert r.result["cases"].split() == list(CASES)
    out = Cases()
    out.result = r.result
    for c in CASES:
        assert r.result[f"{c}_rc"] == "0", (r.out / f"{c}.err").read_text()
        doc = json.loads(ntprof("report", "-j", "-", r.out / f"{c}.ntp"))
        out[c] = (r.out / f"{c}.ntp", doc["diagnosis"], read4k(doc["diagnosis"]))
    return out


class Cases(dict):
    """{case: (path, diagnosis, the 4 KiB reads' line)}; .result: the guest's results"""


def cause_of(case, cases):
    _, _, g = cases[case]
    return g["cause"], g


def baseline(cases):
    cause, g = cause_of("baseline", cases)
    # under a loaded TCG host the first case may get too few commands for a
    # tested percentile: then insufficient evidence, never a cause
    assert cause in ("none", "insufficient_evidence"), g
    if cause == "none":
        assert g["text"].endswith("no bottleneck beyond the device's own time"), g["text"]
    # the recorder wrote the queues' depth and the resets
    assert cases["baseline"][1]["sources"]["queue_depth"] is True
    assert g["evidence"]["controller_resets"] == 0


def slow_disk(cases):
    cause, g = cause_of("slow_disk", cases)
    assert g["tail_stage"]["stage"] == "storage", g
    assert cause == "backend_time", g
    assert "saturated_queue" not in g["holds"]


def one_queue(cases):
    cause, g = cause_of("one_queue", cases)
    q = g["evidence"]["host_queue"]
    assert q["name"].endswith(" q1") and q["processes"] == 2, q
    assert q["depth"] is not None and q["in_flight"] < 0.9 * q["depth"], q
    assert cause == "starved_queue", g


def full_queue(cases):
    cause, g = cause_of("full_queue", cases)
    q = g["evidence"]["host_queue"]
    assert q["depth"] == 16, q
    assert cause == "saturated_queue", g


def netem(cases):
    cause, g = cause_of("netem", cases)
    assert g["tail_stage"]["stage"] == "network", g
    assert cause == "slow_or_lossy_network", g
    assert g["evidence"]["network_p50_ns"] >= 500_000


def busy_disk(cases):
    """The backend's own counters recorded and read: storage named, the
    local job's load in the device's in-flight count against its depth.
    Under TCG the local job keeps about half the depth busy (33 of 64
    measured), short of saturation: so either cause of storage.  The local
    job also takes the guest's CPUs from the TCP path, so the network may
    lead the tail while storage leads the mean: a cause of storage needs
    storage to lead one of them."""
    cause, g = cause_of("busy_disk", cases)
    b = g["evidence"]["backend"]
    assert cases["busy_disk"][1]["sources"]["backend_stats"] is True
    assert b["measured"] is True and b["depth"] is not None and b["in_flight"] > 1, b
    assert b["name"].startswith("backend /dev/"), b
    assert "storage" in (g["tail_stage"]["stage"], g["mean_stage"]["stage"]), g
    assert cause in ("backend_time", "saturated_queue"), g
    assert (cause == "saturated_queue") == (b["in_flight"] >= 0.9 * b["depth"]), g


def reset(cases):
    """A reset the recorder saw (the controller out of "live" about a second,
    read every 100 ms): errors or retries, whatever stage leads."""
    assert cases.result["reset_state"] == "live", "the controller did not reconnect"
    cause, g = cause_of("reset", cases)
    assert g["evidence"]["controller_resets"] >= 1, g
    assert cause == "errors_or_retries", g
    assert "reset" in g["text"], g["text"]


def cpu_hog(cases):
    """One I/O queue, its io_cpu CPU 0 held by a busy loop, fio submitting from
    CPU 1: every send left to io_work, which waits for CPU 0; the host driver
    leads and the deferred sends are the cause; the recorded CPUs say why
    (submitted from CPU 1, the queue's io_cpu 0)."""
    cause, g = cause_of("cpu_hog", cases)
    s = g["evidence"]["sends"]
    assert s["deferred"] >= 0.9 * (s["deferred"] + s["inline"]), s
    # the cause, from the recorded CPUs: submitted off the queue's io_cpu
    assert s["off_io_cpu"] >= 0.9 * (s["off_io_cpu"] + s["on_io_cpu"]), s
    db = sqlite3.connect(f"file:{cases['cpu_hog'][0]}?mode=ro", uri=True)
    n, off, known = db.execute("SELECT count(*), sum(cpu != io_cpu), count(cpu != io_cpu) "
                               "FROM host_io").fetchone()
    db.close()
    assert known == n and off >= 0.9 * n, (n, off, known)
    by = json.loads(ntprof("report", "--by", "io_cpu", "-j", "-", cases["cpu_hog"][0]))["by"]
    assert [r["name"] for r in by["rows"]] == ["io_cpu 0"], by["rows"]
    assert by["total"]["off_io_cpu"] == off, by["total"]
    assert "driver" in (g["tail_stage"]["stage"], g["mean_stage"]["stage"]), g
    assert cause == "deferred_send", g


def compare_names_the_case(cases, case):
    doc = json.loads(ntprof("compare", "-j", "-", cases["baseline"][0], cases[case][0]))
    lines = [g for g in doc["diagnosis"]["groups"] if (g["io_type"], g["bytes"]) == ("read", 4096)]
    assert len(lines) == 1
    assert lines[0]["new_cause"] == cases[case][2]["cause"]
    assert lines[0]["baseline_cause"] == cases["baseline"][2]["cause"]


CHECKS = {"baseline": baseline, "slow_disk": slow_disk, "one_queue": one_queue,
          "full_queue": full_queue, "netem": netem, "busy_disk": busy_disk, "reset": reset,
          "cpu_hog": cpu_hog}


def test_diagnosis__each_case_named(testbed):
    """One boot for every case (pytest-xdist would boot once per worker for
    a module's tests): every case is checked, and every mismatch told."""
    cases = run_cases(testbed)
    failed = []
    for case, check in CHECKS.items():
        try:
            check(cases)
            if case != "baseline":
                compare_names_the_case(cases, case)
        except AssertionError as e:
            failed.append(f"{case}: {cases[case][2]['text']}: {e}")
    assert not failed, "\n".join(failed)
