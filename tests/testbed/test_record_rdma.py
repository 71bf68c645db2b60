# SPDX-License-Identifier: GPL-2.0
"""`ntprof record -t rdma` on a loopback NVMe/RDMA test bed (nvmet-rdma on
null_blk with a 2 ms completion delay, nvme-rdma over soft-RoCE), per guest
kernel, one boot each (guest/record_rdma.sh):

- `-r both -t rdma -s 1 -- fio` (4k randread, 4k randwrite, 128k write):
  every fio I/O is in the file on both sides, host and target records of one
  command pair up on their shared clock (>= 99%), the five stages add up to
  each joined command's end-to-end time; the hooks are nvme-rdma's and
  nvmet-rdma's (none of TCP's); the 128k writes, and no 4k read, carry the
  target's R2T flag (the target pulled their data with an RDMA READ);
  `ntprof report` reads the file and names the transport.
  Its final report as JSON (-j) says transport rdma and has the three groups.
- `-r target -t rdma --kprobes -i 1` alongside: kprobe/kretprobe hooks only
  (besides tracepoints); every command, exactly (kprobe mode's backstop for
  records whose kprobe the kernel skipped, bpf/target_rdma.bpf.h), joined
  with the host records of the other file; its live lines name the backend's
  three groups and count exactly the file's records; and queue-depth-1 4k
  reads whose storage stage is the 2 ms delay (ntp_checks.check_storage_qd1:
  the backend's own diskstats are the oracle on a loaded machine).
- `-r target -t rdma -s 8` and `-r host -t rdma -s 8 -- fio` of fixed
  counts, recorded apart as on two machines: each file holds exactly the
  commands today's sampling hash (bpf/ntp_hash.h) selects, about one in 8,
  every command seen and none lost; `ntprof report` and `ntprof join` pair
  at least 99% of the host's sampled commands with the target's.
- `-r host -t rdma --fentry --io-type read --size 4K` while fio issues fixed
  counts of 4k reads, 4k writes and 16k reads: exactly the 4k reads, fentry
  and fexit hooks only (besides tracepoints), live lines of that group only.
- a TCP recording joined with an RDMA one is refused (exit 10, MISMATCH),
  naming the transport.
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import KERNELS, REPO
from ntp_checks import (ntprof_doc, check_flavour, check_live_counts, check_pairs,
                        check_sampled_join, check_storage_qd1, count_fits, fio_jobs, header_int,
                        job_ios, joined, lossy, meta, open_db)

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
HASH_VERSION = header_int(REPO / "bpf" / "ntp_hash.h", "NTP_HASH_VERSION")

DELAY_NS = 2_000_000
EXIT_MISMATCH = 10                  # lib/cli/exit.h
NTP_TF_R2T = 1 << 0                 # bpf/ntp_events.h, enum ntp_target_flags
# fio job of guest/record_rdma.sh -> (opcode, bytes)
JOBS = {"r4k": (2, 4096), "w4k": (1, 4096), "w128k": (1, 131072)}
IO_TYPE = {1: "write", 2: "read"}
QD1_RUNS = (1, 2, 3)
HOST_HOOKS = {"nvme_rdma_post_send", "nvme_rdma_recv_done"}
TARGET_HOOKS = {"nvmet_rdma_queue_response"}


def hooks(db, side):
    return {r[0] for r in db.execute("SELECT hook FROM hooks WHERE side = ?", (side,))}


def check_hooks(db, what, sides):
    """The RDMA functions are hooked, and no TCP one is."""
    if "host" in sides:
        h = hooks(db, "host")
        assert HOST_HOOKS <= h, f"{what}: host hooks {sorted(h)} lack {sorted(HOST_HOOKS - h)}"
    if "target" in sides:
        t = hooks(db, "target")
        assert TARGET_HOOKS <= t, f"{what}: target hooks {sorted(t)} lack {sorted(TARGET_HOOKS - t)}"
    tcp = [tuple(r) for r in db.execute(
        "SELECT side, point, hook FROM hooks WHERE hook GLOB 'nvme_tcp_*' OR hook GLOB 'nvmet_tcp_*'")]
    assert not tcp, f"{what}: TCP hooks in an RDMA recording: {tcp}"


def intervals(db, side):
    return db.execute("SELECT sum(seen), sum(sampled), sum(lost_ringbuf) + sum(lost_map) "
                      "FROM intervals WHERE side = ?", (side,)).fetchone()


def mix_counts(db, table, where=""):
    return {(o, b): n for o, b, n in
            db.execute(f"SELECT opcode, bytes, count(*) FROM {table} {where} GROUP BY 1, 2")}


def check_rdma(r):
    res, out = r.result, r.out
    assert res["ctrl_transport"] == "rdma", res
    assert res["both_rc"] == "0", (out / "both.err").read_text()
    assert res["target_rc"] == "0", (out / "target.err").read_text()
    assert res["progs_after"] == res["progs_before"], "ntprof's programs stayed in the kernel"
    jobs = fio_jobs(out / "fio-both.json")
    fio_total = sum(job_ios(j) for j in jobs.values())
    assert fio_total > 100 and all(j["error"] == 0 for j in jobs.values()), jobs
    mix = {JOBS[name]: job_ios(j) for name, j in jobs.items()}
    err = (out / "both.err").read_text()
    assert "recording NVMe/RDMA " in err, err
    assert "'fio' exited with status 0" in err, err

    # -r both: transport rdma, RDMA hooks, every fio I/O on each side
    db = open_db(out / "both.ntp")
    m = meta(db)
    assert (m["role"], m["transport"], int(m["sample_one_in"])) == ("both", "rdma", 1), m
    assert m["kernel_release"] == res["kernel"] and m["stop_reason"] == "workload", m
    check_hooks(db, "both.ntp", ("host", "target"))
    iv = {r["side"]: dict(r) for r in db.execute(
        "SELECT side, sum(seen) AS seen, sum(sampled) AS sampled, "
        "sum(lost_ringbuf) + sum(lost_map) AS lost FROM intervals GROUP BY side")}
    assert set(iv) == {"host", "target"}, iv
    # exact, or within 1% where the kernel skipped runs of the programs (preempted: 7.x)
    loss = lossy(db)
    for side in iv.values():
        assert side["seen"] == side["sampled"] and side["lost"] == 0, (iv, fio_total)
        assert count_fits(side["seen"], fio_total, loss), (iv, fio_total)
    for table in ("host_io", "target_io"):
        got = mix_counts(db, table)
        assert count_fits(got, mix, loss), f"both.ntp {table}: {got} for fio's {mix}"
    host_rows = db.execute("SELECT count(*) FROM host_io").fetchone()[0]
    t_rows = db.execute("SELECT count(*) FROM target_io").fetchone()[0]
    assert count_fits(host_rows, fio_total, loss) and count_fits(t_rows, fio_total, loss), \
        (host_rows, t_rows, fio_total)
    pairs = joined(db)
    check_pairs(pairs, host_rows, "both.ntp")

    # RDMA READ: the target pulled every 128k write's data, no 4k read's
    r2t = {(o, b): (n, f) for o, b, n, f in db.execute(
        "SELECT opcode, bytes, count(*), sum((flags & ?) != 0 AND t_r2t_ns IS NOT NULL) "
        "FROM target_io GROUP BY 1, 2", (NTP_TF_R2T,))}
    assert r2t[(1, 131072)][1] == r2t[(1, 131072)][0] > 0, f"128k writes (count, R2T): {r2t}"
    assert r2t[(2, 4096)][1] == 0, f"4k reads with an R2T flag: {r2t}"
    bad = db.execute("SELECT count(*) FROM target_io WHERE t_r2t_ns IS NOT NULL AND NOT "
                     "(t_recv_ns <= t_r2t_ns AND t_r2t_ns <= t_submit_ns)").fetchone()[0]
    assert bad == 0, f"{bad} target records with the RDMA READ outside receive..submit"

    # the final report as JSON (-j): transport rdma, every command joined, the three groups
    doc = ntprof_doc("report", (out / "both.json").read_text())
    assert [(f["role"], f["transport"], f["sample_one_in"]) for f in doc["files"]] == \
        [("both", "rdma", 1)], doc["files"]
    assert doc["kind"] == "joined" and doc["join"]["host_commands"] == host_rows and \
        doc["join"]["target_commands"] == t_rows and doc["join"]["matched"] >= 0.99 * host_rows, \
        doc["join"]
    jgroups = {(g["io_type"], g["bytes"], g["namespace"]): g["n"] for g in doc["groups"]}
    assert set(jgroups) == {(IO_TYPE[o], b, res["dev"].removeprefix("/dev/")) for o, b in mix}, jgroups
    assert all(0.99 * mix[(2 if t == "read" else 1, b)] <= n <= mix[(2 if t == "read" else 1, b)]
               for (t, b, _), n in jgroups.items()), (jgroups, mix)

    # -r target --kprobes: the target side alone, kprobe flavours only, every
    # command exactly: the mixed job's (its region) and the queue-depth-1 runs'
    tdb = open_db(out / "target.ntp")
    tm = meta(tdb)
    assert (tm["role"], tm["transport"], tm["stop_reason"]) == ("target", "rdma", "sigint"), tm
    check_hooks(tdb, "target.ntp", ("target",))
    check_flavour(tdb, "target.ntp", "kprobes")
    sent = tdb.execute("SELECT hook, flavour FROM hooks WHERE point = 't_sent'").fetchall()
    assert [tuple(x) for x in sent] == [("nvmet_rdma_queue_response", "kprobe")], [tuple(x) for x in sent]
    assert tdb.execute("SELECT count(*) FROM host_io").fetchone()[0] == 0
    got = mix_counts(tdb, "target_io", "WHERE slba * 4096 < 200 << 20")
    assert count_fits(got, mix, lossy(tdb)), f"target.ntp: {got} for fio's {mix}"
    qd1_total = sum(job_ios(j) for i in QD1_RUNS for j in fio_jobs(out / f"fio-qd1-{i}.json").values())
    t_rows = tdb.execute("SELECT count(*) FROM target_io").fetchone()[0]
    t_seen, t_sampled, t_lost = intervals(tdb, "target")
    assert t_rows == t_seen == t_sampled and t_lost == 0 and \
        count_fits(t_rows, fio_total + qd1_total, lossy(tdb)), \
        f"target.ntp: {t_rows} records, {t_seen} seen, {t_sampled} sampled, {t_lost} lost; " \
        f"fio {fio_total} + {qd1_total}"
    # records the backstop emitted (a skipped kprobe: t_sent at the
    # nvmet_req_complete tracepoint, as t_cmpl); counted, not required
    backstop = tdb.execute("SELECT count(*) FROM target_io WHERE t_sent_ns = t_cmpl_ns").fetchone()[0]
    # its live lines: the backend's three groups, every record counted
    tlive = check_live_counts(tdb, (out / "target.out").read_text(), 2, "target_io", "device",
                              "target.ntp")
    assert set(tlive) == {(IO_TYPE[o], f"{b // 1024}KiB", res["nullb"]) for o, b in mix}, set(tlive)
    # joined with the host records of the other recorder (the two-machine way, one clock here)
    db.execute(f"ATTACH 'file:{out / 'target.ntp'}?mode=ro' AS tgt")
    cross = joined(db, "tgt")
    check_pairs(cross, host_rows, "both.ntp host x target.ntp")

    # storage at queue depth 1: the 2 ms delay (the three runs after the mixed job)
    (dev_mean, med, checked), runs = check_storage_qd1(
        tdb, out, res, [(i, (384 + 128 * i) << 20) for i in QD1_RUNS], DELAY_NS)

    # `ntprof report` on the file
    assert res["both_report_rc"] == "0", (out / "both.report.err").read_text()
    report = (out / "both.report").read_text()
    assert re.search(r"^#\s+transport:\s+rdma$", report, re.M), report[:2000]

    print(f"\nrdma {res['kernel']}: fio {fio_total} I/Os {mix}; host_io {host_rows}, target_io "
          f"{host_rows}; joined {len(pairs)}/{host_rows} ({100 * len(pairs) / host_rows:.2f}%), "
          f"x target.ntp {len(cross)}/{host_rows}; 128k R2T {r2t[(1, 131072)]}; target.ntp "
          f"(--kprobes) {t_rows} records, {backstop} by the backstop, "
          f"{sum(len(v) for v in tlive.values())} live lines; "
          f"qd1 storage (backend mean, mean, median) ms: "
          + ", ".join(f"({d / 1e6:.3f}, {mn / 1e6:.3f}, {md / 1e6:.3f})" for d, mn, md in runs)
          + f"; best median {med / 1e6:.3f} ms {'checked' if checked else 'NOT checked'}; "
          f"record -- fio {res['both_wall_s']} s; boot {r.wall_s:.0f} s")


def check_filter(r):
    """--io-type read --size 4K (and --fentry): exactly fio's 4k reads."""
    res, out = r.result, r.out
    assert res["filt_host_rc"] == "0", (out / "filt_host.err").read_text()
    jobs = fio_jobs(out / "fio-filt.json")
    ios = {name: job_ios(j) for name, j in jobs.items()}
    assert ios == {"keep4k": 512, "write4k": 256, "read16k": 128}, ios
    db = open_db(out / "filt_host.ntp")
    m = meta(db)
    assert (m["role"], m["transport"], m["filter_io_type"], m["filter_sizes"]) == \
        ("host", "rdma", "read", "4096"), m
    check_hooks(db, "filt_host.ntp", ("host",))
    check_flavour(db, "filt_host.ntp", "fentry")
    ns = res["dev"].removeprefix("/dev/")
    rows = [tuple(x) for x in db.execute(
        "SELECT namespace, opcode, bytes, count(*) FROM host_io GROUP BY 1, 2, 3")]
    assert [r[:3] for r in rows] == [(ns, 2, 4096)] and count_fits(rows[0][3], ios["keep4k"], lossy(db)), \
        f"filt_host.ntp: {rows} for fio's {ios}"
    # seen: every command of the three jobs; sampled: the kept ones
    seen, sampled, lost = intervals(db, "host")
    assert lost == 0 and count_fits(seen, sum(ios.values()), lossy(db)) and \
        count_fits(sampled, ios["keep4k"], lossy(db)), (seen, sampled, lost)
    live = check_live_counts(db, (out / "filt_host.out").read_text(), 3, "host_io", "namespace",
                             "filt_host.ntp")
    assert set(live) == {("read", "4KiB", ns)}, set(live)
    # a host recording has no target side: the network share is marked
    assert all(line["cols"][2].endswith("%*") for line in live[("read", "4KiB", ns)])
    print(f"filter {res['kernel']}: {ios['keep4k']} of {sum(ios.values())} kept, "
          f"{len(live[('read', '4KiB', ns)])} live lines")


def check_mismatch(r):
    """A TCP host recording joined with the RDMA ones: refused, by transport."""
    res, out = r.result, r.out
    assert res["tcp_ctrl_transport"] == "tcp", res
    assert res["host_tcp_rc"] == "0", (out / "host_tcp.err").read_text()
    db = open_db(out / "host_tcp.ntp")
    assert (meta(db)["transport"], meta(db)["role"]) == ("tcp", "host")
    ios = sum(job_ios(j) for j in fio_jobs(out / "fio-tcp.json").values())
    assert ios == 128 and count_fits(db.execute("SELECT count(*) FROM host_io").fetchone()[0], ios,
                                     lossy(db))
    for files in (("host_tcp.ntp", "target.ntp"), ("both.ntp", "host_tcp.ntp")):
        p = subprocess.run([str(NTPROF), "report", *(str(out / f) for f in files)],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == EXIT_MISMATCH, (files, p.returncode, p.stderr)
        assert p.stdout == "" and len(p.stderr.splitlines()) == 1, (files, p.stdout, p.stderr)
        assert "transport" in p.stderr and "tcp" in p.stderr and "rdma" in p.stderr, p.stderr


@pytest.mark.parametrize("kernel", KERNELS)
def test_record_rdma(testbed, kernel):
    if not NTPROF.is_file():
        pytest.fail(f"{NTPROF} missing: build ntprof (make) first", pytrace=False)
    r = testbed.run("tests/testbed/guest/record_rdma.sh", kernel=kernel, timeout=480,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    assert r.result["kernel"].startswith(kernel + "."), r.result["kernel"]
    assert r.result.get("rdma_done") == "1", r.describe()
    check_rdma(r)
    check_sampled_join(NTPROF, r.out, r.result, "rdma", 8, HASH_VERSION)
    check_filter(r)
    check_mismatch(r)
