# SPDX-License-Identifier: GPL-2.0
"""The files the readers write (dump -o, export -o, report -j, compare -j),
made one way for all (lib/cli/outfile.h): never through a link, the previous
file or link kept as FILE.old, nothing half-written left by a failure, and
devices or FIFOs written in place and never removed."""
import os
import resource
import signal
import subprocess
import threading

import pytest

import json_schema

import ntpgen
from conftest import Exit


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    d = tmp_path_factory.mktemp("outputs")
    ntpgen.generate(d / "a.ntp", seed=3)
    ntpgen.generate(d / "b.ntp", seed=4)
    return d


# each writer: the command line with its output at OUT, and what a complete output starts with
WRITERS = {
    "dump": (lambda r, out: ["dump", "-o", out, r / "a.ntp"], b"id,h_start_ns"),
    "export": (lambda r, out: ["export", "-o", out, r / "a.ntp"], b"\x0a"),
    "report -j": (lambda r, out: ["report", "-j", out, r / "a.ntp"], b"{"),
    "compare -j": (lambda r, out: ["compare", "-j", out, r / "a.ntp", r / "b.ntp"], b"{"),
}


def run_writer(ntprof, args, **kw):
    before = json_schema.before_run(args)
    r = subprocess.run([str(ntprof), *map(str, args)], capture_output=True, timeout=120, **kw)
    json_schema.check_run(args, r.returncode, r.stdout, before)
    return r


def leftovers(d):
    return sorted(p.name for p in d.iterdir() if ".tmp-" in p.name)


@pytest.mark.parametrize("writer", WRITERS)
def test_existing_file_is_kept_as_old(ntprof, rec, tmp_path, writer):
    make, head = WRITERS[writer]
    out = tmp_path / "out"
    out.write_bytes(b"previous")
    r = run_writer(ntprof, make(rec, out))
    assert r.returncode == Exit.OK, r.stderr
    assert out.read_bytes().startswith(head)
    assert (tmp_path / "out.old").read_bytes() == b"previous"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", WRITERS)
def test_link_is_moved_never_written_through(ntprof, rec, tmp_path, writer):
    make, head = WRITERS[writer]
    target = tmp_path / "precious"
    target.write_bytes(b"precious")
    out = tmp_path / "out"
    out.symlink_to(target)
    r = run_writer(ntprof, make(rec, out))
    assert r.returncode == Exit.OK, r.stderr
    assert target.read_bytes() == b"precious"
    assert not out.is_symlink() and out.read_bytes().startswith(head)
    assert (tmp_path / "out.old").is_symlink()


@pytest.mark.parametrize("writer", WRITERS)
def test_dangling_link_is_not_followed(ntprof, rec, tmp_path, writer):
    make, head = WRITERS[writer]
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "nowhere")
    r = run_writer(ntprof, make(rec, out))
    assert r.returncode == Exit.OK, r.stderr
    assert not (tmp_path / "nowhere").exists()
    assert out.read_bytes().startswith(head)


def capped(limit):
    """A child whose files may not grow past limit bytes: a full disk, for real."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


@pytest.mark.parametrize("writer", ["dump", "export"])
def test_full_disk_leaves_the_previous_file_and_nothing_else(ntprof, rec, tmp_path, writer):
    make, _ = WRITERS[writer]
    out = tmp_path / "out"
    out.write_bytes(b"previous")
    r = run_writer(ntprof, make(rec, out), preexec_fn=capped(4096))
    assert r.returncode == Exit.FAILURE, r.stderr
    err = r.stderr.decode()
    assert err.count("\n") == 1 and "File too large" in err, err
    assert out.read_bytes() == b"previous"
    assert not (tmp_path / "out.old").exists()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", WRITERS)
def test_fifo_is_written_in_place(ntprof, rec, tmp_path, writer):
    make, head = WRITERS[writer]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    r = run_writer(ntprof, make(rec, fifo))
    reader.join(timeout=60)
    assert r.returncode == Exit.OK, r.stderr
    assert got and got[0].startswith(head)
    assert fifo.exists() and not (tmp_path / "fifo.old").exists()


@pytest.mark.parametrize("writer", WRITERS)
def test_unusable_place_one_line_with_the_reason(ntprof, rec, tmp_path, writer):
    make, _ = WRITERS[writer]
    (tmp_path / "a-file").write_text("x")
    for out, why in ((tmp_path / "a-file" / "out", "Not a directory"),
                     (tmp_path / "no-dir" / "out", "No such file or directory"),
                     (tmp_path, "it is a directory")):
        r = run_writer(ntprof, make(rec, out))
        assert r.returncode == Exit.FAILURE, r.stderr
        err = r.stderr.decode()
        lines = [line for line in err.splitlines() if ": error: " in line]
        assert len(lines) == 1 and why in lines[0] and str(out) in lines[0], err
