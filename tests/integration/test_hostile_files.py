# SPDX-License-Identifier: GPL-2.0
"""Recordings from anywhere (ntprof-ntp(5), UNTRUSTED RECORDINGS): files
crafted by these tests to make a reader run forever, exhaust memory or
lie, each of which must end within a second or two with its documented
outcome: the file's own SQL ignored, or one line naming the file and the
corrupt-file exit code."""

import json
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

import ntpgen
from conftest import Exit

# a crafted file must not make a reader take longer than this (it takes well under a second)
QUICK_S = 5


def sanitized(ntprof):
    """An ASan build: slower, and its allocator keeps freed memory in quarantine."""
    with open(ntprof, "rb") as f:
        return b"__asan_init" in f.read()


def timed(run, *args):
    t0 = time.monotonic()
    r = run(*args, timeout=60)
    return r, time.monotonic() - t0


def edit(path, sql):
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(sql)
    db.close()


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("host") / "h.ntp", seed=7)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("pair")
    js = ntpgen.generate_pair(d / "jh.ntp", d / "jt.ntp", seed=8)
    return d / "jh.ntp", d / "jt.ntp", js


def crafted(src, d, name, sql):
    p = d / name
    shutil.copy(src, p)
    edit(p, sql)
    return p


ENDLESS = ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)"
           " SELECT i AS id, 'read' AS io_type, 4096 AS bytes, 'nvme0n1' AS namespace,"
           " 'nvme0n1' AS path, 'nvme0' AS controller, 1 AS qid, 1 AS cid, 0 AS slba,"
           " 8 AS nlb, 0 AS status, 1 AS e2e_ns, 1 AS block_ns, 0 AS driver_ns,"
           " 0 AS network_star_ns, 0 AS h_start_ns, 1 AS h_done_ns FROM c")
# 2^5 x ... a cross join of host_io with itself four times: 10^12 rows from a 100 KB file
CROSS = ("SELECT a.id AS id, 'read' AS io_type, a.bytes, a.namespace, a.path, a.controller,"
         " a.qid, a.cid, a.slba, a.nlb, a.status, 1 AS e2e_ns, 1 AS block_ns, 0 AS driver_ns,"
         " 0 AS network_star_ns, a.h_start_ns, a.h_done_ns"
         " FROM host_io a, host_io b, host_io c, host_io d")

VIEW_CASES = {
    "endless": f"DROP VIEW host_stages; CREATE VIEW host_stages AS {ENDLESS};",
    "cross_join": f"DROP VIEW host_stages; CREATE VIEW host_stages AS {CROSS};",
    "no_view": "DROP VIEW host_stages;",
}

READERS = (("report",), ("report", "-j", "-"), ("report", "--stages=detail"), ("dump",))


def masked(text, *paths):
    for p in paths:
        text = text.replace(str(p), "FILE")
    return text


@pytest.mark.parametrize("case", VIEW_CASES)
@pytest.mark.parametrize("cmd", READERS, ids=" ".join)
def test_file_views_are_never_run(run, tmp_path, host, case, cmd):
    """A file's own host_stages, whatever it holds (or its absence), is never
    what a reader reads: the output is that of the untouched file."""
    p = crafted(host.path, tmp_path, f"{case}.ntp", VIEW_CASES[case])
    want = run(*cmd, str(host.path))
    r, took = timed(run, *cmd, str(p))
    assert took < QUICK_S
    assert r.returncode == Exit.OK and r.stderr == "", r.stderr
    assert masked(r.stdout, p) == masked(want.stdout, host.path)


def test_compare_ignores_file_views(run, tmp_path, host):
    p = crafted(host.path, tmp_path, "endless.ntp", VIEW_CASES["endless"])
    want = run("compare", "-j", "-", str(host.path), str(host.path))
    r, took = timed(run, "compare", "-j", "-", str(p), str(host.path))
    assert took < QUICK_S
    assert r.returncode == Exit.OK and r.stderr == "", r.stderr
    assert masked(r.stdout, p, host.path) == masked(want.stdout, host.path)


@pytest.mark.parametrize("cmd", (("report",), ("report", "--stages=detail"), ("dump",),
                                 ("export", "-o", "-")), ids=" ".join)
def test_joined_files_views_are_never_run(run, tmp_path, pair, cmd):
    """The join reads ntprof's views of each attached file too (ntpN_host_stages)."""
    jh, jt, _ = pair
    # the same names: export writes a file's name into the trace
    h = crafted(jh, tmp_path, jh.name, VIEW_CASES["endless"])
    t = crafted(jt, tmp_path, jt.name, "DROP VIEW target_stages; CREATE VIEW target_stages AS"
                " WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)"
                " SELECT i AS id, 1 AS residence_ns, 1 AS target_driver_ns, 1 AS storage_ns FROM c;")
    want = run(*cmd, str(jh), str(jt))
    assert want.returncode == Exit.OK, want.stderr
    r, took = timed(run, *cmd, str(h), str(t))
    assert took < QUICK_S
    assert r.returncode == Exit.OK, r.stderr
    # export says what it wrote on stderr
    assert masked(r.stderr, h, t) == masked(want.stderr, jh, jt)
    assert masked(r.stdout, h, t) == masked(want.stdout, jh, jt)


# ---- files whose tables are not ntprof's: corrupt, the file named ---------------

def table_as_view(d, host):
    return crafted(host.path, d, "view.ntp", "ALTER TABLE host_io RENAME TO hio;"
                   f" CREATE VIEW host_io AS {ENDLESS.replace('FROM c', 'FROM c, hio')};")


def generated_column(d, host):
    return crafted(host.path, d, "generated.ntp", "ALTER TABLE host_io ADD COLUMN zz INTEGER"
                   " GENERATED ALWAYS AS (length(printf('%.*c', 100000000, 'x'))) VIRTUAL;")


def missing_column(d, host):
    return crafted(host.path, d, "column.ntp",
                   "DROP VIEW host_stages; ALTER TABLE host_io DROP COLUMN h_queue_ns;")


def missing_table(d, host):
    return crafted(host.path, d, "table.ntp", "DROP VIEW host_stages; DROP TABLE host_io;")


def unsupported_format(d, host):
    p = d / "format.ntp"
    shutil.copy(host.path, p)
    with open(p, "r+b") as f:    # the schema format number, SQLite knows 1 to 4
        f.seek(44)
        f.write((5).to_bytes(4, "big"))
    return p


def virtual_table(d, host):
    return crafted(host.path, d, "virtual.ntp", "DROP VIEW host_stages; DROP TABLE hooks;"
                   " CREATE VIRTUAL TABLE hooks USING fts4(side, point, hook, flavour, reason);")


BAD_TABLES = [
    (table_as_view, "host_io"),
    (generated_column, "generated column"),
    (missing_column, "h_queue_ns"),
    (missing_table, "host_io"),
    (unsupported_format, "unsupported file format"),
    (virtual_table, "hooks"),
]


@pytest.mark.parametrize("cmd", ("report", "dump"))
@pytest.mark.parametrize("make,cause", BAD_TABLES, ids=[c[0].__name__ for c in BAD_TABLES])
def test_not_ntprof_tables_corrupt(run, tmp_path, host, cmd, make, cause):
    p = make(tmp_path, host)
    r, took = timed(run, cmd, str(p))
    assert took < QUICK_S
    assert r.returncode == Exit.CORRUPT, (r.returncode, r.stderr)
    assert r.stdout == ""
    line, = r.stderr.splitlines()
    assert line.startswith(f"ntprof {cmd}: error: {p}: corrupt")
    assert cause in line


@pytest.mark.parametrize("make,cause", BAD_TABLES, ids=[c[0].__name__ for c in BAD_TABLES])
def test_not_ntprof_tables_corrupt_in_a_join(run, tmp_path, host, pair, make, cause):
    jh, jt, _ = pair
    p = make(tmp_path, host)
    r, took = timed(run, "report", str(p), str(jt))
    assert took < QUICK_S
    assert r.returncode == Exit.CORRUPT, (r.returncode, r.stderr)
    line, = r.stderr.splitlines()
    assert f"{p}: corrupt" in line and cause in line


# ---- many groups: linear time, bounded memory --------------------------------------

def many_groups(path, n):
    """n commands, each of its own size: n groups."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(ntpgen.SCHEMA.read_text())
    db.execute("BEGIN")
    db.executemany("INSERT INTO meta VALUES (?, ?)",
                   {"role": "host", "transport": "tcp", "sample_one_in": 1, "hash_version": 1,
                    "start_ns": 10**12, "stop_ns": 10**12 + 10**10}.items())
    db.execute(f"""
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {n}),
        t AS (SELECT i, 1000000000000 + i * 1000 AS s FROM c)
        INSERT INTO host_io (h_start_ns, h_queue_ns, h_cmd_sent_ns, h_recv_ns, h_done_ns,
            opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, controller, namespace, path)
        SELECT s, s + 100, s + 200, s + 700, s + 800, 2, i % 65536, i, 1, 512 * i, 1, 1, 1,
            'nvme0', 'nvme0n1', 'nvme0n1' FROM t""")
    db.execute("COMMIT")
    db.close()


def measured(ntprof, *args):
    """(returncode, seconds, peak RSS in MB) of one ntprof run, its output discarded."""
    t0 = time.monotonic()
    p = subprocess.Popen([str(ntprof), *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    took = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stderr.close()
    return p.returncode, took, ru.ru_maxrss / 1024


@pytest.mark.parametrize("json_out", (False, True), ids=("text", "json"))
def test_80000_groups_linear_and_bounded(ntprof, tmp_path_factory, json_out):
    """80,000 groups report in under 2 s and 200 MB (the linear search and
    17 KB a group took 21 s and 1.4 GB).  Bounds here are looser, for a
    loaded machine and the sanitizers, but far from the quadratic's."""
    d = tmp_path_factory.getbasetemp() / "groups80k"
    path = d / "g.ntp"
    if not path.exists():
        d.mkdir(exist_ok=True)
        many_groups(path, 80000)
    args = ("report", "-j", "-", str(path)) if json_out else ("report", str(path))
    rc, took, mb = measured(ntprof, *args)
    assert rc == Exit.OK
    slow = 4 if sanitized(ntprof) else 1
    assert took < 6 * slow, f"{took:.1f} s"
    assert mb < 250 * slow, f"{mb:.0f} MB"
