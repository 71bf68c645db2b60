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

transport="rdma" writes what the NVMe/RDMA collectors record: meta transport
'rdma', nvme-rdma / nvmet-rdma hooks, and no R2T on the host (h_r2t and
h_data_sent NULL): a write whose data the target pulls with an RDMA READ
waits for it inside the host's round trip, so that wait is in network*.
Every generator defaults to "tcp", whose output does not change.

app=App(...) (generate, generate_joined; off by default, and drawn from a
random generator of its own, so that every other column of a file is the
same with it or without) adds the application's side to each host command:

    h_app_submit --submit--> h_start ... h_done --complete--> h_app_done
        --reap--> h_app_reap

with a share of commands whose submission was not seen (h_app_submit NULL:
not the application's in the report) and a share without a reap (reap 0,
app_e2e ending at h_app_done).  Each such command's .app holds the stages
the report must show: submit, complete, reap, app_e2e.

Usable as a module (generate()) or from the shell:
    ntpgen.py OUT.ntp [--seed S] [--per-group N] [--transport tcp|rdma] [--app]
"""

import argparse
import math
import os
import random
import re
import sqlite3
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "schema" / "ntp.sql"

_U64 = (1 << 64) - 1


def _mix(h, v):
    """splitmix64's finalizer over the running value and the next field"""
    h ^= (v + 0x9E3779B97F4A7C15 + ((h << 6) & _U64) + (h >> 2)) & _U64
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & _U64
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & _U64
    return h ^ (h >> 31)


def join_key(cid, slba, nlb, qid, nsid, cntlid, opcode):
    """host_io.join_key and target_io.join_key as record writes them
    (lib/ntp/db_key.c): the key's 64-bit hash, as a signed SQLite integer"""
    h = 0x5BD1E995
    for v in (cid, slba, nlb, qid, nsid, cntlid, opcode):
        h = _mix(h, v & _U64)
    return h - (1 << 64) if h >> 63 else h


def drop_join_key(path):
    """the file as a writer before join_key made it: host_io and target_io,
    and the views, without the column (nor host_io's later cpu, io_cpu and
    queue_in_flight).  SQLite's DROP COLUMN cannot edit
    these CREATE TABLEs' text (their comments), so the tables are made again."""
    db = sqlite3.connect(path, isolation_level=None)
    views = db.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'view'").fetchall()
    db.execute("BEGIN")
    for v, _ in views:
        db.execute(f"DROP VIEW {v}")
    later = ("cpu", "io_cpu", "queue_in_flight")     # host_io's columns after join_key
    for table in ("host_io", "target_io"):
        sql, = db.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()
        # the columns that came after join_key, with their comment and the comma before them
        sql = re.sub(r",\n(?:\s*--[^\n]*\n)*" + r"\n".join(r"\s*%s\s+INTEGER[^\n]*" % c
                                                      for c in later), "", sql, count=1)
        # from the comma before its line (the last column's, comments between) to its line's end
        sql, n = re.subn(r",[^\n]*\n(?:\s*--[^\n]*\n)*\s*join_key\s+INTEGER[^\n]*", "", sql,
                         count=1)
        assert n == 1, sql
        cols = ", ".join(r[1] for r in db.execute(f"PRAGMA table_info({table})")
                         if r[1] != "join_key" and r[1] not in later)
        db.execute(f"ALTER TABLE {table} RENAME TO {table}_keyed")
        db.execute(sql)
        db.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {table}_keyed")
        db.execute(f"DROP TABLE {table}_keyed")
    for _, v in views:
        db.execute(v.replace(", join_key", ""))
    db.execute("COMMIT")
    db.execute("VACUUM")
    db.close()


def fill_join_keys(db, tables=("host_io", "target_io")):
    """every row's join_key where it is NULL, as record would have written it"""
    db.create_function("ntpgen_join_key", 7, join_key, deterministic=True)
    for t in tables:
        db.execute(f"UPDATE {t} SET join_key = ntpgen_join_key(cid, slba, nlb, qid, nsid,"
                   " cntlid, opcode) WHERE join_key IS NULL")

OPCODE = {"write": 1, "read": 2, "flush": 0}
STAGES = ("block", "driver", "network_star")
TRANSPORTS = ("tcp", "rdma")
# nvmet-rdma's default in-capsule data size (the port's param_inline_data_size):
# larger writes are pulled by the target with an RDMA READ
RDMA_INLINE_BYTES = 4096


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
    app: dict = None             # the application's stages (App), None: not the application's


@dataclass
class App:
    """The application's side of each host command (host_io's h_app_* columns), ns."""
    submit: tuple = (2_000, 9_000)
    complete: tuple = (500, 3_000)
    reap: tuple = (1_000, 40_000)
    unseen: float = 0.1          # share whose submission was not seen: h_app_submit NULL
    unreaped: float = 0.2        # share of the others without a reap: h_app_reap NULL
    kind: str = "libaio"
    seed: int = 17


APP_STAGES = ("submit", "complete", "reap")


@dataclass
class Cpus:
    """Where each host command ran (host_io's cpu and io_cpu): its queue's io_cpu
    is (qid - 1) % ncpu; a share off of the commands is submitted from another
    CPU than that, the rest from it; queue_in_flight (the commands in flight
    on the queue at its setup) is drawn from 1..busy.  io_cpu False stores
    io_cpu NULL, as over NVMe/RDMA; flags get the recorder's bits (128 cpu,
    64 io_cpu, 256 queue_in_flight)."""
    ncpu: int = 4
    off: float = 0.3
    busy: int = 32               # queue_in_flight drawn from 1..busy
    io_cpu: bool = True
    seed: int = 23


def _cpu_columns(rng, cpus, row):
    """The CPUs' columns into a host_io row."""
    home = (row["qid"] - 1) % cpus.ncpu
    cpu = home
    if cpus.ncpu > 1 and rng.random() < cpus.off:
        cpu = (home + 1 + rng.randrange(cpus.ncpu - 1)) % cpus.ncpu
    row.update(cpu=cpu, io_cpu=home if cpus.io_cpu else None,
               queue_in_flight=rng.randint(1, cpus.busy),
               flags=row["flags"] | 128 | 256 | (64 if cpus.io_cpu else 0))


def _app_columns(rng, app, row):
    """The application's columns into a host_io row; its expected stages, or None."""
    submit, complete, reap = (_draw(rng, getattr(app, k)) for k in APP_STAGES)
    seen = rng.random() >= app.unseen
    reaped = rng.random() >= app.unreaped
    row.update(h_app_submit_ns=row["h_start_ns"] - submit if seen else None,
               h_app_done_ns=row["h_done_ns"] + complete,
               h_app_reap_ns=row["h_done_ns"] + complete + reap if reaped else None,
               app_kind=app.kind, pid=4242, tid=4243, comm="fio", cgroup_id=7)
    if not seen:
        return None
    e2e = row["h_done_ns"] - row["h_start_ns"]
    out = {"submit": submit, "complete": complete, "reap": reap if reaped else 0,
           "reaped": reaped}
    out["app_e2e"] = submit + e2e + complete + out["reap"]
    return out


def expected_app(cmds):
    """The report's "app" member of a group of commands (Command or JCommand)."""
    a = [c.app for c in cmds if c.app is not None]
    if not a:
        return {"n": 0, "reaped": 0}
    out = {"n": len(a), "reaped": sum(x["reaped"] for x in a),
           "e2e": summary([x["app_e2e"] for x in a]), "stages": {}}
    for st in APP_STAGES:
        out["stages"][st] = summary([x[st] for x in a])
    return out


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

# nvme-rdma: the capsule is posted to the HCA, the response arrives in a receive
# completion; there is no R2T and no separate data send to hook
HOST_HOOKS_RDMA = (
    ("host", "h_start", "block_bio_queue", "raw_tp", ""),
    ("host", "h_queue", "nvme_setup_cmd", "raw_tp", ""),
    ("host", "h_cmd_sent", "nvme_rdma_post_send", "fexit", ""),
    ("host", "h_r2t", "none", "none", "no R2T over RDMA: the target reads the write data"),
    ("host", "h_data_sent", "none", "none", "write data goes in the capsule or by RDMA READ"),
    ("host", "h_recv", "nvme_rdma_recv_done", "fentry", ""),
    ("host", "h_done", "nvme_complete_rq", "raw_tp", ""),
)


def _check_transport(transport):
    if transport not in TRANSPORTS:
        raise ValueError(f"transport {transport!r}: one of {TRANSPORTS}")
    return transport == "rdma"


def _draw(rng, lo_hi):
    return rng.randint(lo_hi[0], lo_hi[1])


def _command(rng, g, cid, t0, ctrl, rdma=False):
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
    if r2t and rdma:
        # the target pulls the data (RDMA READ): the host's CPU sees nothing
        # until the response, the wait is part of its round trip
        wait = _draw(rng, g.r2t_wait)
        h_recv = h_cmd_sent + wait + wire
    elif r2t:
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
               status=0, flags=4 if h_r2t is not None else 0)
    stages = {"block": block, "driver": submit + work + complete, "network_star": wire + wait}
    return Command(row, g, stages, h_done - h_start)


def generate(path, *, seed=1, groups=DEFAULT_GROUPS, sample_one_in=1000, duration_s=10,
             lost_ringbuf=0, lost_map=0, hooks=None, meta=None, drop=(),
             wal_kill=False, transport="tcp", app=None, cpus=None):
    """Write a recording to path; return its Recording (with every command).

    meta entries override the defaults (None removes one); drop names host_io
    time columns stored as NULL, as on a kernel that offers no hook for them.
    hooks default to the transport's (DEFAULT_HOOKS, HOST_HOOKS_RDMA).  With
    transport "rdma" a group's r2t_share is the share of writes whose data
    the target reads (RDMA READ), their wait counted in network*.

    With wal_kill the file is left as a recorder killed by SIGKILL leaves it:
    WAL mode, committed rows in FILE-wal, FILE-shm beside it (the writing
    process is a child that kills itself before closing the database).

    app: an App, the application's columns of every command (module doc).
    """
    path = Path(path)
    rdma = _check_transport(transport)
    arng = random.Random(app.seed) if app else None
    crng = random.Random(cpus.seed) if cpus else None
    if hooks is None:
        hooks = HOST_HOOKS_RDMA if rdma else DEFAULT_HOOKS
    rng = random.Random(seed)
    start_ns = 1_000_000_000_000
    stop_ns = start_ns + int(duration_s * 1e9)
    m = {"role": "host", "transport": transport, "sample_one_in": sample_one_in,
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
        rec.commands.append(_command(rng, g, cid, t0, ctrl, rdma))
        if app:
            rec.commands[-1].app = _app_columns(arng, app, rec.commands[-1].row)
        if cpus:
            _cpu_columns(crng, cpus, rec.commands[-1].row)
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
    # a test's file need not survive a power cut: no waiting for the disk
    db.execute("PRAGMA synchronous=OFF")
    if not wal:
        db.execute("PRAGMA journal_mode=MEMORY")
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
    fill_join_keys(db, ("host_io",))
    db.execute("COMMIT")
    if not wal:
        db.close()


def leave_in_wal(path, sql, *, shm=True):
    """path as a recorder killed by SIGKILL leaves it: in WAL mode, with what
    sql changes committed to path-wal only (the writing process kills itself
    before any checkpoint or close), and path-shm beside it; with shm=False
    without path-shm, as after a copy or a reboot.  The file alone still
    holds what it held before sql."""
    path = Path(path)
    pid = os.fork()
    if pid == 0:
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.executescript(sql)
        finally:
            os.kill(os.getpid(), 9)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9, status
    assert os.path.getsize(f"{path}-wal") > 0
    if not shm:
        os.unlink(f"{path}-shm")


def interrupt_write(path, sql):
    """path as a writer killed in the middle of a transaction leaves it in
    rollback journal mode: part of what sql changes already in path (a
    page cache of two pages spills), and path-journal beside it holding
    what undoes it (a hot journal)."""
    path = Path(path)
    pid = os.fork()
    if pid == 0:
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA cache_size=2")
            db.execute("BEGIN")
            db.execute(sql)
        finally:
            os.kill(os.getpid(), 9)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9, status
    assert os.path.getsize(f"{path}-journal") > 0


def generate_bulk(path, rows, *, sample_one_in=1000, duration_s=10, transport="tcp"):
    """A large recording fast: host_io filled by SQLite itself (a recursive CTE)
    with latencies hashed from the row number; 6 groups, no R2T (so the rows
    fit either transport).  Returns the Recording without commands: read
    host_io for the values."""
    path = Path(path)
    _check_transport(transport)
    start_ns = 1_000_000_000_000
    stop_ns = start_ns + int(duration_s * 1e9)
    meta = {"role": "host", "transport": transport, "sample_one_in": sample_one_in,
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
    fill_join_keys(db, ("host_io",))
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


def stddev_ns(values):
    """The sample standard deviation (n - 1) rounded to whole ns, exactly:
    var = sum((n v - S)^2) / (n^2 (n - 1)), and round(sqrt(var)) =
    (isqrt(floor(4 var)) + 1) // 2, all in integers; 0 for one value."""
    n, s = len(values), sum(values)
    if n < 2:
        return 0
    num = sum((n * v - s) ** 2 for v in values)
    return (math.isqrt(4 * num // (n * n * (n - 1))) + 1) // 2


DEFAULT_PERCENTILES = (50, 90, 99, 99.9)


def pct_key(p):
    """A percentile's key in the JSON: 99.9 -> 'p99_9_ns'."""
    return "p" + str(Fraction(str(p)).__float__()).rstrip("0").rstrip(".").replace(".", "_") + "_ns"


def min_shown(p):
    """The commands a percentile needs before it is shown: its nearest rank
    below the last, n >= 1 / (1 - p)."""
    return math.ceil(100 / (100 - Fraction(str(p))))


def near(got, want, key):
    """A statistic of the JSON against summary()'s: exact, but for a mean's
    double within 1 ns; one not shown (too few commands) is None in both."""
    if got is None or want is None:
        return got is None and want is None
    return abs(got - want) <= (1 if key == "mean_ns" else 0)


def summary(values, percentiles=DEFAULT_PERCENTILES):
    """{min, mean, stddev, the percentiles, max} in ns, as the report's JSON has
    them: a percentile of fewer commands than it needs is None."""
    out = {"min_ns": min(values), "mean_ns": mean_ns(values), "stddev_ns": stddev_ns(values)}
    for p in percentiles:
        out[pct_key(p)] = percentile(values, p) if len(values) >= min_shown(p) else None
    out["max_ns"] = max(values)
    return out


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
    ap.add_argument("--transport", choices=TRANSPORTS, default="tcp")
    ap.add_argument("--app", action="store_true", help="the application's columns too (App())")
    a = ap.parse_args()
    groups = DEFAULT_GROUPS
    if a.per_group is not None:
        groups = tuple(Group(**{**g.__dict__, "n": a.per_group}) for g in groups)
    rec = generate(a.out, seed=a.seed, groups=groups, transport=a.transport,
                   app=App() if a.app else None)
    print(f"{a.out}: {len(rec.commands)} commands")


if __name__ == "__main__":
    sys.exit(main())


# ---- host and target recordings of the same commands, to be joined ----------
#
# Each command is built on the host's clock, forward through both machines:
#
#   h_start --block--> h_queue --submit--> h_cmd_sent [--data--> h_data_sent]
#     --net_tx--> (target) t_recv --target_rx--> t_submit
#         [R2T writes: t_recv --target_rx--> t_r2t --net--> h_r2t --r2t_work-->
#          h_data_sent --net--> t_submit]
#     --storage--> t_cmpl --target_tx--> t_sent --net_rx--> h_recv --complete--> h_done
#
# Over RDMA (transport="rdma") the write data of a write larger than
# RDMA_INLINE_BYTES is pulled by the target, and in-capsule data is posted with
# the command (no h_data_sent):
#         [READ writes: t_recv --target_rx--> t_r2t (READ posted) --net--> host HCA
#          --r2t_work--> --net--> t_submit]
# The host's CPU takes no part in the READ, so h_r2t and h_data_sent are NULL
# and the whole READ (t_submit - t_r2t) is network time.
#
# then every target time is carried to the target's clock:
#   t = h + offset + drift * (h - t0)
# so the target's records carry that link's offset and drift; the stages the
# report must show are computed from the stored integers (joined_stages).

TARGET_HOOKS = (
    ("target", "t_recv", "nvmet_req_init", "fentry", ""),
    ("target", "t_r2t", "nvmet_tcp_queue_response", "fentry", ""),
    ("target", "t_submit", "nvmet_bdev_execute_rw", "fentry", ""),
    ("target", "t_cmpl", "nvmet_req_complete", "fentry", ""),
    ("target", "t_sent", "nvmet_try_send_response", "fexit", ""),
)

# a Debian 6.1 kernel: no direct hooks for the sends (ntprof-design(7), HOOKS)
HOST_HOOKS_61 = tuple(
    ("host", "h_cmd_sent", "nvme_tcp_try_send", "fexit", "inlined on this kernel")
    if h[1] == "h_cmd_sent" else
    ("host", "h_data_sent", "nvme_tcp_try_send", "fexit", "inlined on this kernel")
    if h[1] == "h_data_sent" else h for h in DEFAULT_HOOKS)
TARGET_HOOKS_RDMA = (
    ("target", "t_recv", "nvmet_req_init", "fentry", ""),
    ("target", "t_r2t", "nvmet_rdma_execute_command", "fentry", "the RDMA READ of the write data"),
    ("target", "t_submit", "nvmet_bdev_execute_rw", "fentry", ""),
    ("target", "t_cmpl", "nvmet_req_complete", "fentry", ""),
    ("target", "t_sent", "nvmet_rdma_queue_response", "fentry", ""),
)

TARGET_HOOKS_61 = tuple(
    ("target", "t_sent", "nvmet_setup_response_pdu", "fentry", "inlined on this kernel")
    if h[1] == "t_sent" else h for h in TARGET_HOOKS)

JOIN_STAGES = ("block", "driver", "network", "target_driver", "storage")
DETAIL_STAGES = ("block", "host_tx", "network", "target_rx", "r2t_wait", "r2t_host",
                 "storage", "target_tx", "host_rx")
HOST_DETAIL_STAGES = ("block", "host_tx", "r2t_host", "network_star", "host_rx")


@dataclass
class JGroup:
    """Commands of one (I/O type, size, namespace) on one link, latencies in ns."""
    io_type: str
    bytes: int
    namespace: str
    n: int
    block: tuple = (1_000, 5_000)
    submit: tuple = (2_000, 8_000)
    data: tuple = (500, 2_000)          # in-capsule write data after the command PDU
    net: tuple = (10_000, 40_000)       # one way on the wire
    target_rx: tuple = (3_000, 9_000)
    storage: tuple = (20_000, 90_000)
    target_tx: tuple = (2_000, 6_000)
    complete: tuple = (1_000, 4_000)
    r2t_share: float = 0.0
    r2t_work: tuple = (500, 3_000)

    @property
    def report_io_type(self):
        return self.io_type if self.io_type in ("read", "write") else "other"


@dataclass
class Link:
    """One host controller talking to one target: its clocks and its commands."""
    host: int                 # index of the host file
    target: int               # index of the target file
    controller: str = "nvme0"
    cntlid: int = 1
    offset_ns: int = 3_600_000_123_457
    drift: float = 20e-6
    groups: tuple = ()


@dataclass
class JCommand:
    link: Link
    group: JGroup
    host: dict                # host_io row
    target: dict              # target_io row
    fate: str = "matched"     # matched | lost_host | lost_target | rejected
    app: dict = None          # the application's stages (App), None: not the application's

    def stages(self):
        return joined_stages(self.host, self.target)

    def detail(self):
        return detail_stages(self.host, self.target)


def _host_parts(h):
    """sent, r2t_host, recv as ntprof-design(7), STAGES defines them."""
    r2t = h["h_r2t_ns"] is not None and h["h_data_sent_ns"] is not None
    if r2t:
        return h["h_cmd_sent_ns"], h["h_data_sent_ns"] - h["h_r2t_ns"], h["h_recv_ns"]
    sent = max(h["h_cmd_sent_ns"], h["h_data_sent_ns"] or 0)
    return sent, 0, h["h_recv_ns"]


def joined_stages(h, t):
    """The five stages of one command from its two stored records."""
    sent, r2t_host, recv = _host_parts(h)
    r2t_wait = t["t_submit_ns"] - t["t_r2t_ns"] if t["t_r2t_ns"] is not None else 0
    e2e = h["h_done_ns"] - h["h_start_ns"]
    s = {"block": h["h_queue_ns"] - h["h_start_ns"],
         "driver": (sent - h["h_queue_ns"]) + r2t_host + (h["h_done_ns"] - recv),
         "network": (recv - sent - r2t_host) - (t["t_sent_ns"] - t["t_recv_ns"] - r2t_wait),
         "target_driver": (t["t_submit_ns"] - t["t_recv_ns"] - r2t_wait)
                          + (t["t_sent_ns"] - t["t_cmpl_ns"]),
         "storage": t["t_cmpl_ns"] - t["t_submit_ns"]}
    s["e2e"] = e2e
    return s


def detail_stages(h, t):
    """The nine sub-stages of --stages=detail, each from its own timestamps.

    A wait the target saw but the host did not (t_r2t without h_r2t: an
    RDMA READ) stays in network, as in the five stages."""
    sent, r2t_host, recv = _host_parts(h)
    r2t = t["t_r2t_ns"] is not None and r2t_host
    unseen = t["t_submit_ns"] - t["t_r2t_ns"] if t["t_r2t_ns"] is not None and not r2t else 0
    return {"block": h["h_queue_ns"] - h["h_start_ns"],
            "host_tx": sent - h["h_queue_ns"],
            "network": (recv - sent) - (t["t_sent_ns"] - t["t_recv_ns"]) + unseen,
            "target_rx": (t["t_r2t_ns"] if r2t else t["t_submit_ns"] - unseen) - t["t_recv_ns"],
            "r2t_wait": (t["t_submit_ns"] - t["t_r2t_ns"]) - r2t_host if r2t else 0,
            "r2t_host": r2t_host,
            "storage": t["t_cmpl_ns"] - t["t_submit_ns"],
            "target_tx": t["t_sent_ns"] - t["t_cmpl_ns"],
            "host_rx": h["h_done_ns"] - recv}


def host_detail_stages(h):
    sent, r2t_host, recv = _host_parts(h)
    return {"block": h["h_queue_ns"] - h["h_start_ns"],
            "host_tx": sent - h["h_queue_ns"],
            "r2t_host": r2t_host,
            "network_star": (recv - sent) - r2t_host,
            "host_rx": h["h_done_ns"] - recv}


def _joined_command(rng, link, g, i, h_start, t0, slbas, rdma=False):
    d = lambda k: _draw(rng, getattr(g, k))
    to_t = lambda x: x + link.offset_ns + round(link.drift * (x - t0))
    if rdma:
        r2t = g.io_type == "write" and g.bytes > RDMA_INLINE_BYTES
    else:
        r2t = g.io_type == "write" and rng.random() < g.r2t_share
    h_queue = h_start + d("block")
    h_cmd_sent = h_queue + d("submit")
    h_data_sent = h_r2t = t_r2t_h = None
    if g.io_type == "write" and not r2t and not rdma:
        h_data_sent = h_cmd_sent + d("data")
    t_recv_h = max(h_cmd_sent, h_data_sent or 0) + d("net")
    if r2t and rdma:
        t_r2t_h = t_recv_h + d("target_rx")
        # READ request to the host's HCA, which answers without the host's CPU
        t_submit_h = t_r2t_h + d("net") + d("r2t_work") + d("net")
    elif r2t:
        t_r2t_h = t_recv_h + d("target_rx")
        h_r2t = t_r2t_h + d("net")
        h_data_sent = h_r2t + d("r2t_work")
        t_submit_h = h_data_sent + d("net")
    else:
        t_submit_h = t_recv_h + d("target_rx")
    t_cmpl_h = t_submit_h + d("storage")
    t_sent_h = t_cmpl_h + d("target_tx")
    h_recv = t_sent_h + d("net")
    h_done = h_recv + d("complete")
    nlb = max(g.bytes // 512, 1)
    slba = rng.choice(slbas) if slbas else rng.randrange(0, 1 << 40)
    key = dict(opcode=OPCODE[g.io_type], cid=i % 8, slba=slba, nlb=nlb,
               bytes=g.bytes, qid=1 + i % 2, nsid=int(g.namespace.split("n")[-1]),
               cntlid=link.cntlid, status=0)
    host = dict(h_start_ns=h_start, h_queue_ns=h_queue, h_cmd_sent_ns=h_cmd_sent,
                h_r2t_ns=h_r2t, h_data_sent_ns=h_data_sent, h_recv_ns=h_recv,
                h_done_ns=h_done, controller=link.controller, namespace=g.namespace,
                path=g.namespace, flags=4 if h_r2t is not None else 0, **key)
    target = dict(t_recv_ns=to_t(t_recv_h), t_r2t_ns=to_t(t_r2t_h) if r2t else None,
                  t_submit_ns=to_t(t_submit_h), t_cmpl_ns=to_t(t_cmpl_h),
                  t_sent_ns=to_t(t_sent_h), device="/dev/nullb0",
                  flags=1 if rdma and r2t else 0, **key)
    return JCommand(link, g, host, target)


@dataclass
class JoinedSet:
    host_paths: list
    target_paths: list
    links: list
    commands: list
    host_meta: list
    target_meta: list

    def matched(self):
        return [c for c in self.commands if c.fate == "matched"]

    def counts(self):
        f = [c.fate for c in self.commands]
        nh = sum(x != "lost_host" for x in f)
        nt = sum(x != "lost_target" for x in f)
        m = f.count("matched")
        return {"host_commands": nh, "target_commands": nt, "matched": m,
                "unmatched_host": f.count("lost_target"),
                "unmatched_target": nt - m, "rejected": f.count("rejected")}

    def by_group(self, fates=("matched",)):
        """{(host file from 1, io_type as reported, bytes, namespace): [JCommand]}"""
        out = {}
        for c in self.commands:
            if c.fate in fates:
                g = c.group
                out.setdefault((c.link.host + 1, g.report_io_type, g.bytes, g.namespace),
                               []).append(c)
        return out


def generate_joined(host_paths, target_paths, links, *, seed=1, lose_host=0.02,
                    lose_target=0.03, reject=2, duration_s=10, sample_one_in=1000,
                    host_meta=None, target_meta=None, host_hooks=None,
                    target_hooks=None, transport="tcp", same_slbas=False,
                    nslbas=3, app=None):
    """Write host and target recordings of the links' commands; return the JoinedSet.

    A path that is both a host and a target path gets one "-r both" file.
    Command ids are reused (cid = i % 8, three slbas), lose_host / lose_target
    of the commands are left out of one side (and counted as lost in its
    intervals), and `reject` commands per link get a target record that
    begins 30 us before the host queued the command and ends 30 us after it
    completed: a same-key record overlapping the command that no clock
    offset can make a true pair, which the join must refuse.
    host_meta / target_meta: per-file dicts merged into the meta defaults.
    transport "rdma": meta transport 'rdma', the RDMA hooks by default, no
    host R2T points, and writes over RDMA_INLINE_BYTES pulled by an RDMA
    READ (t_r2t to t_submit) whatever the groups' r2t_share.
    same_slbas: every link uses the first link's three slbas, so that links
    with one cntlid have the very same keys (only the binding of a host
    controller to its target can tell them apart).
    nslbas: the block addresses each link draws its commands' slba from;
    0: every command draws its own, so keys are as rare as in a real run.
    app: an App, the application's columns of every host command (module doc).
    """
    rdma = _check_transport(transport)
    arng = random.Random(app.seed) if app else None
    if host_hooks is None:
        host_hooks = HOST_HOOKS_RDMA if rdma else DEFAULT_HOOKS
    if target_hooks is None:
        target_hooks = TARGET_HOOKS_RDMA if rdma else TARGET_HOOKS
    rng = random.Random(seed)
    start_ns = 1_000_000_000_000
    stop_ns = start_ns + int(duration_s * 1e9)
    t0 = start_ns + (stop_ns - start_ns) // 2
    cmds = []
    slbas = None
    for link in links:
        order = [g for g in link.groups for _ in range(g.n)]
        rng.shuffle(order)
        span = stop_ns - start_ns - 10_000_000
        if not (same_slbas and slbas):
            slbas = [rng.randrange(0, 1 << 30) for _ in range(nslbas)]
        lcmds = []
        for i, g in enumerate(order):
            h_start = start_ns + 1_000 + (span * i) // len(order) + rng.randint(0, 1000)
            lcmds.append(_joined_command(rng, link, g, i, h_start, t0, slbas, rdma))
            if app:
                lcmds[-1].app = _app_columns(arng, app, lcmds[-1].host)
        idx = list(range(len(lcmds)))
        rng.shuffle(idx)
        nlh, nlt = int(len(idx) * lose_host), int(len(idx) * lose_target)
        for k in idx[:nlh]:
            lcmds[k].fate = "lost_host"
        for k in idx[nlh:nlh + nlt]:
            lcmds[k].fate = "lost_target"
        for k in idx[nlh + nlt:nlh + nlt + reject]:
            c = lcmds[k]
            c.fate = "rejected"
            to_t = lambda x: x + link.offset_ns + round(link.drift * (x - t0))
            c.target["t_recv_ns"] = to_t(c.host["h_queue_ns"]) - 30_000
            c.target["t_sent_ns"] = to_t(c.host["h_done_ns"]) + 30_000
        cmds.extend(lcmds)

    hpaths = [Path(p) for p in host_paths]
    tpaths = [Path(p) for p in target_paths]
    files = []
    for p in hpaths + tpaths:
        if p not in files:
            files.append(p)
    hm, tm = [], []
    for p in files:
        hi = hpaths.index(p) if p in hpaths else None
        ti = tpaths.index(p) if p in tpaths else None
        role = "both" if hi is not None and ti is not None else "host" if hi is not None else "target"
        m = {"role": role, "transport": transport, "sample_one_in": sample_one_in,
             "hash_version": 1, "kernel_release": "6.1.0-ntpgen",
             "hostname": f"gen-{role}-{hi if hi is not None else ti}",
             "start_ns": start_ns, "stop_ns": stop_ns,
             "start_realtime_ns": 1714557600 * 10**9, "ntprof_version": "ntpgen"}
        if hi is not None:
            m.update((host_meta or [{}] * len(hpaths))[hi] or {})
        if ti is not None:
            m.update((target_meta or [{}] * len(tpaths))[ti] or {})
        m = {k: v for k, v in m.items() if v is not None}
        hrows = [c for c in cmds if hi is not None and c.link.host == hi and c.fate != "lost_host"]
        trows = [c for c in cmds if ti is not None and c.link.target == ti and c.fate != "lost_target"]
        hrows.sort(key=lambda c: c.host["h_start_ns"])
        trows.sort(key=lambda c: c.target["t_recv_ns"])
        hooks = (list(host_hooks) if hi is not None else []) + \
                (list(target_hooks) if ti is not None else [])
        intervals = []
        if hi is not None:
            lost = sum(1 for c in cmds if c.link.host == hi and c.fate == "lost_host")
            intervals.append((stop_ns, "host", (len(hrows) + lost) * sample_one_in,
                              len(hrows) + lost, lost, 0))
            hm.append(m)
        if ti is not None:
            lost = sum(1 for c in cmds if c.link.target == ti and c.fate == "lost_target")
            intervals.append((stop_ns, "target", (len(trows) + lost) * sample_one_in,
                              len(trows) + lost, 0, lost))
            tm.append(m)
        _write_joined(p, m, hooks, intervals, [c.host for c in hrows], [c.target for c in trows])
    return JoinedSet(hpaths, tpaths, list(links), cmds, hm, tm)


def _write_joined(path, meta, hooks, intervals, hrows, trows):
    for q in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        if q.exists():
            q.unlink()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA.read_text())
    db.execute("BEGIN")
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    db.executemany("INSERT INTO hooks(side, point, hook, flavour, reason) VALUES (?,?,?,?,?)",
                   hooks)
    db.executemany("INSERT INTO intervals VALUES (?,?,?,?,?,?)", intervals)
    for table, rows in (("host_io", hrows), ("target_io", trows)):
        if rows:
            cols = list(rows[0])
            db.executemany(f"INSERT INTO {table}({', '.join(cols)}) VALUES "
                           f"({', '.join('?' * len(cols))})", ([r[k] for k in cols] for r in rows))
    fill_join_keys(db)
    db.execute("COMMIT")
    db.close()


DEFAULT_JGROUPS = (
    JGroup("read", 4096, "nvme0n1", 300),
    JGroup("write", 4096, "nvme0n1", 200),
    JGroup("write", 131072, "nvme0n1", 100, r2t_share=0.6),
    JGroup("read", 131072, "nvme0n2", 60, storage=(100_000, 400_000)),
)


def generate_pair(host_path, target_path, **kw):
    """One host and one target recording of the default groups."""
    link = Link(0, 0, groups=kw.pop("groups", DEFAULT_JGROUPS),
                offset_ns=kw.pop("offset_ns", 3_600_000_123_457), drift=kw.pop("drift", 20e-6))
    return generate_joined([host_path], [target_path], [link], **kw)


def generate_both(path, **kw):
    """One "-r both" recording: both sides on one clock."""
    link = Link(0, 0, groups=kw.pop("groups", DEFAULT_JGROUPS), offset_ns=0, drift=0.0)
    return generate_joined([path], [path], [link], **kw)


def write_joined_file(path, js):
    """A joined recording as ntprof join writes one (ntprof-join(1)), from a
    pair's truth: both files' rows, and join_pairs of the matched commands
    (the fuzzer's seed; the tests make theirs with ntprof join itself)."""
    (hp,), (tp,) = js.host_paths, js.target_paths
    link = js.links[0]
    db = sqlite3.connect(hp)
    start, stop = (db.execute(f"SELECT value FROM meta WHERE key = '{k}'").fetchone()[0]
                   for k in ("start_ns", "stop_ns"))
    db.close()
    t0 = start + (stop - start) // 2     # the true line's centre, as generate_joined has it
    if Path(path).exists():
        Path(path).unlink()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA.read_text())
    db.execute("ATTACH ? AS h", (str(hp),))
    db.execute("ATTACH ? AS t", (str(tp),))
    db.execute("BEGIN")
    for table, side in (("hooks", "side = 'host'"), ("intervals", "side = 'host'")):
        db.execute(f"INSERT INTO main.{table} SELECT * FROM h.{table} WHERE {side}")
        db.execute(f"INSERT INTO main.{table} SELECT * FROM t.{table} WHERE "
                   f"{side.replace('host', 'target')}")
    db.execute("INSERT INTO main.host_io SELECT * FROM h.host_io")
    db.execute("INSERT INTO main.target_io SELECT * FROM t.target_io")
    db.execute("INSERT INTO main.meta SELECT key, value FROM h.meta")
    db.execute("UPDATE main.meta SET value = 'joined' WHERE key = 'role'")
    db.execute("INSERT INTO main.join_meta SELECT 'host', key, value FROM h.meta")
    db.execute("INSERT INTO main.join_meta SELECT 'target', key, value FROM t.meta")
    # each side's ids are its rows in time order, as _write_joined writes them
    hid = {id(c): i + 1 for i, c in enumerate(sorted(
        (c for c in js.commands if c.fate != "lost_host"), key=lambda c: c.host["h_start_ns"]))}
    tid = {id(c): i + 1 for i, c in enumerate(sorted(
        (c for c in js.commands if c.fate != "lost_target"), key=lambda c: c.target["t_recv_ns"]))}
    m = js.matched()
    db.executemany("INSERT INTO main.join_pairs (host_id, target_id, offset_ns, h_occ, t_occ)"
                   " VALUES (?, ?, ?, 1, 1)",
                   ((hid[id(c)], tid[id(c)],
                     link.offset_ns + round(link.drift * (c.host["h_queue_ns"] - t0))) for c in m))
    n = js.counts()
    db.execute("INSERT INTO main.join_clock (clock, estimated, t0_ns, offset_ns, drift,"
               " tolerance_ns, candidates, support, matched, unmatched_host, unmatched_target,"
               " rejected, host_file, target_file) VALUES ('two clocks', 1, ?, ?, ?, 1000.0, ?,"
               " ?, ?, ?, ?, ?, ?, ?)", (t0, float(link.offset_ns), link.drift, len(m), len(m), len(m),
                                n["unmatched_host"], n["unmatched_target"], n["rejected"],
                                str(hp), str(tp)))
    db.execute("COMMIT")
    db.close()


def expected_joined_groups(js, stages=JOIN_STAGES, detail=False):
    """The joined report's groups in its order, from the JoinedSet alone."""
    rank = {"read": 0, "write": 1, "other": 2}
    out = []
    for (hf, io_type, nbytes, ns), cmds in js.by_group().items():
        e2e = [c.host["h_done_ns"] - c.host["h_start_ns"] for c in cmds]
        vals = [c.detail() if detail else c.stages() for c in cmds]
        g = {"file": hf, "io_type": io_type, "bytes": nbytes, "namespace": ns,
             "n": len(cmds), "e2e": summary(e2e), "stages": {}}
        for st in stages:
            v = [x[st] for x in vals]
            g["stages"][st] = summary(v)
            g["stages"][st]["share_pct"] = (sum(v) / len(v)) / (sum(e2e) / len(e2e)) * 100
        out.append(g)
    out.sort(key=lambda g: (g["file"], g["namespace"], rank[g["io_type"]], g["bytes"]))
    return out


def without_app_columns(path):
    """Turn the recording at path into one of an ntprof before the application's
    columns: host_io as version 1 declared it (STRICT and NOT NULL as ever),
    without those columns, and no host_app_stages view."""
    db = sqlite3.connect(path)
    views = dict(db.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'view'"))
    table = db.execute("SELECT sql FROM sqlite_schema WHERE name = 'host_io'").fetchone()[0]
    for name in views:
        db.execute(f"DROP VIEW {name}")
    # and the CPUs' columns, which came after them
    app = ("h_app_submit_ns", "h_app_done_ns", "h_app_reap_ns", "app_kind", "pid", "tid",
           "comm", "cgroup_id", "cpu", "io_cpu", "queue_in_flight")
    lines = [re.sub(r"\s*--.*$", "", line) for line in table.splitlines()]
    lines = [line for line in lines if line.split()[:1] not in [[c] for c in app]]
    db.execute(re.sub(r",\s*\)", "\n)", "\n".join(lines)).replace("host_io", "host_io_v1", 1))
    keep = [c[1] for c in db.execute("PRAGMA table_info(host_io_v1)")]
    db.execute(f"INSERT INTO host_io_v1 SELECT {', '.join(keep)} FROM host_io")
    db.execute("DROP TABLE host_io")
    db.execute("ALTER TABLE host_io_v1 RENAME TO host_io")
    for name, sql in views.items():
        if name != "host_app_stages":
            db.execute(sql)
    db.commit()
    db.close()
