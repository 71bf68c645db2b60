# SPDX-License-Identifier: GPL-2.0
"""A reader never creates, changes or removes anything beside a recording
(ntprof-ntp(5), Reading): recordings of every kind, finished or left in WAL
mode by a killed recorder, read by every reading command in a writable
directory and, with privileges dropped, in a read-only one, where a reader
that needed to write beside the file would fail."""

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

import ntpgen
from conftest import Exit, assert_ok

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

# the recordings of each kind, and for those left in WAL mode the commands
# their -wal holds (half of host_io deleted there: the file alone has all)
KINDS = {
    "host": ["host.ntp"],
    "target": ["pt.ntp"],
    "both": ["both.ntp"],
    "joined": ["joined.ntp"],
    "pair": ["ph.ntp", "pt.ntp"],
    "killed": ["killed.ntp"],
    "killed_noshm": ["noshm.ntp"],
    "killed_both": ["kboth.ntp"],
    "killed_pair": ["kph.ntp", "pt.ntp"],
}
HALF = "DELETE FROM host_io WHERE id % 2 = 0"


def commands(kind, files, out):
    """every reading command, in its forms, on the files of one kind"""
    runs = [("report", *files), ("report", "-j", "-", *files),
            ("report", "--html", f"{out}/r.html", *files), ("report", "--stages=detail", *files),
            ("series", *files), ("series", "--csv", "-", *files),
            ("compare", ",".join(files), ",".join(files))]
    if "target" not in kind:
        runs.append(("dump", *files))
    if "joined" not in kind:
        runs.append(("export", "-o", f"{out}/t.pftrace", *files))
    if kind in ("both", "pair", "killed_both", "killed_pair"):
        runs.append(("join", "-o", f"{out}/j.ntp", *files))
    return runs


CASES = [(k, c) for k in KINDS for c in commands(k, KINDS[k], "OUT")]


def case_id(c):
    kind, cmd = c
    return kind + ":" + " ".join(a for a in cmd if not a.endswith(".ntp") and "OUT" not in a)


def make_recordings(d, ntprof):
    """the files of KINDS in d"""
    ntpgen.generate(d / "host.ntp", seed=7)
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", seed=8, lose_host=0, lose_target=0)
    ntpgen.generate_both(d / "both.ntp", lose_host=0, lose_target=0)
    subprocess.run([ntprof, "join", "-o", d / "joined.ntp", d / "ph.ntp", d / "pt.ntp"],
                   check=True, capture_output=True)
    for name, src in (("killed.ntp", "host.ntp"), ("noshm.ntp", "host.ntp"),
                      ("kboth.ntp", "both.ntp"), ("kph.ntp", "ph.ntp")):
        shutil.copy(d / src, d / name)
        ntpgen.leave_in_wal(d / name, HALF, shm=name != "noshm.ntp")


@pytest.fixture(scope="module")
def rec(tmp_path_factory, ntprof):
    d = tmp_path_factory.mktemp("rec")
    make_recordings(d, ntprof)
    return d


def snapshot(d):
    """every file of d: its size, modification time and content"""
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(Path(d).iterdir())}


def argv(cmd, d, out):
    """cmd's recordings in d (compare's pairs too), its outputs in out"""
    return [",".join(str(d / f) for f in a.split(",")) if a.endswith(".ntp") and "OUT" not in a
            else a.replace("OUT", str(out)) for a in cmd]


@pytest.mark.parametrize("kind,cmd", CASES, ids=map(case_id, CASES))
def test_nothing_beside_changes(run, rec, tmp_path, kind, cmd):
    before = snapshot(rec)
    r = run(*argv(cmd, rec, tmp_path))
    assert_ok(r)
    assert snapshot(rec) == before


@pytest.fixture(scope="module")
def read_only_dir(ntprof):
    """a copy of the recordings in a directory that only root may write, and
    the directory where each test makes one for its outputs"""
    top = Path(tempfile.mkdtemp(prefix="ntprof-ro-", dir="/tmp"))
    d = top / "rec"
    d.mkdir()
    make_recordings(d, ntprof)
    for p in (top, d):
        p.chmod(0o755)
    for p in d.iterdir():
        p.chmod(0o644)
    yield d, top
    shutil.rmtree(top)


@pytest.fixture(scope="module")
def read_only_mount(read_only_dir):
    """the same recordings on a read-only bind mount: not even root may write there"""
    d, out = read_only_dir
    mnt = out / "mnt"
    mnt.mkdir()
    try:
        subprocess.run(["mount", "--bind", d, mnt], check=True, capture_output=True)
    except subprocess.CalledProcessError as e:
        pytest.skip(f"no bind mount here: {e.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", mnt], check=True, capture_output=True)
        yield mnt, out
    finally:
        subprocess.run(["umount", mnt], check=True)


@pytest.mark.root
@pytest.mark.parametrize("how", ["nobody", "ro_mount"])
@pytest.mark.parametrize("kind,cmd", CASES, ids=map(case_id, CASES))
def test_read_only_directory(ntprof, request, how, kind, cmd):
    """as nobody in a directory only root may write, and as root on a
    read-only mount"""
    d, top = request.getfixturevalue("read_only_dir" if how == "nobody" else "read_only_mount")
    out = Path(tempfile.mkdtemp(dir=top))
    out.chmod(0o777)
    before = snapshot(d)
    r = subprocess.run([*(NOBODY if how == "nobody" else []), str(ntprof), *argv(cmd, d, out)],
                       capture_output=True, text=True, errors="replace", timeout=60, cwd=out)
    assert_ok(r)
    assert snapshot(d) == before


def n_of(doc):
    return sum(g["n"] for g in doc["groups"])


@pytest.mark.parametrize("name,src", [("killed.ntp", "host.ntp"), ("noshm.ntp", "host.ntp")])
def test_left_in_wal_read_with_its_wal(run, rec, name, src):
    """what the -wal holds is read: half the file's commands, deleted there"""
    whole = json.loads(run("report", "-j", "-", rec / src).stdout)
    r = run("report", "-j", "-", rec / name)
    assert_ok(r)
    assert n_of(json.loads(r.stdout)) == (n_of(whole) + 1) // 2


@pytest.mark.root
def test_left_in_wal_read_with_its_wal_read_only(ntprof, run, rec, read_only_dir):
    d, top = read_only_dir
    whole = json.loads(run("report", "-j", "-", rec / "host.ntp").stdout)
    for name in ("killed.ntp", "noshm.ntp"):
        r = subprocess.run([*NOBODY, str(ntprof), "report", "-j", "-", str(d / name)],
                           capture_output=True, text=True, timeout=60, cwd=top)
        assert_ok(r)
        assert n_of(json.loads(r.stdout)) == (n_of(whole) + 1) // 2


def test_file_in_use_read_through_its_writer_locks(run, rec, tmp_path):
    """A recording another process still has open in WAL mode (a recording
    that is running) is read as SQLite readers read one: what is committed,
    through the writer's own FILE-shm; nothing is added beside it."""
    p = tmp_path / "live.ntp"
    shutil.copy(rec / "host.ntp", p)
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            db = sqlite3.connect(p, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.execute(HALF)
            os.write(ready_w, b"1")
            signal.pause()
        finally:
            os._exit(0)
    os.close(ready_w)
    try:
        assert os.read(ready_r, 1) == b"1"
        names = sorted(x.name for x in tmp_path.iterdir())
        assert names == ["live.ntp", "live.ntp-shm", "live.ntp-wal"]
        whole = json.loads(run("report", "-j", "-", rec / "host.ntp").stdout)
        r = run("report", "-j", "-", p)
        assert_ok(r)
        assert n_of(json.loads(r.stdout)) == (n_of(whole) + 1) // 2
        assert sorted(x.name for x in tmp_path.iterdir()) == names
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(ready_r)


def test_file_held_exclusively_said(run, rec, tmp_path):
    """A recording written in exclusive locking mode (record on a file system
    without shared memory maps) cannot be read until it ends: said, exit 5,
    rather than waited for ("database is locked")."""
    p = tmp_path / "held.ntp"
    shutil.copy(rec / "host.ntp", p)
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            db = sqlite3.connect(p, isolation_level=None)
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
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
        r = run("report", p)
        assert r.returncode == Exit.NOFILE and r.stdout == ""
        assert r.stderr == (f"ntprof report: error: {p}: held exclusively by process {pid},"
                            " which writes it (a recording on a file system without shared"
                            " memory maps): it can be read once that ends\n")
        assert sorted(x.name for x in tmp_path.iterdir()) == names
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(ready_r)
