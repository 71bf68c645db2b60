#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fleet's engine at scale: push rate, a fleet report's time, disk per command.

    bench/bench_fleet.py [BUILD_DIR]      PAIRS=10 ROWS=1000000 (defaults)

Makes PAIRS host/target pairs of ROWS commands a side (bench/join_pair.py's
rare keys, each pair on a controller id of its own, so that a Distributed
table spreads them), and for one server and for two shards of a
Distributed table (tests/integration/fleet_server.py, loopback, scratch
data) prints side by side: the push rate (every pair pushed --no-join:
commands visible to count() on every shard over the wall time from the
push's start; pushes are synchronous), the CPU seconds of ntprof and of
the servers a push takes per 1M commands; apart from it, the engine's
join of each pair (a second push of the pair, which joins it) and its
peak memory (system.query_log); the fleet report of every pair from the
engine (exact, and with --approx) against the sum of `ntprof report HOST
TARGET` on each pair, and the engine's bytes on disk per command against
the .ntp files'.  Asserts nothing about time.

    PUSH_ROUNDS=5 bench/bench_fleet.py [BUILD_DIR]

The push alone: one pair of ROWS commands a side, `push --no-join` into a
fresh database of one server PUSH_ROUNDS times; prints the median and
range of ntprof's CPU (user + system), the server's, the wall time and
the rows per second (wall: a note on a shared machine).

    JOIN_ONLY=3 PAIRS=1 bench/bench_fleet.py [BUILD_DIR]

The join alone: one pair pushed --no-join into a fresh database of one
server, then joined, JOIN_ONLY times; prints each join's wall time, its
peak memory (the largest memory_usage in system.query_log of the
join's statements) and the pairs it wrote.
"""

import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))
import fleet_server  # noqa: E402

BUILD = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "build")
NTPROF = str(BUILD / "ntprof")
PAIRS = int(os.environ.get("PAIRS", "10"))
PUSH_ROUNDS = int(os.environ.get("PUSH_ROUNDS", "0"))
JOIN_ONLY = int(os.environ.get("JOIN_ONLY", "0"))
# push --join-rows (the join's parts), else its default
JOIN_ROWS = ["--join-rows", os.environ["JOIN_ROWS"]] if os.environ.get("JOIN_ROWS") else []
ROWS = int(os.environ.get("ROWS", "1000000"))


def timed(args):
    t = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cpu_servers(servers):
    """the servers' CPU seconds so far (user + system, from /proc)"""
    tick = os.sysconf("SC_CLK_TCK")
    return sum(sum(map(int, Path(f"/proc/{s.proc.pid}/stat").read_text().rsplit(")", 1)[1]
                       .split()[11:13])) / tick for s in servers)


def make_pairs(d):
    base_h, base_t = d / "base_h.ntp", d / "base_t.ntp"
    subprocess.run([sys.executable, str(REPO / "bench" / "join_pair.py"), str(base_h),
                    str(base_t), str(ROWS), "--reuse", "rare"], check=True,
                   stdout=subprocess.DEVNULL)
    pairs = []
    for i in range(PAIRS):
        h, t = d / f"h{i}.ntp", d / f"t{i}.ntp"
        for src, dst, table, role in ((base_h, h, "host_io", "host"),
                                      (base_t, t, "target_io", "target")):
            shutil.copy(src, dst)
            with sqlite3.connect(dst) as db:
                # a run of its own (its meta) on a controller of its own; push hashes the keys
                db.execute("UPDATE meta SET value = ? WHERE key = 'hostname'", (f"{role}{i}",))
                db.execute(f"UPDATE {table} SET cntlid = ?, join_key = NULL", (i + 1,))
        pairs.append((h, t))
    return pairs


def disk(servers, db):
    return sum(int(s.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND "
                           f"database = '{db}'").strip() or 0) for s in servers)


def log_reset(servers):
    """system.query_log emptied on every server: what join_peak reads next is the join's"""
    for s in servers:
        s.query("SYSTEM FLUSH LOGS")
        s.query("TRUNCATE TABLE system.query_log")


def join_peak(servers):
    """the largest peak memory (bytes) of a query since log_reset, on any server (on a
    cluster each shard logs the part of a join it ran)"""
    peak = 0
    for s in servers:
        s.query("SYSTEM FLUSH LOGS")
        peak = max(peak, int(s.query("SELECT max(memory_usage) FROM system.query_log "
                                     "WHERE type = 2").strip() or 0))
    return peak


def run(name, servers, cluster, pairs, files_s, file_bytes):
    db = "bench"
    if cluster:
        for s in servers:
            subprocess.run([NTPROF, "push", "--url", s.url, "--database", db, "--cluster",
                            cluster], check=True)
    else:
        subprocess.run([NTPROF, "push", "--url", servers[0].url, "--database", db], check=True)
    # the push alone (--no-join): rows visible on every shard over the wall from its start
    t0 = time.monotonic()
    c0, s0 = cpu_children(), cpu_servers(servers)
    push_s = []
    for h, t in pairs:
        push_s.append(timed([NTPROF, "push", "--url", servers[0].url, "--database", db,
                             "--no-join", str(h), str(t)]))
    visible = sum(int(s.query("SELECT count() FROM cmds" + ("_local" if cluster else ""),
                              db)) for s in servers)
    wall = time.monotonic() - t0
    ntprof_cpu, server_cpu = cpu_children() - c0, cpu_servers(servers) - s0
    # then the engine's join of each pair (a push of the pushed files joins them), timed apart
    log_reset(servers)
    join_s = [timed([NTPROF, "push", "--url", servers[0].url, "--database", db, *JOIN_ROWS,
                     str(h), str(t)]) for h, t in pairs]
    peak = join_peak(servers)
    report_s = timed([NTPROF, "report", "--url", servers[-1].url, "--database", db])
    approx_s = timed([NTPROF, "report", "--url", servers[-1].url, "--database", db, "--approx"])
    rows = 2 * ROWS * PAIRS
    print(f"{name:12} push {visible / wall / 1e3:6.0f} k rows/s ({visible} rows visible "
          f"{wall:.1f} s from the push's start; one pair {min(push_s):.1f} s)")
    print(f"{'':12} join {sum(join_s) / PAIRS:.1f} s a pair [{min(join_s):.1f}, "
          f"{max(join_s):.1f}], peak {peak / 2**20:.0f} MB  report --url {report_s:.1f} s "
          f"(--approx {approx_s:.1f} s) vs files {files_s:.1f} s  "
          f"disk {disk(servers, db) / rows:.1f} B/command vs .ntp {file_bytes / rows:.1f}")
    # CPU seconds depend less on the other work on the machine than wall time does
    print(f"{'':12} push CPU per 1M commands: ntprof {ntprof_cpu * 1e6 / visible:.2f} s, "
          f"server(s) {server_cpu * 1e6 / visible:.2f} s (load {os.getloadavg()[0]:.1f})")


def join_only(pairs):
    """the first pair pushed --no-join, then joined, JOIN_ONLY times into fresh databases:
    the join's wall time and its peak memory (query_log)"""
    (h, t), = pairs[:1]
    d = Path(tempfile.mkdtemp(prefix="ntprof-bench-join."))
    one = fleet_server.Server(d, "one", query_log=True).start()
    try:
        for i in range(JOIN_ONLY):
            db = f"join{i}"
            subprocess.run([NTPROF, "push", "--url", one.url, "--database", db, "--no-join",
                            str(h), str(t)], check=True)
            log_reset([one])
            wall = timed([NTPROF, "push", "--url", one.url, "--database", db, *JOIN_ROWS,
                          str(h), str(t)])
            pairs_n = int(one.query("SELECT count() FROM pairs", db))
            print(f"join of {ROWS}+{ROWS} {' '.join(JOIN_ROWS)}: {wall:.1f} s, peak "
                  f"{join_peak([one]) / 2**20:.0f} MB, {pairs_n} pairs "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
            # the statements over 1 s: the parts' INSERTs and their counts
            print(one.query("SELECT query_duration_ms, round(memory_usage / 1048576), "
                            "substring(query, 1, 30) FROM system.query_log WHERE type = 2 "
                            "AND query_duration_ms > 1000 ORDER BY event_time"), flush=True)
            one.query(f"DROP DATABASE {db}")
    finally:
        one.stop()
        shutil.rmtree(d, ignore_errors=True)


def push_rounds(pairs):
    """the pair pushed PUSH_ROUNDS times, each into a database of its own"""
    (h, t), = pairs[:1]
    rows = 2 * ROWS
    one = fleet_server.Server(Path(tempfile.mkdtemp(prefix="ntprof-bench-push.")), "one").start()
    got = []
    try:
        for i in range(PUSH_ROUNDS):
            db = f"push{i}"
            subprocess.run([NTPROF, "push", "--url", one.url, "--database", db], check=True)
            c0, s0 = cpu_children(), cpu_servers([one])
            wall = timed([NTPROF, "push", "--url", one.url, "--database", db, "--no-join",
                          str(h), str(t)])
            got.append((cpu_children() - c0, cpu_servers([one]) - s0, wall))
            assert int(one.query("SELECT count() FROM cmds", db)) == rows
            one.query(f"DROP DATABASE {db}")
    finally:
        one.stop()

    def med(k):
        v = sorted(g[k] for g in got)
        return f"{v[len(v) // 2]:.2f} [{v[0]:.2f}, {v[-1]:.2f}]"
    walls = sorted(g[2] for g in got)
    print(f"# push --no-join of {ROWS}+{ROWS} rows, {PUSH_ROUNDS} rounds, median [range], "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"ntprof CPU {med(0)} s  server CPU {med(1)} s  wall {med(2)} s  "
          f"{rows / walls[len(walls) // 2] / 1e3:.0f} k rows/s (wall, median)")


def main():
    d = Path(tempfile.mkdtemp(prefix="ntprof-bench-fleet."))
    try:
        pairs = make_pairs(d)
        if PUSH_ROUNDS:
            push_rounds(pairs)
            return
        if JOIN_ONLY:
            join_only(pairs)
            return
        files_s = sum(timed([NTPROF, "report", str(h), str(t)]) for h, t in pairs)
        file_bytes = sum(p.stat().st_size for hp in pairs for p in hp)
        print(f"# {PAIRS} pairs of {ROWS} commands a side; clickhouse-server 18.16; "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        one = fleet_server.Server(d, "one", query_log=True).start()
        try:
            run("one server", [one], None, pairs, files_s, file_bytes)
        finally:
            one.stop()
        a, b = fleet_server.two_shards(d, query_log=True)
        a.start()
        b.start()
        try:
            run("two shards", [a, b], fleet_server.CLUSTER, pairs, files_s, file_bytes)
        finally:
            a.stop()
            b.stop()
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
