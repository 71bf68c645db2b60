# SPDX-License-Identifier: GPL-2.0
"""Checks on .ntp recordings made in a test bed guest, shared by the record
tests (test_record_roles.py, test_record_rdma.py): reading the files and fio's
JSON, the host x target join on one clock, the five stages, the live lines,
the hook flavours and the storage stage at queue depth 1 against the
backend's own diskstats, the sampling hash's choice on both sides."""
import json
import math
import re
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

# the JSON Schemas' check, shared with the integration tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
import json_schema  # noqa: E402

KEY = "cid, slba, nlb, qid, cntlid, opcode, nsid"
M64 = (1 << 64) - 1
STAGES = ("block", "driver", "network", "target_driver", "storage")
LINE = re.compile(r"^\s*(\d+\.\d)s\s+(read|write|other) (\S+) (\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)(.*)$")


def cmd_hash(cid, slba, nlb0):
    """bpf/ntp_hash.h's ntp_cmd_hash (version 3), as the tests' oracle."""
    return ((slba ^ (((cid | nlb0 << 16) * 0x9e3779b97f4a7c15) & M64)) * 0xbf58476d1ce4e5b9) & M64


def hash_sampled(h, one_in):
    """ntp_hash_sampled(h, ntp_hash_limit(one_in))"""
    return one_in <= 1 or h <= M64 // one_in


def header_int(path, name):
    """a #define's integer value in a C header"""
    m = re.search(rf"^#define {name} (\d+)$", Path(path).read_text(), re.M)
    assert m, f"{name} not in {path}"
    return int(m.group(1))


def open_db(path):
    assert path.exists(), f"no recording {path}"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def meta(db):
    return {r["key"]: r["value"] for r in db.execute("SELECT key, value FROM meta")}


def ntprof_doc(cmd, text):
    """A report -j (or record -j) or compare -j document, held to its schema."""
    doc = json.loads(text)
    json_schema.validate(cmd, doc)
    return doc


def lossy(db):
    """The recording says the kernel skipped runs of its programs (meta
    host_prog_missed, target_prog_missed): a program preempted mid-run on a
    kernel that preempts them (7.x), or interrupted.  A skipped decision is a
    command not seen, a skipped completion one not recorded (ntprof-ntp(5))."""
    m = meta(db)
    return any(int(m.get(k, 0)) > 0 for k in ("host_prog_missed", "target_prog_missed"))


def count_fits(got, want, is_lossy):
    """A count of commands (or a dict of them, per group) against fio's: exact,
    or, where the recording says the kernel skipped runs of its programs, no
    group above fio's and the sum within 1% below."""
    if isinstance(want, dict):
        return set(got) == set(want) and all(got[k] <= want[k] for k in want) and \
            count_fits(sum(got.values()), sum(want.values()), is_lossy)
    return got == want or (is_lossy and 0.99 * want <= got <= want)


def fio_jobs(path):
    doc = json.loads(path.read_text())
    return {j["jobname"]: j for j in doc["jobs"]}


def job_ios(job):
    return job["read"]["total_ios"] + job["write"]["total_ios"]


def joined(host_db, target_schema="main"):
    """Host and target records of one command, on one clock: the same key, and
    the target received it while the host had it in flight."""
    return host_db.execute(f"""
        SELECT h.id AS hid, t.id AS tid, h.opcode, h.bytes,
               hs.e2e_ns AS e2e, hs.block_ns AS block, hs.driver_ns AS driver,
               hs.network_star_ns - ts.residence_ns AS network,
               ts.target_driver_ns AS target_driver, ts.storage_ns AS storage,
               h.h_queue_ns <= t.t_recv_ns AND t.t_sent_ns <= h.h_done_ns AS causal
        FROM host_io h JOIN {target_schema}.target_io t USING ({KEY})
        JOIN host_stages hs ON hs.id = h.id JOIN {target_schema}.target_stages ts ON ts.id = t.id
        WHERE t.t_recv_ns BETWEEN h.h_queue_ns AND COALESCE(h.h_recv_ns, h.h_done_ns)
        """).fetchall()


def check_pairs(pairs, host_rows, what):
    assert len({p["hid"] for p in pairs}) == len(pairs), f"{what}: a host record paired twice"
    assert len({p["tid"] for p in pairs}) == len(pairs), f"{what}: a target record paired twice"
    assert len(pairs) >= 0.99 * host_rows, f"{what}: {len(pairs)} of {host_rows} host records joined"
    # the five stages add up to end-to-end, command by command
    bad = [dict(p) for p in pairs if sum(p[s] for s in STAGES) != p["e2e"] or p["e2e"] <= 0]
    assert not bad, f"{what}: stages that do not add up: {bad[:3]}"
    # and (hooks in order) none is negative and the target's record lies within
    # the host's flight, but for a rare one: on loopback an exit hook of the
    # sending side may fire after the peer already took the bytes (a thread
    # preempted between the send and the return)
    odd = [dict(p) for p in pairs if min(p[s] for s in STAGES) < 0 or not p["causal"]]
    assert len(odd) <= max(2, 0.01 * len(pairs)), \
        f"{what}: {len(odd)} joined commands with a negative stage or out of flight: {odd[:3]}"


def parse_live(text, shares):
    """The live lines of record's stdout: {(io_type, size, name): [line dicts]}."""
    groups = {}
    for line in text.splitlines():
        if line.startswith("#"):
            break           # the report begins
        m = LINE.match(line)
        if not m:
            continue
        cols = m.group(9).split()
        # then the application's end-to-end mean, when the line's commands have it
        app = float(cols.pop()) if len(cols) == shares + 1 else None
        assert len(cols) == shares, f"expected {shares} share columns: {line!r}"
        pct = [int(c.rstrip("*").rstrip("%")) for c in cols]
        assert sum(pct) == 100, f"shares do not add up to 100: {line!r}"
        groups.setdefault((m.group(2), m.group(3), m.group(4)), []).append(
            {"t": float(m.group(1)), "n": int(m.group(5)), "rate": m.group(6), "cols": cols,
             "mean": float(m.group(7)),
             # "-": fewer than the 100 commands a p99 needs (it would be their maximum)
             "p99": None if m.group(8) == "-" else float(m.group(8)), "app": app})
    return groups


def size_label(nbytes):
    """A live line's size column: 4096 -> 4KiB."""
    return f"{nbytes // 1024}KiB" if nbytes % 1024 == 0 else f"{nbytes}B"


def live_counts(db, table, name_col):
    """What the live lines must add up to, from the file: {(io_type, size, name): n}
    over every record of `table` (host_io by namespace, target_io by device)."""
    io_type = {1: "write", 2: "read"}
    return {(io_type.get(o, "other"), size_label(b), name): n for o, b, name, n in db.execute(
        f"SELECT opcode, bytes, {name_col}, count(*) FROM {table} GROUP BY 1, 2, 3")}


def check_live_counts(db, text, shares, table, name_col, what):
    """The live lines of record's stdout `text` name exactly the file's groups,
    and each group's lines count exactly its records.  Returns parse_live's dict."""
    live = parse_live(text, shares)
    want = live_counts(db, table, name_col)
    got = {g: sum(line["n"] for line in lines) for g, lines in live.items()}
    assert got == want, f"{what}: live lines count {got}, the file {want}"
    for lines in live.values():
        for line in lines:
            assert line["mean"] > 0, f"{what}: {line}"
            assert (line["p99"] > 0) if line["n"] >= 100 else line["p99"] is None, \
                f"{what}: {line}"
    return live


def rate_value(s):
    mult = {"k": 1e3, "M": 1e6}.get(s[-1], 1)
    return float(s.rstrip("kM")) * mult


# hooks table flavours that are no function hook: a tracepoint, a time read
# from the kernel's own fields, a point the transport does not have
NOT_FUNCTION_HOOKS = {"tp_btf", "raw_tp", "derived", "none"}


def check_flavour(db, what, flavour, side=None):
    """--kprobes / --fentry: every function hook (of `side`, or all) got the
    forced flavour; besides them only tracepoints and the like."""
    wanted = {"kprobes": {"kprobe", "kretprobe"}, "fentry": {"fentry", "fexit"}}[flavour]
    rows = db.execute("SELECT side, point, hook, flavour FROM hooks WHERE ? IS NULL OR side = ?",
                      (side, side)).fetchall()
    got = {r["flavour"] for r in rows}
    bad = [tuple(r) for r in rows if r["flavour"] not in wanted | NOT_FUNCTION_HOOKS]
    assert not bad and got & wanted, f"{what} --{flavour}: hooks of other flavours {bad} (all: {got})"


def check_storage_qd1(tdb, out, res, regions, delay_ns, ios_each=256):
    """The storage stage of queue-depth-1 4k reads in a target recording
    `tdb`, one run per (i, first byte) of `regions` (1 MiB each, fio's
    fio-qd1-<i>.json, the backend's diskstats qd1_<i>_dev_reads/_dev_ms).

    The null_blk delay is a floor no command beats.  The mean is the
    backend's own (its diskstats: per-request nanoseconds, summed): in every
    run not under it by more than 10% (the stage holds the backend's time),
    and within 10% in at least one run.  Only there, not in every run: the
    stage also holds the bio's way into and out of the block layer, where a
    stalled QEMU on a loaded build machine adds, now and then, a 70-190 ms
    outlier the backend never sees (seen: 4.48 ms against the backend's 3.69).
    In the least disturbed run (the lowest mean of the backend's own), if that
    mean stayed under 1.75 x the delay, the median is the delay within 20%.
    Under TCG a loaded build machine stretches the guest's timers: a tail of
    late completions, in the backend's own numbers too.

    Returns (backend's mean, median, median checked) of that run, and every
    run's (backend's mean, mean, median), in nanoseconds."""
    runs = []
    for i, lo in regions:
        storage = [r[0] for r in tdb.execute(
            "SELECT s.storage_ns FROM target_stages s JOIN target_io t USING (id) "
            "WHERE t.slba * 4096 >= ? AND t.slba * 4096 < ?", (lo, lo + (1 << 20)))]
        ios = sum(job_ios(j) for j in fio_jobs(out / f"fio-qd1-{i}.json").values())
        assert ios == int(res[f"qd1_{i}_dev_reads"]) == ios_each, (i, ios)
        assert count_fits(len(storage), ios, lossy(tdb)), (i, len(storage), ios)
        assert min(storage) >= 0.95 * delay_ns, f"a storage time of {min(storage)} ns under the 2 ms delay"
        dev_mean = int(res[f"qd1_{i}_dev_ms"]) * 1e6 / ios
        mean = statistics.mean(storage)
        assert mean >= 0.9 * dev_mean, \
            f"run {i}: storage mean {mean / 1e6:.3f} ms, under the backend's own {dev_mean / 1e6:.3f} ms"
        runs.append((dev_mean, statistics.median(storage), mean))
    close = [abs(m - d) <= 0.1 * d for d, _, m in runs]
    assert any(close), "no run's storage mean within 10% of the backend's own (ms): " + \
        ", ".join(f"{m / 1e6:.3f} vs {d / 1e6:.3f}" for d, _, m in runs)
    dev_mean, med, _ = min(runs)
    checked = dev_mean <= 1.75 * delay_ns
    if checked:
        assert abs(med - delay_ns) <= 0.2 * delay_ns, \
            f"storage median {med / 1e6:.3f} ms for a 2 ms delay (backend's mean {dev_mean / 1e6:.3f} ms)"
    else:
        print(f"storage median not checked: the backend itself averaged {dev_mean / 1e6:.3f} ms")
    return (dev_mean, med, checked), [(d, m, md) for d, md, m in runs]


# the fixed counts of guest/lib.sh's tb_record_sampled: 1024 + 512 + 64 I/Os
SAMPLED_MIX = {(2, 4096): 1024, (1, 4096): 512, (1, 131072): 64}
SAMPLED_JOBS = {"r4k": (2, 4096), "w4k": (1, 4096), "w128k": (1, 131072)}


def check_sampled_join(ntprof, out, res, transport, one_in, hash_version):
    """samp_host.ntp and samp_target.ntp, recorded apart at -s one_in
    (tb_record_sampled): each side holds exactly the commands the sampling
    hash of that version selects, about one in one_in of fio's, and the two
    files join (ntprof report and ntprof join, as two machines' files are)
    on at least 99% of the host's sampled commands."""
    for name in ("samp_host", "samp_target"):
        assert res[f"{name}_rc"] == "0", (out / f"{name}.err").read_text()
    fio = {SAMPLED_JOBS[name]: job_ios(j) for name, j in fio_jobs(out / "fio-samp.json").items()}
    assert fio == SAMPLED_MIX, fio
    fio_total = sum(fio.values())
    rows = {}
    for side, table in (("host", "host_io"), ("target", "target_io")):
        db = open_db(out / f"samp_{side}.ntp")
        m = meta(db)
        assert (m["role"], m["transport"]) == (side, transport), m
        assert (int(m["sample_one_in"]), int(m["hash_version"])) == (one_in, hash_version), m
        iv = db.execute("SELECT sum(seen), sum(sampled), sum(lost_ringbuf) + sum(lost_map) "
                        f"FROM intervals WHERE side = '{side}'").fetchone()
        keys = db.execute(f"SELECT cid, slba, nlb, opcode, bytes FROM {table}").fetchall()
        # every command seen, none lost, and exactly the ones the hash selects
        assert count_fits(iv[0], fio_total, lossy(db)), (side, tuple(iv), fio_total)
        assert iv[1] == len(keys) and iv[2] == 0, (side, tuple(iv), len(keys))
        off = [tuple(k) for k in keys if not hash_sampled(cmd_hash(k[0], k[1], k[2] - 1), one_in)]
        assert not off, f"samp_{side}.ntp: {len(off)} commands the hash does not select: {off[:3]}"
        assert {(k[3], k[4]) for k in keys} <= set(SAMPLED_MIX), side
        rows[side] = len(keys)
        # about one in one_in of fio's: binomial, 5 standard deviations
        mean, sd = fio_total / one_in, math.sqrt(fio_total / one_in * (1 - 1 / one_in))
        assert mean - 5 * sd <= len(keys) <= mean + 5 * sd, f"{side}: {len(keys)} of {fio_total}"
    # both sides chose the same commands: on one clock, key by key
    hdb = open_db(out / "samp_host.ntp")
    hdb.execute(f"ATTACH 'file:{out / 'samp_target.ntp'}?mode=ro' AS tgt")
    check_pairs(joined(hdb, "tgt"), rows["host"], "samp_host.ntp x samp_target.ntp")
    # and ntprof joins them as it joins two machines' files
    p = subprocess.run([str(ntprof), "report", "-j", "-", str(out / "samp_host.ntp"),
                        str(out / "samp_target.ntp")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    j = ntprof_doc("report", p.stdout)["join"]
    assert (j["host_commands"], j["target_commands"]) == (rows["host"], rows["target"]), j
    assert j["matched"] >= 0.99 * rows["host"], j
    joined_file = out / "samp_joined.ntp"
    p = subprocess.run([str(ntprof), "join", "-q", "-o", str(joined_file),
                        str(out / "samp_host.ntp"), str(out / "samp_target.ntp")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    jdb = open_db(joined_file)
    assert jdb.execute("SELECT count(*) FROM joined_stages").fetchone()[0] == j["matched"]
    print(f"sampled {transport} -s {one_in}: host {rows['host']}, target {rows['target']} "
          f"of {fio_total}; joined {j['matched']} ({j['matched_pct']:.2f}%)")
