# SPDX-License-Identifier: GPL-2.0
"""The pager (ntprof(1), PAGER): on a terminal, report, compare and dump
send their output through $NTPROF_PAGER, $PAGER or less; never into a pipe,
never with --no-pager (before or after the command), never for errors.
The terminal is a pseudo-terminal and the pager a script that keeps what it
was given and the LESS it saw."""

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import pytest

import ntpgen
from conftest import Exit


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("pager")
    ntpgen.generate(d / "host.ntp")
    return d


@pytest.fixture
def fake_pager(tmp_path):
    """A pager that copies its input to a file and says so on the terminal."""
    got = tmp_path / "paged.txt"
    script = tmp_path / "pager.sh"
    script.write_text("#!/bin/sh\n"
                      f"echo \"LESS=${{LESS-unset}} ARG=$1\" > '{got}.env'\n"
                      f"cat > '{got}'\n"
                      "echo FAKE-PAGER-DONE\n")
    script.chmod(0o755)
    return script, got


def on_terminal(ntprof, args, env, timeout=30, cols=200):
    """Run ntprof with stdout on a pseudo-terminal cols wide (0: a terminal that
    does not say): (exit status, what the terminal showed)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    full = {k: v for k, v in os.environ.items()
            if k not in ("PAGER", "NTPROF_PAGER", "LESS", "COLUMNS", "NO_COLOR")}
    full.update(env)
    p = subprocess.Popen([str(ntprof), *map(str, args)], stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=subprocess.PIPE, env=full)
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:          # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif p.poll() is not None:
            break
    rc = p.wait(timeout=timeout)
    err = p.stderr.read().decode()
    p.stderr.close()
    os.close(master)
    return rc, shown.decode("utf-8", "replace").replace("\r\n", "\n"), err


@pytest.mark.parametrize("cmd", ["report", "compare", "dump"])
def test_terminal_output_goes_through_the_pager(ntprof, run, recs, fake_pager, cmd):
    script, got = fake_pager
    files = [recs / "host.ntp"] * (2 if cmd == "compare" else 1)
    # without colour, which a pipe does not get
    rc, shown, err = on_terminal(ntprof, [cmd, *files], {"PAGER": f"{script} one", "NO_COLOR": "1"})
    assert rc == Exit.OK and err == ""
    # the pager got the whole output, as a pipe would, and the terminal only what it showed
    piped = run(cmd, *files)
    assert got.read_text() == piped.stdout
    assert shown.strip() == "FAKE-PAGER-DONE"
    # run by the shell (its argument came through), LESS set as git sets it; dump's rows,
    # never folded to the terminal, are cut at its edge (S)
    less = "FRXS" if cmd == "dump" else "FRX"
    assert (got.parent / (got.name + ".env")).read_text() == f"LESS={less} ARG=one\n"


def test_ntprof_pager_comes_before_pager_and_less_keeps_its_options(ntprof, recs, fake_pager):
    script, got = fake_pager
    rc, shown, _ = on_terminal(ntprof, ["report", recs / "host.ntp"],
                               {"NTPROF_PAGER": str(script), "PAGER": "false",
                                "LESS": "-S"})
    assert rc == Exit.OK and "FAKE-PAGER-DONE" in shown and got.read_text()
    assert (got.parent / (got.name + ".env")).read_text() == "LESS=-S ARG=\n"


@pytest.mark.parametrize("args", [
    ["report", "--no-pager"], ["--no-pager", "report"], ["compare", "--no-pager"],
    ["dump", "--no-pager"]])
def test_no_pager_writes_to_the_terminal(ntprof, recs, fake_pager, args):
    script, got = fake_pager
    files = [recs / "host.ntp"] * (2 if "compare" in args else 1)
    rc, shown, err = on_terminal(ntprof, [*args, *files], {"PAGER": str(script)})
    assert rc == Exit.OK and err == ""
    assert not got.exists() and "FAKE-PAGER-DONE" not in shown
    assert ("# ntprof" in shown) or shown.startswith("id,h_start_ns")


@pytest.mark.parametrize("pager", ["", "cat"])
def test_empty_pager_or_cat_pages_nothing(ntprof, recs, pager):
    rc, shown, _ = on_terminal(ntprof, ["report", recs / "host.ntp"], {"PAGER": pager})
    assert rc == Exit.OK and shown.startswith("# ntprof report\n")


def test_a_pipe_is_never_paged(run, recs, fake_pager):
    script, got = fake_pager
    r = run("report", recs / "host.ntp", env={"PAGER": str(script)})
    assert r.returncode == Exit.OK and r.stdout.startswith("# ntprof report")
    assert not got.exists()


def test_errors_are_not_paged(ntprof, tmp_path, fake_pager):
    script, got = fake_pager
    rc, shown, err = on_terminal(ntprof, ["report", tmp_path / "none.ntp"],
                                 {"PAGER": str(script)})
    assert rc == Exit.NOFILE and "none.ntp" in err
    assert not got.exists() and shown == ""


def test_dump_to_a_file_is_not_paged(ntprof, recs, tmp_path, fake_pager):
    script, got = fake_pager
    rc, shown, err = on_terminal(ntprof, ["dump", "-o", tmp_path / "d.csv", recs / "host.ntp"],
                                 {"PAGER": str(script)})
    assert rc == Exit.OK and err == "" and not got.exists() and shown == ""
    assert (tmp_path / "d.csv").read_text().startswith("id,")


def test_a_pager_that_quits_early_ends_ntprof(ntprof, recs, tmp_path):
    """head -c 1 reads one byte and exits: ntprof dies of SIGPIPE, as git does, not hangs."""
    t0 = time.monotonic()
    rc, shown, _ = on_terminal(ntprof, ["dump", recs / "host.ntp"], {"PAGER": "head -c 1"})
    assert time.monotonic() - t0 < 20
    assert rc in (Exit.OK, -13) and shown == "i"


def test_default_pager_is_less_from_the_path(ntprof, recs, tmp_path, fake_pager):
    script, got = fake_pager
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "less").symlink_to(script)
    rc, shown, _ = on_terminal(ntprof, ["report", recs / "host.ntp"],
                               {"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert rc == Exit.OK and "FAKE-PAGER-DONE" in shown
    assert got.read_text().startswith("# ntprof report\n")


def test_without_less_on_the_path_nothing_is_paged(ntprof, recs, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, shown, _ = on_terminal(ntprof, ["report", recs / "host.ntp"], {"PATH": str(empty)})
    assert rc == Exit.OK and shown.startswith("# ntprof report\n")
