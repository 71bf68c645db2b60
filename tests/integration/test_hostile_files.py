# SPDX-License-Identifier: GPL-2.0
"""Recordings from anywhere (ntprof-ntp(5), Untrusted recordings): files
crafted by these tests to make a reader run forever, exhaust memory or
lie, each of which must end within a second or two with its documented
outcome: the file's own SQL ignored, or one line naming the file and the
corrupt-file exit code."""

import json
import os
import shutil
import sqlite3
import resource
import subprocess

import pytest

import ntpgen
from conftest import Exit, sanitized

# a crafted file must not make a reader work longer than this, in CPU seconds (it takes well
# under one)
QUICK_S = 5


def timed(run, *args):
    """(result, CPU seconds of the run): not the wall clock, which another process
    running meanwhile stretches; the bound tells a runaway read from a loaded machine"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(*args, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
                   "DROP VIEW joined_stages; DROP VIEW host_app_stages; DROP VIEW host_stages;"
                   " ALTER TABLE host_io DROP COLUMN h_queue_ns;")


def missing_table(d, host):
    return crafted(host.path, d, "table.ntp", "DROP VIEW joined_stages; DROP VIEW host_stages; DROP TABLE host_io;")


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
    """(returncode, CPU seconds, peak RSS in MB) of one ntprof run, its output discarded.

    CPU time (user + system), not the wall clock: what another process
    running meanwhile takes from this one's wall clock does not count, so
    the bound tells a quadratic algorithm from a loaded machine."""
    p = subprocess.Popen([str(ntprof), *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    took = ru.ru_utime + ru.ru_stime
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stderr.close()
    return p.returncode, took, ru.ru_maxrss / 1024


@pytest.mark.parametrize("json_out", (False, True), ids=("text", "json"))
def test_80000_groups_linear_and_bounded(ntprof, tmp_path_factory, json_out):
    """80,000 groups report in about 1.5 s of CPU and 250 MB: groups found by
    a hash of their key, samples that start small.  Bounds here are looser,
    for the sanitizers, but far from what a linear search of the groups
    (quadratic) or large arrays a group would take."""
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


# ---- impossible commands: counted, excluded, said so ------------------------------

def report_doc(run, path, *opts):
    r = run("report", *opts, "-j", "-", str(path))
    assert r.returncode == Exit.OK and r.stderr == "", r.stderr
    return json.loads(r.stdout)


def group_of(doc, io_type, size):
    g, = [g for g in doc["groups"] if g["io_type"] == io_type and g["bytes"] == size]
    return g


def rows_of(path, where):
    db = sqlite3.connect(path)
    ids = [i for i, in db.execute(f"SELECT id FROM host_io WHERE {where} ORDER BY id")]
    db.close()
    return ids


def redeclare(path, old, new):
    """Change a table's declaration in place (what a damaged page can amount to)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA writable_schema = ON")
    n = db.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE name = 'host_io'",
                   (old, new)).rowcount
    assert n == 1
    db.close()


@pytest.mark.parametrize("stages", ("summary", "detail"))
def test_backwards_commands_excluded_and_counted(run, tmp_path, host, stages):
    """h_done before h_start: -5000 us end-to-end is no latency; the group
    shows the others, and says how many it left out and why."""
    p = tmp_path / "backwards.ntp"
    shutil.copy(host.path, p)
    bad = rows_of(p, "opcode = 2 AND bytes = 4096")[:7]
    edit(p, f"UPDATE host_io SET h_done_ns = h_start_ns - 5000000 WHERE id IN ({','.join(map(str, bad))})")
    want = group_of(report_doc(run, host.path, f"--stages={stages}"), "read", 4096)
    got = group_of(report_doc(run, p, f"--stages={stages}"), "read", 4096)
    assert got["n"] == want["n"] - 7
    assert got["sum_check"]["ok"] is True
    assert got["sum_check"]["impossible_commands"] == 7
    assert got["sum_check"]["impossible"] == {"backwards": 7, "not_a_number": 0, "overflow": 0}
    assert got["e2e"]["min_ns"] >= 0 and all(s["min_ns"] >= 0 for s in got["stages"])
    # the other groups are untouched: none of theirs is impossible
    other = group_of(report_doc(run, p), "write", 4096)["sum_check"]
    assert other["impossible_commands"] == 0
    assert other["impossible"] == {"backwards": 0, "not_a_number": 0, "overflow": 0}
    text = run("report", f"--stages={stages}", str(p)).stdout
    assert "# warning: 7 impossible commands excluded: 7 with a stage that goes backwards" in text
    assert text.count("# warning: ") == 1


def test_compare_says_which_run_left_impossible_commands_out(run, tmp_path, host):
    """compare reads each run as report does: the 7 impossible reads are left
    out of the new run's statistics, and the groups table says so."""
    p = tmp_path / "backwards.ntp"
    shutil.copy(host.path, p)
    bad = rows_of(p, "opcode = 2 AND bytes = 4096")[:7]
    edit(p, f"UPDATE host_io SET h_done_ns = h_start_ns - 5000000 WHERE id IN ({','.join(map(str, bad))})")
    r = run("compare", "-j", "-", str(host.path), str(p))
    assert r.returncode == Exit.OK, r.stderr
    groups = {(g["io_type"], g["bytes"]): g for g in json.loads(r.stdout)["groups"]}
    read = groups["read", 4096]
    assert (read["impossible_baseline"], read["impossible_new"]) == (0, 7), read
    assert read["n_new"] == read["n_baseline"] - 7
    assert all(g["impossible_new"] == 0 for k, g in groups.items() if k != ("read", 4096))
    text = run("compare", str(host.path), str(p)).stdout
    warn = [x for x in text.splitlines() if "impossible" in x]
    assert warn == ["# warning: read 4KiB nvme0n1: impossible commands excluded: "
                    "0 in the baseline, 7 in the new"], warn


def test_every_command_impossible_never_ok(run, tmp_path, host):
    p = tmp_path / "all.ntp"
    shutil.copy(host.path, p)
    edit(p, "UPDATE host_io SET h_done_ns = h_start_ns - 1")
    text = run("report", str(p)).stdout
    assert "sum check: ok" not in text
    assert "# sum check: none: every command of the group is impossible" in text
    doc = report_doc(run, p)
    assert doc["groups"] and not any(g["sum_check"]["ok"] for g in doc["groups"])
    assert sum(g["sum_check"]["impossible_commands"] for g in doc["groups"]) == len(host.commands)


@pytest.mark.parametrize("stages", ("summary", "detail"))
def test_overflowing_times_counted_as_overflow(run, tmp_path, host, stages):
    """Times at the ends of 64 bits: a difference that overflows (SQLite
    makes it a real, C would wrap) is an impossible command, not a wrapped
    sum that lies; the sanitizer build runs this too."""
    p = tmp_path / "overflow.ntp"
    shutil.copy(host.path, p)
    bad = rows_of(p, "opcode = 1 AND bytes = 4096")[:3]
    edit(p, f"UPDATE host_io SET h_start_ns = -9223372036854775807, h_queue_ns = 9223372036854775807"
            f" WHERE id IN ({','.join(map(str, bad))})")
    got = group_of(report_doc(run, p, f"--stages={stages}"), "write", 4096)
    assert got["sum_check"]["impossible_commands"] == 3
    assert got["sum_check"]["impossible"]["overflow"] + \
        got["sum_check"]["impossible"]["backwards"] == 3
    assert got["sum_check"]["impossible"]["overflow"] >= 1
    assert got["sum_check"]["ok"] is True


def test_overflowing_times_in_a_join_counted_as_overflow(run, tmp_path, pair):
    """A joined report classes them as the host-only report does: a host's
    difference beyond 64 bits (its block stage) and a target's point that
    SQLite computed into a real (its R2T wait) are overflows, not "no
    number"; the commands still join, their times of the bound untouched."""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    shutil.copy(pair[0], h)
    shutil.copy(pair[1], t)
    low = "-9223372036854775807"
    hb = rows_of(h, "1")[:3]
    edit(h, f"UPDATE host_io SET h_start_ns = {low} WHERE id IN ({','.join(map(str, hb))})")
    db = sqlite3.connect(t)
    tb = [i for i, in db.execute("SELECT id FROM target_io WHERE t_r2t_ns IS NOT NULL"
                                 " AND t_submit_ns IS NOT NULL ORDER BY id LIMIT 2")]
    db.close()
    assert len(tb) == 2
    edit(t, f"UPDATE target_io SET t_r2t_ns = {low} WHERE id IN ({','.join(map(str, tb))})")
    for f in ((h,), (h, t)):
        r = run("report", "-j", "-", *map(str, f))
        assert r.returncode == Exit.OK and r.stderr == "", r.stderr
        doc = json.loads(r.stdout)
        got = {k: sum(g["sum_check"]["impossible"][k] for g in doc["groups"])
               for k in ("backwards", "not_a_number", "overflow")}
        assert got == {"backwards": 0, "not_a_number": 0, "overflow": 3 if len(f) == 1 else 5}, f


def test_null_where_a_time_belongs_not_a_number(run, tmp_path, host):
    """A NULL in a NOT NULL column (a damaged page can hold one): no number."""
    p = tmp_path / "null.ntp"
    shutil.copy(host.path, p)
    decl = "h_done_ns       INTEGER NOT NULL"
    redeclare(p, decl, "h_done_ns       INTEGER")
    bad = rows_of(p, "opcode = 2 AND bytes = 131072")[:4]
    edit(p, f"UPDATE host_io SET h_done_ns = NULL WHERE id IN ({','.join(map(str, bad))})")
    redeclare(p, "h_done_ns       INTEGER", decl)
    for stages in ("summary", "detail"):
        got = group_of(report_doc(run, p, f"--stages={stages}"), "read", 131072)
        assert got["sum_check"]["impossible"] == {"backwards": 0, "not_a_number": 4, "overflow": 0}
    text = run("report", str(p)).stdout
    assert "4 with NULL or no number where a time belongs" in text


def test_text_where_a_time_belongs_excluded(run, tmp_path, host):
    p = tmp_path / "text.ntp"
    shutil.copy(host.path, p)
    redeclare(p, ") STRICT", ")")
    bad = rows_of(p, "opcode = 2 AND bytes = 4096")[:5]
    edit(p, f"UPDATE host_io SET h_queue_ns = 'soon' WHERE id IN ({','.join(map(str, bad))})")
    redeclare(p, "\n)", "\n) STRICT")
    # text in arithmetic is 0 to SQLite: the view's stages go backwards; the raw reads see text
    summary = group_of(report_doc(run, p), "read", 4096)["sum_check"]
    assert summary["impossible_commands"] == 5
    detail = group_of(report_doc(run, p, "--stages=detail"), "read", 4096)["sum_check"]
    assert detail["impossible"]["not_a_number"] == 5


def test_declared_nullable_or_not_strict_is_corrupt(run, tmp_path, host):
    """A file whose tables allow what ntprof's do not was not written by ntprof."""
    p = tmp_path / "nullable.ntp"
    shutil.copy(host.path, p)
    redeclare(p, "h_done_ns       INTEGER NOT NULL", "h_done_ns       INTEGER")
    r = run("report", str(p))
    assert r.returncode == Exit.CORRUPT and "h_done_ns may be NULL" in r.stderr
    q = tmp_path / "loose.ntp"
    shutil.copy(host.path, q)
    redeclare(q, ") STRICT", ")")
    r = run("report", str(q))
    assert r.returncode == Exit.CORRUPT and "not STRICT" in r.stderr


# ---- damage met during a join: the corrupt code, the damaged file named ----------

def leaf_pages(path, table, kind="leaf"):
    db = sqlite3.connect(path)
    ps = db.execute("PRAGMA page_size").fetchone()[0]
    pages = [p for p, in db.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ?"
                                    " ORDER BY pageno", (table, kind))]
    db.close()
    return ps, pages


def damage_cells(src, dst, table):
    """A quarter of a leaf page's cells overwritten: found by the check of
    the file's structure at opening, before the join reads a row."""
    shutil.copy(src, dst)
    ps, pages = leaf_pages(dst, table)
    with open(dst, "r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * ps + ps // 2)
        f.write(b"\xff" * (ps // 4))
    return dst


def damage_overflow(src, dst, table, col):
    """One row's long value, its overflow chain broken: only a reader of that
    column meets it (dump's temp.joined reads it, the join's load does not)."""
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    db.execute(f"UPDATE {table} SET {col} = ? WHERE id = (SELECT min(id) + 5 FROM {table})",
               ("x" * 20000,))
    db.commit()
    db.close()
    ps, pages = leaf_pages(dst, table, "overflow")
    with open(dst, "r+b") as f:
        f.seek((pages[0] - 1) * ps)
        f.write(b"\xff\xff\xff\x7f")
    return dst


JOIN_READERS = (("report",), ("report", "--stages=detail"), ("dump",), ("export", "-o", "-"))


def one_corrupt_line(r, cmd, bad, good):
    assert r.returncode == Exit.CORRUPT, (r.returncode, r.stderr)
    line, = r.stderr.splitlines()
    assert line.startswith(f"ntprof {cmd}: error: {bad}: corrupt: "), line
    assert str(good) not in line


@pytest.mark.parametrize("cmd", JOIN_READERS, ids=" ".join)
@pytest.mark.parametrize("side", ("host", "target"))
def test_damaged_page_in_join_corrupt_and_named(run, tmp_path, pair, cmd, side):
    jh, jt, _ = pair
    if side == "host":
        bad, good = damage_cells(jh, tmp_path / "dh.ntp", "host_io"), jt
        args = (str(bad), str(good))
    else:
        bad, good = damage_cells(jt, tmp_path / "dt.ntp", "target_io"), jh
        args = (str(good), str(bad))
    r, took = timed(run, *cmd, *args)
    assert took < QUICK_S
    one_corrupt_line(r, cmd[0], bad, good)
    assert "SQLite's check of its structure" in r.stderr


@pytest.mark.parametrize("side", ("host", "target"))
def test_damage_met_by_a_query_over_both_files_names_the_damaged_one(run, tmp_path, pair, side):
    """temp.joined reads both files in one statement: SQLite's error does not
    say which, the reader finds it (quick_check of each)."""
    jh, jt, _ = pair
    if side == "host":
        bad, good = damage_overflow(jh, tmp_path / "oh.ntp", "host_io", "namespace"), jt
        args = (str(bad), str(good))
    else:
        bad, good = damage_overflow(jt, tmp_path / "ot.ntp", "target_io", "device"), jh
        args = (str(good), str(bad))
    r, took = timed(run, "dump", *args)
    assert took < QUICK_S
    one_corrupt_line(r, "dump", bad, good)


# ---- times at the ends of 64 bits, through every reader ------------------------------

EXTREME = 9223372036854775000


@pytest.fixture(scope="module")
def extreme_pair(tmp_path_factory, pair):
    jh, jt, _ = pair
    d = tmp_path_factory.mktemp("extreme")
    h, t = d / "xh.ntp", d / "xt.ntp"
    shutil.copy(jh, h)
    shutil.copy(jt, t)
    edit(h, f"UPDATE host_io SET h_start_ns = {EXTREME} WHERE id % 5 = 0;"
            f" UPDATE host_io SET h_queue_ns = -{EXTREME}, h_done_ns = {EXTREME} WHERE id % 13 = 0;"
            f" UPDATE host_io SET h_recv_ns = -{EXTREME} WHERE id % 17 = 0;")
    edit(t, f"UPDATE target_io SET t_recv_ns = {EXTREME} WHERE id % 7 = 0;"
            f" UPDATE target_io SET t_sent_ns = -{EXTREME} WHERE id % 11 = 0;"
            f" UPDATE target_io SET t_cmpl_ns = {EXTREME} WHERE id % 3 = 0;")
    return h, t


@pytest.mark.parametrize("cmd", READERS + (("export", "-o", "-"),), ids=" ".join)
@pytest.mark.parametrize("files", ("host", "target", "joined"))
def test_extreme_times_no_overflow(run, extreme_pair, cmd, files):
    """No reader wraps a sum or a difference (the sanitizer build, which
    stops at the first signed overflow, runs this too): each ends as usual,
    the commands whose arithmetic cannot be done counted as impossible."""
    h, t = extreme_pair
    args = {"host": (h,), "target": (t,), "joined": (h, t)}[files]
    r, took = timed(run, *cmd, *map(str, args))
    assert took < QUICK_S
    assert r.returncode == Exit.OK, r.stderr
    assert "runtime error" not in r.stderr
    if cmd == ("report", "-j", "-"):
        doc = json.loads(r.stdout)
        assert sum(g["sum_check"].get("impossible_commands", 0) for g in doc["groups"]) > 0
        for g in doc["groups"]:
            # a target alone's end-to-end is its residence
            assert g.get("e2e", g.get("residence"))["min_ns"] >= 0
            assert g["sum_check"]["ok"] or g["sum_check"]["mismatched_commands"] or not g["n"]
