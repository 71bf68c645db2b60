# SPDX-License-Identifier: GPL-2.0
"""`ntprof monitor` where no kernel is needed: its command line, and the
listen address, which it checks and binds before it asks anything of the
kernel (exit 17 when it cannot serve).  Its metrics page is tested in
tests/unit/test_mon.c; scraped from a running monitor in the test bed
(tests/testbed/test_monitor.py).  The systemd unit in the tree passes
systemd-analyze verify."""
import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, Exit, usage_error

NTPROF = os.environ.get("NTPROF", str(REPO / "build" / "ntprof"))


def serve_error(run, *args, says):
    r = run("monitor", *args)
    assert r.returncode == Exit.SERVE, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("ntprof monitor: error: --listen "), r.stderr
    assert says in lines[0], r.stderr


@pytest.mark.parametrize("addr, says", [
    ("9464", "no port"),
    ("127.0.0.1", "no port"),
    (":9464", "no address"),
    ("127.0.0.1:0", "from 1 to 65535"),
    ("127.0.0.1:65536", "from 1 to 65535"),
    ("127.0.0.1:http", "from 1 to 65535"),
    ("localhost:9464", "names are not resolved"),
    ("::1:9464", "[ADDR]:PORT"),
    ("[::1]", "[ADDR]:PORT"),
    ("[zz::1]:9464", "not an IPv6 address"),
])
def test_listen__unparsable__exit_serve(run, addr, says):
    serve_error(run, "--listen", addr, says=says)


def test_listen__address_in_use__exit_serve(run):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        serve_error(run, "-l", f"127.0.0.1:{port}", says="cannot listen there: Address already in use")


def test_listen__not_this_machines_address__exit_serve(run):
    # TEST-NET-1 (RFC 5737): never an address of this machine
    serve_error(run, "--listen", "192.0.2.1:9464", says="cannot listen there")


@pytest.mark.parametrize("args, says", [
    (["extra"], "unexpected argument 'extra'"),
    (["-d", "0"], "'--duration'"),
    (["-s", "0"], "'-s'"),
    (["-r", "hub"], "'-r'"),
    (["-t", "fc"], "'-t'"),
    (["--kprobes", "--fentry"], "--fentry"),
    (["--io-type", "flush"], "--io-type"),
    (["--size", "4Q"], "--size"),
    (["-r", "target", "--session", "nvme0n1"], "--session needs -r host"),
    (["-r", "both", "--session", "nvme0n1"], "--session needs -r host"),
    (["--user", "no-such-user-here"], "--user no-such-user-here: no such user"),
    (["-u", "root"], "--user root: that is root"),
])
def test_command_line__bad__usage(run, args, says):
    usage_error(run, "monitor", *args, says=says)


def test_help__same_as_help_command(run):
    a, b = run("monitor", "--help"), run("help", "monitor")
    assert a.returncode == Exit.OK and b.returncode == Exit.OK
    assert a.stdout == b.stdout and "--listen" in a.stdout


UNIT = REPO / "contrib" / "systemd" / "ntprof-monitor.service"


def verify_unit(tmp_path, text):
    """systemd-analyze verify on the unit text as make install writes it (its
    @BINDIR@ made this build's directory)"""
    path = tmp_path / "ntprof-monitor.service"
    path.write_text(text.replace("@BINDIR@", str(Path(NTPROF).parent)))
    # --man=no: the man page is checked by test_cli, not installed here
    return subprocess.run(["systemd-analyze", "verify", "--man=no", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_systemd_unit__verifies(tmp_path):
    r = verify_unit(tmp_path, UNIT.read_text())
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = UNIT.read_text()
    assert "ExecStart=@BINDIR@/ntprof monitor $NTPROF_MONITOR_OPTS\n" in text
    # the codes that restarting cannot cure are lib/cli/exit.h's
    prevent = re.search(r"^RestartPreventExitStatus=(.*)$", text, re.M).group(1).split()
    assert [int(x) for x in prevent] == [Exit.USAGE, Exit.UNSUPPORTED, Exit.NOPERM, Exit.SERVE]


def test_systemd_unit__verify_sees_a_broken_unit(tmp_path):
    # the check above can fail: a relative ExecStart is refused
    r = verify_unit(tmp_path, UNIT.read_text().replace("ExecStart=@BINDIR@/", "ExecStart=bin/"))
    assert r.returncode != 0 and "bin/ntprof" in r.stderr, r.stderr
