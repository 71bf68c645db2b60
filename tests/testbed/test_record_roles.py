# SPDX-License-Identifier: GPL-2.0
"""`ntprof record -r target`, `-r both`, `-- COMMAND`, the live lines and the
filters on a loopback NVMe/TCP test bed, per guest kernel, one boot each
(guest/record_roles.sh):

- roles: a target on null_blk with a 2 ms completion delay; a `-r target`
  recorder in the background and `-r both -s 1 -- fio` (4k randread, 4k
  randwrite, 128k write) that stops when fio exits.  Every fio I/O is in both
  files (-s 1, fio runs between attach and stop); host and target records of
  one command pair up on their shared clock (>= 99%); the five stages add up
  to each joined command's end-to-end time; the live lines name the three
  groups, fill every column, count what was recorded and fio's I/Os, and
  give each line's own rate; record's final report is `ntprof report` on
  the file, and the file's joined_stages view (the pairing record wrote
  into it) holds the report's joined commands.  At queue depth 1 the
  storage stage's median is the 2 ms delay (within 20%, the least disturbed
  of three runs: a loaded build machine delays the guest's timers).
- filters: --session A --io-type read --size 4K,8K while fio issues I/Os that
  each fail exactly one filter (another namespace, a write, a 16k read): the
  recording holds exactly the kept commands, of both multipath paths, on the
  host (-r host) and on the target (-r both).  A path disk or an unknown name
  for --session is refused (exit 2) before anything is loaded.
- names: the nvmf_ids rows of both.ntp (host and target) and target.ntp
  (target) are what sysfs and configfs said while they recorded: every
  host controller with its subsystem NQN, cntlid, transport, address,
  service id, source address and host NQN; every subsystem, namespace
  (with its device) and port (with its address and linked subsystem).
- sampled: `-r target -s 8` and `-r host -s 8 -- fio` of fixed counts,
  recorded apart as on two machines: each file holds exactly the commands
  today's sampling hash (bpf/ntp_hash.h) selects, about one in 8, every
  command seen and none lost; `ntprof report` and `ntprof join` pair at
  least 99% of the host's sampled commands with the target's.
- --kprobes (the target recorder, the host filter run) and --fentry (the
  -r both filter run): the hooks got only the forced flavour's programs
  (besides tracepoints), and the checks above hold with them.
"""
import os
from pathlib import Path

import pytest

from conftest import KERNELS, REPO
from analysis_checks import check_histograms, check_series
from ntp_checks import (check_flavour, check_pairs, check_sampled_join, check_storage_qd1,
                        count_fits, fio_jobs, header_int, job_ios, joined, lossy, meta, open_db,
                        parse_live, rate_value)

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
HASH_VERSION = header_int(REPO / "bpf" / "ntp_hash.h", "NTP_HASH_VERSION")

DELAY_NS = 2_000_000
# fio job of guest/record_roles.sh -> the live/report group's (io_type, size)
BOTH_JOBS = {"r4k": ("read", "4KiB", 2, 4096), "w4k": ("write", "4KiB", 1, 4096),
             "w128k": ("write", "128KiB", 1, 131072)}


def check_roles(r, kernel):
    res, out = r.result, r.out
    assert res["both_rc"] == "0", (out / "both.err").read_text()
    assert res["target_rc"] == "0", (out / "target.err").read_text()
    assert int(res["roles_progs_left"]) == 0, "ntprof's programs stayed in the kernel"
    ns = res["ns"]
    jobs = fio_jobs(out / "fio-both.json")
    fio_total = sum(job_ios(j) for j in jobs.values())
    assert fio_total > 100, jobs
    mix = {(BOTH_JOBS[name][2], BOTH_JOBS[name][3]): job_ios(j) for name, j in jobs.items()}

    # -r both: role both, both sides' hooks and intervals, every fio I/O on each side
    db = open_db(out / "both.ntp")
    m = meta(db)
    assert m["role"] == "both" and m["transport"] == "tcp" and int(m["sample_one_in"]) == 1
    assert m["kernel_release"] == res["kernel"]
    # -- fio: recording stopped when fio exited, and said how it ended
    assert m["stop_reason"] == "workload", m
    assert "'fio' exited with status 0" in (out / "both.err").read_text()
    assert int(m["duration_ns"]) < (max(j["job_runtime"] for j in jobs.values()) / 1e3 + 15) * 1e9
    sides = dict(db.execute("SELECT side, count(*) FROM hooks GROUP BY side").fetchall())
    assert sides == {"host": 10, "target": 5}, sides
    iv = {r["side"]: dict(r) for r in db.execute(
        "SELECT side, sum(seen) AS seen, sum(sampled) AS sampled, "
        "sum(lost_ringbuf) + sum(lost_map) AS lost FROM intervals GROUP BY side")}
    assert set(iv) == {"host", "target"}, iv
    # exact, or within 1% where the kernel skipped runs of the programs (preempted: 7.x)
    for side in iv.values():
        assert side["seen"] == side["sampled"] and side["lost"] == 0, iv
        assert count_fits(side["seen"], fio_total, lossy(db)), (iv, fio_total)
    for table in ("host_io", "target_io"):
        got = {(o, b): n for o, b, n in
               db.execute(f"SELECT opcode, bytes, count(*) FROM {table} GROUP BY 1, 2")}
        assert count_fits(got, mix, lossy(db)), f"{table}: {got} for fio's {mix}"
    host_rows = db.execute("SELECT count(*) FROM host_io").fetchone()[0]
    pairs = joined(db)
    check_pairs(pairs, host_rows, "both.ntp")

    # -r target: the target side alone, the same commands
    tdb = open_db(out / "target.ntp")
    tm = meta(tdb)
    assert tm["role"] == "target" and tm["stop_reason"] == "sigint", tm
    assert dict(tdb.execute("SELECT side, count(*) FROM hooks GROUP BY side").fetchall()) == {"target": 5}
    assert [r[0] for r in tdb.execute("SELECT DISTINCT side FROM intervals")] == ["target"]
    assert tdb.execute("SELECT count(*) FROM host_io").fetchone()[0] == 0
    got = {(o, b): n for o, b, n in tdb.execute(
        "SELECT opcode, bytes, count(*) FROM target_io WHERE slba * 4096 < 200 << 20 GROUP BY 1, 2")}
    assert count_fits(got, mix, lossy(tdb)), f"target.ntp: {got} for fio's {mix}"
    # every command's backend times, where a completion kprobe the kernel skipped
    # (nested in one of ours) is timed at its tracepoint (bpf/target.bpf.c: cmpl_tp)
    no_cmpl = tdb.execute("SELECT count(*) FROM target_io WHERE t_submit_ns IS NULL "
                          "OR t_cmpl_ns IS NULL OR t_cmpl_ns < t_submit_ns").fetchone()[0]
    assert no_cmpl == 0, f"target.ntp (--kprobes): {no_cmpl} commands without t_submit <= t_cmpl"
    # joined with the host records of the other recorder (the two-machine way, one clock here)
    db.execute(f"ATTACH 'file:{out / 'target.ntp'}?mode=ro' AS tgt")
    check_pairs(joined(db, "tgt"), host_rows, "both.ntp host x target.ntp")

    # storage at queue depth 1 (the three runs after the mixed job, by region;
    # ntp_checks.check_storage_qd1 says how a loaded machine is handled)
    check_storage_qd1(tdb, out, res, [(i, (384 + 128 * i) << 20) for i in (1, 2, 3)], DELAY_NS)
    # the flavour forced with --kprobes
    check_flavour(tdb, "target.ntp", "kprobes")
    # its live lines: the backend's groups, target columns only, every command counted
    dev = tdb.execute("SELECT DISTINCT device FROM target_io").fetchall()
    assert len(dev) == 1 and dev[0][0] == res["nullb"], dev
    tlive = parse_live((out / "target.out").read_text(), shares=2)
    counts = {(("write", "read")[o - 1], size, res["nullb"]): n for o, size, n in tdb.execute(
        "SELECT opcode, CASE bytes WHEN 4096 THEN '4KiB' ELSE (bytes / 1024) || 'KiB' END, "
        "count(*) FROM target_io GROUP BY 1, 2")}
    assert {g: sum(line["n"] for line in lines) for g, lines in tlive.items()} == counts

    # the live lines: the three groups, every column, counts and rates
    text = (out / "both.out").read_text()
    live = parse_live(text, shares=5)
    want = {(t, size, ns) for t, size, _, _ in BOTH_JOBS.values()}
    assert set(live) == want, f"live groups {set(live)}, expected {want}"
    group_of = {(op, nbytes): (t, size, ns) for t, size, op, nbytes in BOTH_JOBS.values()}
    ticks = sorted({line["t"] for lines in live.values() for line in lines})
    joined_per_group = {}
    for p in pairs:
        g = group_of[(p["opcode"], p["bytes"])]
        joined_per_group[g] = joined_per_group.get(g, 0) + 1
    for name, job in jobs.items():
        t, size, _, _ = BOTH_JOBS[name]
        lines = live[(t, size, ns)]
        assert all(not c.endswith("*") for line in lines for c in line["cols"]), lines
        n = sum(line["n"] for line in lines)
        # the live matcher pairs exactly what the file's join pairs, at -s 1
        assert n == joined_per_group[(t, size, ns)], (name, n, joined_per_group)
        assert 0.99 * job_ios(job) <= n <= job_ios(job), (name, n, job_ios(job))
        for line in lines:
            # p99 "-" on a line of fewer than the 100 commands it needs (ntp_checks.parse_live)
            assert line["mean"] > 0, line
            assert (line["p99"] >= line["mean"]) if line["n"] >= 100 else line["p99"] is None, line
        # each line's rate is its count over its interval, the time since the
        # previous tick: the ticks are printed to 0.1 s, so the interval was
        # within 0.1 s of their difference (a last, short interval: 0.24 s
        # printed as 0.3 s); fio's own rate is not compared: a short job's
        # rate under TCG is mostly its edges (seen 45/s against fio's 11/s),
        # a wall-clock assertion; the count against fio's is exact
        for line in lines:
            j = ticks.index(line["t"])
            if j:
                dt = ticks[j] - ticks[j - 1]
                lo, hi = line["n"] / (dt + 0.1), line["n"] / max(dt - 0.1, 0.01)
                assert 0.99 * lo - 1 <= rate_value(line["rate"]) <= 1.01 * hi + 1, (line, dt)

    # the final report is `ntprof report` on the saved file
    assert res["both_report_rc"] == "0", (out / "both.report.err").read_text()
    report = (out / "both.report").read_text()
    assert report.strip() and text.endswith(report), "record's final report differs from ntprof report's"
    # record wrote the join's pairing into the file (ntprof-ntp(5), JOINED
    # RECORDINGS): joined_stages is the report's join, by plain SQL
    assert "joined_stages" not in (out / "both.err").read_text()
    (clock, matched), = db.execute("SELECT clock, matched FROM join_clock").fetchall()
    assert clock == "one recording"
    assert f"# commands matched:  {matched} " in report, (matched, report[:2000])
    view = {tuple(r)[0]: tuple(r)[1:] for r in db.execute(
        "SELECT host_id, target_id, block_ns, driver_ns, network_ns, target_driver_ns,"
        " storage_ns FROM joined_stages")}
    assert len(view) == matched
    same = sum(view.get(p["hid"]) == (p["tid"], p["block"], p["driver"], p["network"],
                                      p["target_driver"], p["storage"]) for p in pairs)
    assert same >= 0.99 * len(pairs), (same, len(pairs))
    # a command that cannot run: one error line, record's failure
    err = (out / "noexec.err").read_text()
    assert res["noexec_rc"] == "1", err
    assert "cannot run '/nonexistent/ntprof-test-cmd'" in err, err

    # report --histogram and series on the real recordings (analysis_checks.py):
    # joined (-r both) for consistency, the target alone against SQL
    doc = check_histograms(NTPROF, [out / "both.ntp"])
    check_series(NTPROF, [out / "both.ntp"], doc)
    doc = check_histograms(NTPROF, [out / "target.ntp"], target_alone=True)
    check_series(NTPROF, [out / "target.ntp"], doc, target_alone=True)


def check_filters(r):
    res, out = r.result, r.out
    ns_a, ns_b = res["filt_ns_a"], res["filt_ns_b"]
    paths = set(res["filt_paths"].split())
    assert len(paths) == 2, paths
    assert int(res["filt_progs_left"]) == 0
    jobs = fio_jobs(out / "fio-filt.json")
    keep = job_ios(jobs["keep4k"]) + job_ios(jobs["keep8k"])
    assert keep == 512 + 256, jobs
    for name in ("filt_host", "filt_both"):
        assert res[f"{name}_rc"] == "0", (out / f"{name}.err").read_text()
        db = open_db(out / f"{name}.ntp")
        m = meta(db)
        assert (m["filter_session"], m["filter_io_type"], m["filter_sizes"]) == (ns_a, "read", "4096,8192"), m
        rows = db.execute("SELECT namespace, path, opcode, bytes, count(*) FROM host_io "
                          "GROUP BY 1, 2, 3, 4").fetchall()
        assert {(r[0], r[2], r[3]) for r in rows} == {(ns_a, 2, 4096), (ns_a, 2, 8192)}, rows
        # every kept command, of both paths; none of another namespace, a write or a 16k read
        assert count_fits(sum(r[4] for r in rows), keep, lossy(db)), [tuple(r) for r in rows]
        assert {r[1] for r in rows} == paths, f"paths {set(r[1] for r in rows)}, expected {paths}"
        check_flavour(db, name, "kprobes" if name == "filt_host" else "fentry")
        if name == "filt_both":
            t = db.execute("SELECT device, opcode, bytes, count(*) FROM target_io GROUP BY 1, 2, 3").fetchall()
            assert len({r[0] for r in t}) == 1 and {(r[1], r[2]) for r in t} == {(2, 4096), (2, 8192)}, t
            assert count_fits(sum(r[3] for r in t), keep, lossy(db)), [tuple(r) for r in t]
            check_pairs(joined(db), keep, "filt_both.ntp")
    # host live lines: only the kept groups, network* marked, target columns empty
    live = parse_live((out / "filt_host.out").read_text(), shares=3)
    assert set(live) == {("read", "4KiB", ns_a), ("read", "8KiB", ns_a)}, set(live)
    for lines in live.values():
        assert all(line["cols"][2].endswith("%*") for line in lines), lines
    assert count_fits(sum(line["n"] for lines in live.values() for line in lines), keep,
                      lossy(open_db(out / "filt_host.ntp")))
    assert ns_b != ns_a
    # refused before anything is loaded
    for name, why in (("badpath", "one path of the namespace"), ("badns", "no such namespace")):
        err = (out / f"{name}.err").read_text()
        assert res[f"{name}_rc"] == "2", err
        assert len(err.splitlines()) == 1 and "'--session'" in err and why in err, err


def sysfs_ids(path):
    """ids-sysfs.txt (guest/record_roles.sh) as the rows nvmf_ids must hold, by side"""
    host, target = set(), set()
    for line in path.read_text().splitlines():
        f = line.split("\t")
        if f[0] == "host":
            name, nqn, cntlid, transport, address, hostnqn = f[1:]
            addr = dict(kv.split("=", 1) for kv in address.split(","))
            host.add(("controller", name, nqn, int(cntlid), None, None, transport,
                      addr["traddr"], addr["trsvcid"], addr.get("src_addr", addr.get("host_traddr")),
                      hostnqn, None))
        elif f[0] == "subsystem":
            target.add(("subsystem", f[1], f[1], None, None, None, None, None, None, None, None,
                        None))
        elif f[0] == "namespace":
            target.add(("namespace", f[2], f[1], None, int(f[2]), None, None, None, None, None,
                        None, f[3]))
        elif f[0] == "port":
            target.add(("port", f[1], f[5], None, None, f[1], f[2], f[3], f[4], None, None, None))
    return host, target


def check_ids(r):
    host, target = sysfs_ids(r.out / "ids-sysfs.txt")
    assert any(h[6] == "tcp" for h in host), host
    assert any(t[0] == "port" for t in target) and any(t[0] == "namespace" for t in target), target
    cols = ("object, name, subsysnqn, cntlid, nsid, port, transport, traddr, trsvcid, "
            "host_traddr, hostnqn, device")
    for name, sides in (("both", {"host": host, "target": target}), ("target", {"target": target})):
        db = open_db(r.out / f"{name}.ntp")
        got = {}
        for side, *row in db.execute(f"SELECT side, {cols} FROM nvmf_ids"):
            got.setdefault(side, []).append(tuple(row))
        for side, rows in got.items():
            assert len(rows) == len(set(rows)), f"{name}.ntp: a row twice: {rows}"
        got = {side: set(rows) for side, rows in got.items()}
        assert got == sides, f"{name}.ntp: nvmf_ids {got}, sysfs and configfs {sides}"


@pytest.mark.parametrize("kernel", KERNELS)
def test_record_roles(testbed, kernel):
    if not NTPROF.is_file():
        pytest.fail(f"{NTPROF} missing: build ntprof (make) first", pytrace=False)
    r = testbed.run("tests/testbed/guest/record_roles.sh", kernel=kernel, timeout=480,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    assert r.result["kernel"].startswith(kernel + "."), r.result["kernel"]
    check_roles(r, kernel)
    check_ids(r)
    check_sampled_join(NTPROF, r.out, r.result, "tcp", 8, HASH_VERSION)
    check_filters(r)
