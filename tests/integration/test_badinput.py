# SPDX-License-Identifier: GPL-2.0
"""report and dump on every kind of bad input: each gets its own exit code
from lib/cli/exit.h and one line on stderr naming the file and the cause, never a
crash; and a recording left behind by SIGKILL still opens."""

import json
import os
import shutil
import sqlite3

import pytest

import ntpgen
from conftest import Exit

COMMANDS = ("report", "dump")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("good") / "good.ntp", seed=2,
                           groups=(ntpgen.Group("read", 4096, "nvme0n1", 3000),))


def missing(d, good):
    return d / "no-such.ntp"


def directory(d, good):
    p = d / "adir.ntp"
    p.mkdir()
    return p


def empty(d, good):
    p = d / "empty.ntp"
    p.write_bytes(b"")
    return p


def text(d, good):
    p = d / "notes.ntp"
    p.write_text("this is not a recording\n" * 20)
    return p


def other_sqlite(d, good):
    p = d / "other.db"
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE t(x)")
    db.execute("INSERT INTO t VALUES (1)")
    db.commit()
    db.close()
    return p


def newer_schema(d, good):
    p = d / "v99.ntp"
    shutil.copy(good.path, p)
    db = sqlite3.connect(p)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    return p


def truncated(d, good):
    p = d / "half.ntp"
    data = good.path.read_bytes()
    p.write_bytes(data[:len(data) // 2])
    return p


CASES = [
    (missing, Exit.NOFILE, "No such file"),
    (directory, Exit.NOFILE, "directory"),
    (empty, Exit.NOTSQLITE, "empty"),
    (text, Exit.NOTSQLITE, "not an SQLite database"),
    (other_sqlite, Exit.NOTNTP, "not an ntprof recording"),
    (newer_schema, Exit.TOONEW, "99"),
    (truncated, Exit.CORRUPT, "truncated"),
]


def one_error_line(r, cmd, path, cause):
    assert r.returncode > 0, "killed by a signal"
    assert "Traceback" not in r.stderr and "core dumped" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"ntprof {cmd}: error: ")
    assert str(path) in lines[0]
    assert cause.lower() in lines[0].lower()


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("make,code,cause", CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_file(run, tmp_path, good, cmd, make, code, cause):
    path = make(tmp_path, good)
    r = run(cmd, str(path))
    assert r.returncode == code, (r.returncode, r.stderr)
    assert r.stdout == ""
    one_error_line(r, cmd, path, cause)


@pytest.mark.parametrize("make,code,cause", CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_file_json_error_document(run, tmp_path, good, make, code, cause):
    """In JSON mode stdout is still exactly one document: the error."""
    path = make(tmp_path, good)
    r = run("report", "-j", "-", str(path))
    assert r.returncode == code
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == code
    assert str(path) in doc["error"]["message"]
    one_error_line(r, "report", path, cause)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_recording_left_by_sigkill_opens(run, tmp_path, cmd):
    rec = ntpgen.generate(tmp_path / "killed.ntp", seed=4, wal_kill=True,
                          groups=(ntpgen.Group("write", 8192, "nvme0n1", 500),))
    assert os.path.getsize(f"{rec.path}-wal") > 0
    assert os.path.exists(f"{rec.path}-shm")
    before = rec.path.read_bytes()
    r = run(cmd, str(rec.path)) if cmd == "dump" else run(cmd, "-j", "-", str(rec.path))
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    if cmd == "dump":
        assert len(r.stdout.splitlines()) == 1 + 500
    else:
        g, = json.loads(r.stdout)["groups"]
        assert g["n"] == 500
    # a reader never changes the recording itself
    assert rec.path.read_bytes() == before


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("opt", ["--no-such-option", "-Z"])
def test_unknown_option(run, good, cmd, opt):
    r = run(cmd, opt, str(good.path))
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ntprof {cmd}: error: ")
    assert opt in lines[0]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_no_file_and_two_files(run, good, cmd):
    r = run(cmd)
    assert r.returncode == Exit.USAGE and len(r.stderr.splitlines()) == 1
    r = run(cmd, str(good.path), str(good.path))
    assert r.returncode == Exit.USAGE and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("threads", ["1", "2"])
def test_join_of_bad_files_names_the_first(run, tmp_path, threads):
    """A join checks its files at once (one a thread), yet tells the first
    bad one in the order given, one line, as checks one after another
    would; a good file before it changes nothing."""
    host, target = tmp_path / "host.ntp", tmp_path / "target.ntp"
    ntpgen.generate_pair(host, target)
    pair = ntpgen.generate(tmp_path / "g.ntp", seed=2)
    bad_text = text(tmp_path, pair)
    bad_cut = truncated(tmp_path, pair)
    env = {"NTPROF_THREADS": threads}
    for files, first, code, cause in (
            ((bad_text, bad_cut), bad_text, Exit.NOTSQLITE, "not an SQLite database"),
            ((bad_cut, bad_text), bad_cut, Exit.CORRUPT, "truncated"),
            ((host, bad_cut, bad_text), bad_cut, Exit.CORRUPT, "truncated")):
        r = run("report", *files, env=env)
        assert r.returncode == code, (files, r.returncode, r.stderr)
        assert r.stdout == ""
        one_error_line(r, "report", first, cause)
        others = [f for f in files if f != first]
        assert not any(str(f) in r.stderr for f in others if f not in (host, target)), r.stderr
        r = run("report", "-j", "-", *files, env=env)
        assert r.returncode == code
        assert str(first) in json.loads(r.stdout)["error"]["message"]
    r = run("report", host, target, env=env)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("cmd", ["report", "series", "dump", "join"])
def test_unrelated_host_and_target__refused_as_join_refuses(run, tmp_path, cmd):
    """A host and a target recording of two other runs: no command pairs.  Every
    reader refuses them as ntprof join does (exit 10), never "no joined commands"."""
    ntpgen.generate_pair(tmp_path / "a-h.ntp", tmp_path / "a-t.ntp", seed=1)
    ntpgen.generate_pair(tmp_path / "b-h.ntp", tmp_path / "b-t.ntp", seed=2, offset_ns=10**12)
    args = ["-o", tmp_path / "j.ntp"] if cmd == "join" else []
    r = run(cmd, *args, tmp_path / "a-h.ntp", tmp_path / "b-t.ntp")
    assert r.returncode == Exit.MISMATCH, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "cannot join" in r.stderr
    assert "not a host and its target recorded at one time" in r.stderr
