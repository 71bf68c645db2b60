#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A host and a target recording of N commands each, for timing the join.

    bench/join_pair.py HOST.ntp TARGET.ntp N [--reuse rare|heavy] [--base B] [--no-key]

ntpgen.py writes a base pair of B commands (two clocks: the target 1.23 s
ahead, 20 ppm drift; nothing lost, nothing rejected: every command joins),
then SQL repeats its rows with shifted times until each side holds N:

  rare   every command has its own block address, and each copy moves them,
         so a key (cid, slba, nlb, ...) is as rare as in a real recording;
  heavy  ntpgen's own keys (cid = i % 8, three block addresses) in every
         copy: each of its 72 keys repeats about N / 72 times.

A copy k is shifted by k x the base's duration on the host and by that
times (1 + drift) on the target, so the clocks keep one line.  With heavy
reuse each copy's commands of one key are moved by a jitter of their own
(up to 10 ms, the same on both sides, much more than a command's flight):
exact copies would make the line one copy off agree with all but one
copy's pairs (99.8% at 10 M), which no real recording does.  Each row's
join_key is its own key's, as record writes it; --no-key leaves the column
out, as in recordings made before it, whose keys the join computes.
"""

import argparse
import sys
import sqlite3
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))
import ntpgen  # noqa: E402

OFFSET_NS = 1_230_000_000
DRIFT = 20e-6
BASE_S = 2

HOST_TIMES = ("h_start_ns", "h_queue_ns", "h_cmd_sent_ns", "h_r2t_ns", "h_data_sent_ns",
              "h_recv_ns", "h_done_ns")
TARGET_TIMES = ("t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns")


def columns(db, table):
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "id"]


# a copy's jitter of a key's commands: the same on both sides, and a square modulo a prime,
# so that two copies' jitters differ by no one amount; every product within 64 bits (beyond,
# SQLite's arithmetic turns to doubles)
JITTER_NS = 10_000_000
_X = "((k.k * 1000003 + cid * 7919 + (slba % 1000003) * 104729 + nlb * 31 + opcode) % 2147483647)"
JITTER = f"({_X} * {_X} % 2147483647 % {JITTER_NS})"


def expand(path, table, times, copies, shift_ns, slba_step, jitter):
    db = sqlite3.connect(path, isolation_level=None)
    db.create_function("ntpgen_join_key", 7, ntpgen.join_key, deterministic=True)
    cols = columns(db, table)
    sel = []
    for c in cols:
        if c in times:
            sel.append(f"{c} + k.k * {shift_ns}" + (f" + {JITTER}" if jitter else ""))
        elif c == "slba":
            sel.append(f"slba + k.k * {slba_step}")
        elif c == "join_key" and slba_step:
            # the copy's own key, as record would have written it
            sel.append(f"ntpgen_join_key(cid, slba + k.k * {slba_step}, nlb, qid, nsid, cntlid,"
                       " opcode)")
        else:
            sel.append(c)
    n = db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
    db.execute("BEGIN")
    db.execute(f"INSERT INTO {table} ({', '.join(cols)})"
               f" WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < {copies - 1})"
               f" SELECT {', '.join(sel)} FROM k, {table} WHERE {table}.id <= {n}"
               f" ORDER BY k.k, {table}.id")
    side = "host" if table == "host_io" else "target"
    db.execute("INSERT INTO intervals SELECT t_ns + k.k * ?1, side, seen, sampled, lost_ringbuf,"
               " lost_map FROM (WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k"
               f" WHERE k < {copies - 1}) SELECT k FROM k) AS k, intervals WHERE side = ?2"
               " ORDER BY k.k", (shift_ns, side))
    db.execute("UPDATE meta SET value = value + ?1 WHERE key = 'stop_ns'",
               ((copies - 1) * shift_ns + (JITTER_NS if jitter else 0),))
    db.execute("COMMIT")
    db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("host")
    ap.add_argument("target")
    ap.add_argument("n", type=int)
    ap.add_argument("--reuse", choices=("rare", "heavy"), default="rare")
    ap.add_argument("--base", type=int, default=20000)
    ap.add_argument("--no-key", action="store_true",
                    help="without the join_key column, as recordings made before it")
    a = ap.parse_args()
    base = min(a.base, a.n)
    copies = (a.n + base - 1) // base
    groups = (ntpgen.JGroup("read", 4096, "nvme0n1", base * 6 // 10),
              ntpgen.JGroup("write", 4096, "nvme0n1", base * 3 // 10),
              ntpgen.JGroup("write", 131072, "nvme0n1", base - base * 9 // 10, r2t_share=0.6))
    link = ntpgen.Link(0, 0, offset_ns=OFFSET_NS, drift=DRIFT, groups=groups)
    ntpgen.generate_joined([a.host], [a.target], [link], seed=7, lose_host=0, lose_target=0,
                           reject=0, duration_s=BASE_S, sample_one_in=1,
                           nslbas=0 if a.reuse == "rare" else 3)
    if copies > 1:
        shift = BASE_S * 10**9
        rare = 1 << 41 if a.reuse == "rare" else 0
        heavy = a.reuse == "heavy"
        expand(a.host, "host_io", HOST_TIMES, copies, shift, rare, heavy)
        expand(a.target, "target_io", TARGET_TIMES, copies, round(shift * (1 + DRIFT)), rare,
               heavy)
    if a.no_key:
        ntpgen.drop_join_key(a.host)
        ntpgen.drop_join_key(a.target)


if __name__ == "__main__":
    main()
