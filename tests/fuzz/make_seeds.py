#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fuzzer's seed corpus: small recordings of every kind ntpgen.py makes
(host, target, -r both, RDMA, joined), so that mutations start from real files, and
three hostile ones (tests/integration/test_hostile_files.py has more): a
host_stages view that never ends, commands that go backwards, times at the
ends of 64 bits.

    tests/fuzz/make_seeds.py DIR
"""
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
import ntpgen  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
few = tuple(ntpgen.Group(**{**g.__dict__, "n": 3}) for g in ntpgen.DEFAULT_GROUPS)
ntpgen.generate(out / "host.ntp", seed=1, groups=few)
ntpgen.generate(out / "host-rdma.ntp", seed=2, groups=few, transport="rdma")
jfew = tuple(ntpgen.JGroup(**{**g.__dict__, "n": 4}) for g in ntpgen.DEFAULT_JGROUPS)
ntpgen.generate_pair(out / "pair-host.ntp", out / "pair-target.ntp", seed=3, groups=jfew)
ntpgen.generate_both(out / "both.ntp", seed=4, groups=jfew)
ntpgen.write_joined_file(out / "joined.ntp", ntpgen.generate_pair(
    out / "j-host.ntp", out / "j-target.ntp", seed=5, groups=jfew))
for p in ("j-host.ntp", "j-target.ntp"):
    (out / p).unlink()

def hostile(name, sql):
    shutil.copy(out / "host.ntp", out / name)
    db = sqlite3.connect(out / name, isolation_level=None)
    db.executescript(sql)
    db.close()


hostile("hostile-endless-view.ntp", "DROP VIEW host_stages; CREATE VIEW host_stages AS"
        " WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c)"
        " SELECT id, 'read' AS io_type, 1 AS e2e_ns FROM c;")
hostile("hostile-backwards.ntp", "UPDATE host_io SET h_done_ns = h_start_ns - 5000 WHERE id % 2 = 0;")
hostile("hostile-extreme.ntp", "UPDATE host_io SET h_start_ns = -9223372036854775807,"
        " h_done_ns = 9223372036854775807 WHERE id % 3 = 0;")
for p in out.glob("*.ntp-*"):
    p.unlink()
# monitor's HTTP requests (tests/fuzz/fuzz_readers.c feeds every input to its parser too)
(out / "http-get.txt").write_bytes(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\n"
                                   b"Accept: text/plain\r\n\r\n")
(out / "http-head.txt").write_bytes(b"HEAD /metrics?x=1 HTTP/1.0\n\n")
(out / "listen.txt").write_bytes(b"[::1]:9464")
print(f"{out}: {len(list(out.glob('*.ntp')))} seed recordings")
