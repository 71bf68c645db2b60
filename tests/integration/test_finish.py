# SPDX-License-Identifier: GPL-2.0
"""Recordings a recorder did not finish (ntprof-ntp(5), Reading): left in
WAL mode without the -wal that holds them, or with an interrupted write's
journal, each named by every reader, which changes nothing; and finished in
place only by ntprof finish (ntprof-finish(1))."""

import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

import ntpgen
from conftest import Exit, assert_ok
from test_read_only import HALF, NOBODY, argv, case_id, commands, n_of, snapshot

UPDATE = "UPDATE host_io SET comm = 'a longer thread name than any before ' || id"


@pytest.fixture(scope="module")
def src(tmp_path_factory, ntprof):
    d = tmp_path_factory.mktemp("src")
    ntpgen.generate(d / "host.ntp", seed=7)
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", seed=8, lose_host=0, lose_target=0)
    ntpgen.generate_both(d / "both.ntp", lose_host=0, lose_target=0)
    return d


def copy(src, d, name, as_name=None):
    """name from src into d, with the files beside it"""
    for p in src.glob(name + "*"):
        shutil.copy(p, d / (p.name.replace(name, as_name, 1) if as_name else p.name))
    return d / (as_name or name)


def killed_whole(path):
    """a recording whose every row is in path-wal (a recorder killed before
    any checkpoint), path-wal and path-shm then lost: path alone is a bare
    SQLite file"""
    ntpgen.generate(path, seed=4, wal_kill=True)
    os.unlink(f"{path}-wal")
    os.unlink(f"{path}-shm")
    return path


def one_error(r, cmd, path, says):
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"ntprof {cmd}: error: {path}"), r.stderr
    assert says in r.stderr, r.stderr


# every reading command on a host file, and those of two files on a pair whose host is it
MISSING = [("host", c) for c in commands("host", ["bare.ntp"], "OUT")] + \
          [("pair", c) for c in commands("pair", ["bare.ntp", "pt.ntp"], "OUT")]


@pytest.mark.parametrize("kind,cmd", MISSING, ids=map(case_id, MISSING))
def test_wal_missing_named(run, src, tmp_path, kind, cmd):
    d = tmp_path / "rec"
    d.mkdir()
    bare = killed_whole(d / "bare.ntp")
    copy(src, d, "pt.ntp")
    before = snapshot(d)
    r = run(*argv(cmd, d, tmp_path))
    assert r.returncode == Exit.NOFILE, r.stderr
    one_error(r, cmd[0], bare, f"its recording is in {bare}-wal, which is missing")
    assert snapshot(d) == before


def test_wal_missing_checkpointed_read_with_a_warning(run, src, tmp_path):
    """the file alone holds a recording (up to its last checkpoint): read,
    and a warning says what may be missing"""
    p = copy(src, tmp_path, "host.ntp")
    ntpgen.leave_in_wal(p, HALF)
    os.unlink(f"{p}-wal")
    os.unlink(f"{p}-shm")
    before = snapshot(tmp_path)
    r = run("report", "-j", "-", p)
    assert r.returncode == Exit.OK
    assert r.stderr == (f"ntprof report: warning: {p}: left in WAL mode without its {p}-wal: read"
                        f" as it is, without what was committed to {p}-wal since its last"
                        " checkpoint\n")
    whole = run("report", "-j", "-", src / "host.ntp")
    assert n_of(json.loads(r.stdout)) == n_of(json.loads(whole.stdout))
    assert snapshot(tmp_path) == before


HOT = [("host", c) for c in commands("host", ["hot.ntp"], "OUT")] + \
      [("both", c) for c in commands("both", ["hotboth.ntp"], "OUT")]


@pytest.fixture(scope="module")
def hot(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("hot")
    ntpgen.interrupt_write(copy(src, d, "host.ntp", "hot.ntp"), UPDATE)
    ntpgen.interrupt_write(copy(src, d, "both.ntp", "hotboth.ntp"), UPDATE)
    return d


@pytest.mark.parametrize("kind,cmd", HOT, ids=map(case_id, HOT))
def test_interrupted_write_named(run, hot, tmp_path, kind, cmd):
    before = snapshot(hot)
    r = run(*argv(cmd, hot, tmp_path))
    assert r.returncode == Exit.NOFILE, r.stderr
    p = hot / cmd[-1]
    one_error(r, cmd[0], p, f"a write to it was interrupted and {p}-journal holds what undoes it;"
              f" 'ntprof finish {p}' rolls it back")
    assert snapshot(hot) == before


# ---- ntprof finish ------------------------------------------------------------

def header_modes(p):
    """bytes 18 and 19 of the SQLite header: 1 1 rollback journal, 2 2 WAL"""
    with open(p, "rb") as f:
        return tuple(f.read(20)[18:20])


def joined_report(run, *files):
    r = run("report", "-j", "-", *files)
    assert_ok(r)
    return json.loads(r.stdout)["groups"]


@pytest.mark.parametrize("name,shm", [("host.ntp", True), ("host.ntp", False), ("both.ntp", True),
                                      ("ph.ntp", True)])
def test_finish_folds_the_wal_in(run, src, tmp_path, name, shm):
    p = copy(src, tmp_path, name)
    ntpgen.leave_in_wal(p, HALF, shm=shm)
    files = [p, src / "pt.ntp"] if name == "ph.ntp" else [p]
    read = joined_report(run, *files)
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished: its -wal folded in\n"
    assert [x.name for x in tmp_path.iterdir()] == [name]
    assert header_modes(p) == (1, 1)
    assert joined_report(run, *files) == read
    assert n_of({"groups": read}) < n_of({"groups": joined_report(run, *[src / f.name for f in files])})


def test_finish_rolls_an_interrupted_write_back(run, src, tmp_path):
    p = copy(src, tmp_path, "host.ntp")
    ntpgen.interrupt_write(p, UPDATE)
    assert p.read_bytes() != (src / "host.ntp").read_bytes()
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished: the interrupted write rolled back\n"
    assert [x.name for x in tmp_path.iterdir()] == ["host.ntp"]
    assert p.read_bytes() == (src / "host.ntp").read_bytes()


@pytest.mark.parametrize("opt", ["-n", "--dry-run"])
def test_finish_dry_run_changes_nothing(run, src, tmp_path, opt):
    p = copy(src, tmp_path, "host.ntp")
    ntpgen.leave_in_wal(p, HALF)
    before = snapshot(tmp_path)
    r = run("finish", opt, p)
    assert_ok(r)
    assert r.stdout == f"{p}: would be finished: its -wal folded in\n"
    assert snapshot(tmp_path) == before


def test_finish_of_a_finished_recording_does_nothing(run, src, tmp_path):
    p = copy(src, tmp_path, "host.ntp")
    before = snapshot(tmp_path)
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished already: nothing to do\n"
    assert snapshot(tmp_path) == before


def test_finish_refuses_a_missing_wal_unless_told(run, src, tmp_path):
    p = copy(src, tmp_path, "host.ntp")
    ntpgen.leave_in_wal(p, HALF)
    os.unlink(f"{p}-wal")
    os.unlink(f"{p}-shm")
    before = snapshot(tmp_path)
    r = run("finish", p)
    assert r.returncode == Exit.NOFILE and r.stdout == ""
    one_error(r, "finish", p, "--without-wal")
    assert snapshot(tmp_path) == before
    r = run("finish", "--without-wal", p)
    assert r.returncode == Exit.OK, r.stderr
    assert r.stdout == f"{p}: finished: as it was, without its missing -wal\n"
    assert [x.name for x in tmp_path.iterdir()] == ["host.ntp"]
    assert header_modes(p) == (1, 1)
    # read now without a warning: the file is what it says
    assert joined_report(run, p) == joined_report(run, src / "host.ntp")


def test_finish_of_a_bare_file_names_the_missing_wal(run, tmp_path):
    p = killed_whole(tmp_path / "bare.ntp")
    before = snapshot(tmp_path)
    r = run("finish", "--without-wal", p)
    assert r.returncode == Exit.NOFILE and r.stdout == ""
    one_error(r, "finish", p, f"its recording is in {p}-wal, which is missing")
    assert snapshot(tmp_path) == before


def test_finish_leaves_other_databases_alone(run, tmp_path):
    p = tmp_path / "other.db"
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    ntpgen.leave_in_wal(p, "INSERT INTO t VALUES (1)")
    before = snapshot(tmp_path)
    r = run("finish", p)
    assert r.returncode == Exit.NOTNTP and r.stdout == ""
    one_error(r, "finish", p, "not an ntprof recording")
    assert snapshot(tmp_path) == before


def test_finish_refuses_a_file_in_use(run, src, tmp_path):
    p = copy(src, tmp_path, "host.ntp")
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            db = sqlite3.connect(p, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(HALF)
            os.write(ready_w, b"1")
            signal.pause()
        finally:
            os._exit(0)
    os.close(ready_w)
    try:
        assert os.read(ready_r, 1) == b"1"
        names = sorted(x.name for x in tmp_path.iterdir())
        r = run("finish", p)
        assert r.returncode == Exit.FAILURE and r.stdout == ""
        one_error(r, "finish", p, f"in use by process {pid}")
        assert sorted(x.name for x in tmp_path.iterdir()) == names
        assert header_modes(p) == (2, 2)
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(ready_r)


def test_finish_several_files_first_failure(run, src, tmp_path):
    a = copy(src, tmp_path, "host.ntp", "a.ntp")
    b = copy(src, tmp_path, "host.ntp", "b.ntp")
    ntpgen.leave_in_wal(a, HALF)
    ntpgen.leave_in_wal(b, HALF)
    r = run("finish", a, tmp_path / "none.ntp", b)
    assert r.returncode == Exit.NOFILE
    assert r.stdout == f"{a}: finished: its -wal folded in\n{b}: finished: its -wal folded in\n"
    one_error(r, "finish", tmp_path / "none.ntp", "No such file or directory")


@pytest.mark.root
@pytest.mark.parametrize("mode,says", [(0o644, "cannot finish it in place: Permission denied"),
                                       (0o666, "cannot finish it in place: directory")])
def test_finish_in_a_read_only_directory_changes_nothing(ntprof, src, mode, says):
    """as nobody, the files root's (or anybody's) in a directory of root's:
    refused before anything is written, not left half finished"""
    top = Path(tempfile.mkdtemp(prefix="ntprof-ro-", dir="/tmp"))
    try:
        top.chmod(0o755)
        p = copy(src, top, "host.ntp")
        ntpgen.leave_in_wal(p, HALF)
        for x in top.iterdir():
            x.chmod(mode)
        before = snapshot(top)
        r = subprocess.run([*NOBODY, str(ntprof), "finish", str(p)], capture_output=True,
                           text=True, timeout=60, cwd="/")
        assert r.returncode == Exit.FAILURE and r.stdout == ""
        one_error(r, "finish", p, says)
        assert snapshot(top) == before
    finally:
        shutil.rmtree(top)


# FILE.spool (lib/ntp/db_write.c): its header, then (version 1) whole records
# as the ring buffers carry them, or (version 2, lib/ntp/spool_codec.h) each
# record as a 32-bit head, its kind (1 host, 2 target) in bits 0-1 and a bit
# per 8-byte word that differs from the previous record of its kind (all 0
# before the first) from bit 2, then those words; the layout of struct
# ntp_host_event (bpf/ntp_events.h), whose size the header states, so that a
# change of the struct fails here by name ("another ntprof build's layout")
# rather than by a wrong count
SPOOL_HEADER = struct.Struct("<8sIHH")
HOST_EVENT = struct.Struct("<II8QIIHHHHHBBI32s32s4QII16sB7x")
TARGET_EVENT_SIZE = 112


def host_event(i):
    """a sampled 4 KiB read of nvme0n1, 100 us end to end"""
    t = 2_000_000_000_000 + i * 1_000_000
    return HOST_EVENT.pack(1, 0, t, t + 10_000, t + 20_000, 0, 0, t + 90_000, t + 100_000,
                           8 * i, 4096, 1, i & 0xffff, 7, 1, 1, 0, 2, 0, 0,
                           b"nvme0n1", b"nvme0n1", 0, 0, 0, 0, 1234, 1234, b"fio", 0)


def changed_words(prev, rec):
    """a host record as spool version 2 writes it after prev"""
    head, words = 0, b""
    for w in range(len(rec) // 8):
        if rec[8 * w:8 * w + 8] != prev[8 * w:8 * w + 8]:
            head |= 1 << w
            words += rec[8 * w:8 * w + 8]
    return struct.pack("<I", head << 2 | 1) + words


def write_spool(path, n, version=1, cut=True):
    prev = bytes(HOST_EVENT.size)
    with open(f"{path}.spool", "wb") as f:
        f.write(SPOOL_HEADER.pack(b"NTPSPOOL", version, HOST_EVENT.size, TARGET_EVENT_SIZE))
        for i in range(n + cut):
            rec = host_event(i) if version == 1 else changed_words(prev, host_event(i))
            prev = host_event(i)
            # the last one cut short by the kill: ignored
            f.write(rec if i < n else rec[:len(rec) - 3])


def test_finish_reads_a_spool_of_changed_words(run, tmp_path):
    p = tmp_path / "killed.ntp"
    ntpgen.generate(p, seed=4, wal_kill=True)
    write_spool(p, 300, version=2)
    rows = len(ntpgen.generate(tmp_path / "again.ntp", seed=4).commands)
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished: its spool's 300 commands written in, its -wal folded in\n"
    assert host_rows(p) == rows + 300
    with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as db:
        assert db.execute("SELECT count(*) FROM host_io WHERE comm = 'fio' AND bytes = 4096 AND"
                          " h_done_ns - h_start_ns = 100000 AND slba = 8 * cid").fetchone()[0] == 300


def test_finish_refuses_a_spool_record_of_no_known_kind(run, tmp_path):
    p = tmp_path / "killed.ntp"
    ntpgen.generate(p, seed=4, wal_kill=True)
    write_spool(p, 10, version=2, cut=False)
    with open(f"{p}.spool", "ab") as f:
        at = f.tell()
        f.write(struct.pack("<I", 3) + bytes(300))
    spool = open(f"{p}.spool", "rb").read()
    r = run("finish", p)
    assert r.returncode == Exit.FAILURE and r.stdout == ""
    assert r.stderr == (f"ntprof finish: error: reading {p}.spool: a record of unknown kind 3"
                        f" at byte {at}\n")
    assert open(f"{p}.spool", "rb").read() == spool
    assert open(f"{p}.spool", "rb").read() == spool


def host_rows(p):
    with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM host_io").fetchone()[0]


@pytest.mark.parametrize("opt", [None, "-n"])
def test_finish_writes_a_killed_records_spool_in(run, tmp_path, opt):
    p = tmp_path / "killed.ntp"
    ntpgen.generate(p, seed=4, wal_kill=True)
    write_spool(p, 300)
    # a reader reads it without the spool's commands, says so, and changes nothing
    before = snapshot(tmp_path)
    r = run("report", p)
    assert r.returncode == 0 and r.stdout
    assert r.stderr == (f"ntprof report: warning: {p}: its commands are in {p}.spool until"
                        " ntprof finish writes them into it: read without them\n")
    assert snapshot(tmp_path) == before
    if opt:
        r = run("finish", opt, p)
        assert_ok(r)
        assert r.stdout == f"{p}: would be finished: its spool's commands written in, its -wal folded in\n"
        assert snapshot(tmp_path) == before
        return
    rows = len(ntpgen.generate(tmp_path / "again.ntp", seed=4).commands)
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished: its spool's 300 commands written in, its -wal folded in\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["again.ntp", "killed.ntp"]
    assert header_modes(p) == (1, 1)
    assert host_rows(p) == rows + 300
    with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'spooled'").fetchone()[0] == 300
        assert db.execute("SELECT count(*) FROM host_io WHERE comm = 'fio' AND bytes = 4096"
                          " AND h_done_ns - h_start_ns = 100000").fetchone()[0] == 300
    # a spool put back beside the finished file: removed, nothing taken twice
    write_spool(p, 300)
    r = run("finish", p)
    assert_ok(r)
    assert r.stdout == f"{p}: finished: its spool's 0 commands written in\n"
    assert not os.path.exists(f"{p}.spool")
    assert host_rows(p) == rows + 300
