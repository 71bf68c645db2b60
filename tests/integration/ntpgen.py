#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Synthetic ntprof recordings (.ntp) with known per-stage latencies.

The file gets the real schema (schema/ntp.sql, read at run time), meta rows,
hooks rows, intervals and one host_io row per command.  Each command is built
forward from latencies drawn with a seeded random generator:

    h_start --block--> h_queue --submit--> h_cmd_sent
        [R2T writes: --r2t wait--> h_r2t --host work--> h_data_sent]
        --wire--> h_recv --complete--> h_done

so the stages ntprof must report are known without the host_stages view:
    block = block, driver = submit + host work + complete,
    network* = wire (+ r2t wait), e2e = their sum.
Tests compare ntprof's numbers with statistics computed from these values.

Usable as a module (generate()) or from the shell:
    ntpgen.py OUT.ntp [--seed S] [--per-group N]
"""

import argparse
import math
import os
import random
import sqlite3
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "schema" / "ntp.sql"

OPCODE = {"write": 1, "read": 2, "flush": 0}
STAGES = ("block", "driver", "network_star")


@dataclass
class Group:
    """Commands of one (I/O type, size, namespace) and their latency ranges (ns)."""
    io_type: str                 # read | write | flush (reported as 'other')
    bytes: int
    namespace: str
    n: int
    block: tuple = (1_000, 5_000)
    submit: tuple = (2_000, 8_000)
    wire: tuple = (20_000, 90_000)
    complete: tuple = (1_000, 4_000)
    r2t_share: float = 0.0       # writes: share of commands that wait for an R2T
    r2t_wait: tuple = (10_000, 30_000)
    r2t_work: tuple = (500, 3_000)

    @property
    def report_io_type(self):
        return self.io_type if self.io_type in ("read", "write") else "other"


@dataclass
class Command:
    row: dict                    # the host_io row
    group: Group
    stages: dict                 # expected stage latencies, ns
    e2e: int


@dataclass
class Recording:
    path: Path
    meta: dict
    hooks: list
    intervals: list
    commands: list = field(default_factory=list)

    def by_group(self):
        """{(io_type as reported, bytes, namespace): [Command, ...]}"""
        out = {}
        for c in self.commands:
            g = c.group
            out.setdefault((g.report_io_type, g.bytes, g.namespace), []).append(c)
        return out


DEFAULT_GROUPS = (
    Group("read", 4096, "nvme0n1", 400),
    Group("write", 4096, "nvme0n1", 300, wire=(30_000, 120_000)),
    Group("write", 131072, "nvme0n1", 120, r2t_share=0.5, wire=(60_000, 200_000)),
    Group("read", 131072, "nvme1n1", 80, block=(3_000, 40_000)),
    Group("flush", 0, "nvme1n1", 7),
)

DEFAULT_HOOKS = (
    ("host", "h_start", "block_bio_queue", "raw_tp", ""),
    ("host", "h_queue", "nvme_setup_cmd", "raw_tp", ""),
    ("host", "h_cmd_sent", "nvme_tcp_try_send_cmd_pdu", "fexit", ""),
    ("host", "h_r2t", "nvme_tcp_handle_r2t", "fentry", ""),
    ("host", "h_data_sent", "nvme_tcp_try_send_data", "fexit", ""),
    ("host", "h_recv", "nvme_tcp_process_nvme_cqe", "kprobe", "fentry would stall: busy thread"),
    ("host", "h_done", "nvme_complete_rq", "raw_tp", ""),
)


def _draw(rng, lo_hi):
    return rng.randint(lo_hi[0], lo_hi[1])


def _command(rng, g, cid, t0, ctrl):
    block = _draw(rng, g.block)
    submit = _draw(rng, g.submit)
    wire = _draw(rng, g.wire)
    complete = _draw(rng, g.complete)
    r2t = g.io_type == "write" and rng.random() < g.r2t_share
    h_start = t0
    h_queue = h_start + block
    h_cmd_sent = h_queue + submit
    h_r2t = h_data_sent = None
    work = wait = 0
    if r2t:
        wait = _draw(rng, g.r2t_wait)
        work = _draw(rng, g.r2t_work)
        h_r2t = h_cmd_sent + wait
        h_data_sent = h_r2t + work
        h_recv = h_data_sent + wire
    else:
        h_recv = h_cmd_sent + wire
    h_done = h_recv + complete
    nlb = max(g.bytes // 512, 1)
    row = dict(h_start_ns=h_start, h_queue_ns=h_queue, h_cmd_sent_ns=h_cmd_sent,
               h_r2t_ns=h_r2t, h_data_sent_ns=h_data_sent, h_recv_ns=h_recv,
               h_done_ns=h_done, opcode=OPCODE[g.io_type], cid=cid & 0xffff,
               slba=rng.randrange(0, 1 << 30), nlb=nlb, bytes=g.bytes,
               qid=rng.randint(1, 4), nsid=int(g.namespace.split("n")[-1]),
               cntlid=1, controller=ctrl, namespace=g.namespace, path=g.namespace,
               status=0, flags=4 if r2t else 0)
    stages = {"block": block, "driver": submit + work + complete, "network_star": wire + wait}
    return Command(row, g, stages, h_done - h_start)


def generate(path, *, seed=1, groups=DEFAULT_GROUPS, sample_one_in=1000, duration_s=10,
             lost_ringbuf=0, lost_map=0, hooks=DEFAULT_HOOKS, meta=None, drop=(),
             wal_kill=False):
    """Write a recording to path; return its Recording (with every command).

    meta entries override the defaults (None removes one); drop names host_io
    time columns stored as NULL, as on a kernel that offers no hook for them.

    With wal_kill the file is left as a recorder killed by SIGKILL leaves it:
    WAL mode, committed rows in FILE-wal, FILE-shm beside it (the writing
    process is a child that kills itself before closing the database).
    """
    path = Path(path)
    rng = random.Random(seed)
    start_ns = 1_000_000_000_000
    stop_ns = start_ns + int(duration_s * 1e9)
    m = {"role": "host", "transport": "tcp", "sample_one_in": sample_one_in,
         "hash_version": 1, "kernel_release": "6.1.0-ntpgen", "hostname": "genhost",
         "boot_id": "00000000-0000-0000-0000-000000000000", "start_ns": start_ns,
         "stop_ns": stop_ns, "duration_ns": stop_ns - start_ns,
         "start_realtime_ns": 1714557600 * 10**9,  # 2024-05-01T10:00:00Z
         "ntprof_version": "ntpgen", "command_line": "ntpgen.py"}
    m.update(meta or {})
    m = {k: v for k, v in m.items() if v is not None}

    rec = Recording(path, m, list(hooks), [])
    cid = 0
    # interleave the groups in time, as a real workload would
    order = [g for g in groups for _ in range(g.n)]
    rng.shuffle(order)
    span = stop_ns - start_ns - 10_000_000
    for i, g in enumerate(order):
        t0 = start_ns + 1_000 + (span * i) // max(len(order), 1)
        ctrl = "nvme" + g.namespace[4:].split("n")[0]
        rec.commands.append(_command(rng, g, cid, t0, ctrl))
        for col in drop:
            rec.commands[-1].row[col] = None
        cid += 1

    # per-second intervals whose sums are exactly what the report must show
    nint = max(int(duration_s), 1)
    sampled = len(rec.commands) + lost_ringbuf + lost_map
    for k in range(nint):
        share = lambda total: total // nint + (1 if k < total % nint else 0)
        s = share(sampled)
        rec.intervals.append((start_ns + (k + 1) * (stop_ns - start_ns) // nint, "host",
                              s * sample_one_in + rng.randint(0, sample_one_in - 1), s,
                              share(lost_ringbuf), share(lost_map)))

    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        if p.exists():
            p.unlink()
    if wal_kill:
        pid = os.fork()
        if pid == 0:
            try:
                _write(rec, wal=True)
            finally:
                os.kill(os.getpid(), 9)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9, status
    else:
        _write(rec, wal=False)
    return rec


def _write(rec, wal):
    db = sqlite3.connect(rec.path, isolation_level=None)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        # keep every page in the WAL, as a killed recorder that had not checkpointed
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.executescript(SCHEMA.read_text())
    db.execute("BEGIN")
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", rec.meta.items())
    db.executemany("INSERT INTO hooks(side, point, hook, flavour, reason) VALUES (?,?,?,?,?)",
                   rec.hooks)
    db.executemany("INSERT INTO intervals VALUES (?,?,?,?,?,?)", rec.intervals)
    cols = list(rec.commands[0].row) if rec.commands else []
    if cols:
        db.executemany(f"INSERT INTO host_io({', '.join(cols)}) VALUES "
                       f"({', '.join('?' * len(cols))})",
                       ([c.row[k] for k in cols] for c in rec.commands))
    db.execute("COMMIT")
    if not wal:
        db.close()


def generate_bulk(path, rows, *, sample_one_in=1000, duration_s=10):
    """A large recording fast: host_io filled by SQLite itself (a recursive CTE)
    with latencies hashed from the row number; 6 groups, no R2T.  Returns the
    Recording without commands: read host_io for the values."""
    path = Path(path)
    start_ns = 1_000_000_000_000
    stop_ns = start_ns + int(duration_s * 1e9)
    meta = {"role": "host", "transport": "tcp", "sample_one_in": sample_one_in,
            "hash_version": 1, "start_ns": start_ns, "stop_ns": stop_ns}
    rec = Recording(path, meta, [], [])
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA.read_text())
    db.execute("BEGIN")
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    db.execute(f"""
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {rows}),
        t AS (SELECT i, {start_ns} + i * 10000 AS s, (i * 2654435761) % 4294967296 AS x FROM c)
        INSERT INTO host_io (h_start_ns, h_queue_ns, h_cmd_sent_ns, h_recv_ns, h_done_ns,
            opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, controller, namespace, path)
        SELECT s, s + 1000 + x % 9000, s + 12000 + x % 7000, s + 40000 + x % 90000,
            s + 41000 + x % 90000 + (x / 11) % 5000, 1 + i % 2, i % 65536, x, 8,
            CASE WHEN i % 3 = 0 THEN 131072 ELSE 4096 END, 1, 1, 1, 'nvme0',
            'nvme0n' || (1 + (i / 3) % 2), 'nvme0n1'
        FROM t""")
    db.execute("COMMIT")
    db.close()
    return rec


# ---- statistics as the report must compute them, from first principles ----

def percentile(values, p):
    """Nearest rank: the smallest value with at least p% of the values at or below it."""
    v = sorted(values)
    rank = math.ceil(Fraction(str(p)) * len(v) / 100)
    return v[max(rank, 1) - 1]


def mean_ns(values):
    """The mean rounded to whole ns, halves away from zero (values are >= 0 here)."""
    s, n = sum(values), len(values)
    return (2 * s + n) // (2 * n)


def summary(values):
    """{min, mean, p50, p90, p99, p99.9, max} in ns, as the report's JSON has them."""
    return {"min_ns": min(values), "mean_ns": mean_ns(values),
            "p50_ns": percentile(values, 50), "p90_ns": percentile(values, 90),
            "p99_ns": percentile(values, 99), "p99_9_ns": percentile(values, 99.9),
            "max_ns": max(values)}


def expected_groups(rec):
    """The report's groups, in its order (namespace; read, write, other; size)."""
    rank = {"read": 0, "write": 1, "other": 2}
    duration_s = (rec.meta["stop_ns"] - rec.meta["start_ns"]) / 1e9
    out = []
    for (io_type, nbytes, ns), cmds in rec.by_group().items():
        e2e = [c.e2e for c in cmds]
        g = {"io_type": io_type, "bytes": nbytes, "namespace": ns, "n": len(cmds),
             "est_cmds_per_s": len(cmds) * rec.meta["sample_one_in"] / duration_s,
             "e2e": summary(e2e), "stages": {}}
        for st in STAGES:
            vals = [c.stages[st] for c in cmds]
            g["stages"][st] = summary(vals)
            g["stages"][st]["share_pct"] = (sum(vals) / len(vals)) / (sum(e2e) / len(e2e)) * 100
        out.append(g)
    out.sort(key=lambda g: (g["namespace"], rank[g["io_type"]], g["bytes"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-group", type=int, default=None, help="commands per group")
    a = ap.parse_args()
    groups = DEFAULT_GROUPS
    if a.per_group is not None:
        groups = tuple(Group(**{**g.__dict__, "n": a.per_group}) for g in groups)
    rec = generate(a.out, seed=a.seed, groups=groups)
    print(f"{a.out}: {len(rec.commands)} commands")


if __name__ == "__main__":
    sys.exit(main())
