# SPDX-License-Identifier: GPL-2.0
"""`ntprof monitor` where no kernel is needed: its command line, and the
listen address, which it checks and binds before it asks anything of the
kernel (exit 17 when it cannot serve).  Its metrics page is tested in
tests/unit/test_mon.c; scraped from a running monitor in the test bed
(tests/testbed/test_monitor.py).  The systemd unit in the tree passes
systemd-analyze verify."""
import os
import pwd
import re
import socket
import subprocess
import tempfile
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
    (["-r", "target", "--app"], "--app needs -r host or -r both"),
    (["--user", "no-such-user-here"], "--user no-such-user-here: no such user"),
    (["-u", "root"], "--user root: that is root"),
])
def test_command_line__bad__usage(run, args, says):
    usage_error(run, "monitor", *args, says=says)


def serve_refused(run, *args, says):
    """exit 17 (cannot serve) and one line that says `says`, before anything is loaded"""
    r = run("monitor", *args)
    assert r.returncode == Exit.SERVE, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ntprof monitor: error: "), r.stderr
    assert says in lines[0], r.stderr
    return r


@pytest.mark.parametrize("args, says", [
    (["--trigger", "p99>5ms"], "--trigger needs --flight DIR"),
    (["--flight-seconds", "5"], "--flight-seconds needs --flight DIR"),
    (["--flight-commands", "5"], "--flight-commands needs --flight DIR"),
    (["--flight-seconds", "0"], "'--flight-seconds'"),
    (["--flight-seconds", "3601"], "'--flight-seconds'"),
    (["--flight-seconds", "ten"], "'--flight-seconds'"),
    (["--flight-commands", "0"], "'--flight-commands'"),
    (["--flight-commands", "1000001"], "'--flight-commands'"),
    # (30 + 2) x 400000 records a side: past the bound of 10 million
    (["--flight-commands", "400000"], "more than 10000000 commands a side"),
    (["--flight-seconds", "3600", "--flight-commands", "2800"], "more than 10000000 commands a side"),
])
def test_flight__bad_command_line__usage(run, tmp_path, args, says):
    flight = [] if "needs" in says else ["--flight", str(tmp_path / "f")]
    usage_error(run, "monitor", *flight, *args, says=says)
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("expr, token", [
    ("p99", "'p99' has no comparison"),
    ("p99x>5ms", "'p99x' is not a statistic"),
    ("p100>5ms", "'p100' is not a statistic"),
    ("avg>5ms", "'avg' is not a statistic"),
    ("stroage.p99>5ms", "'stroage' is not a stage"),
    # report's network is the joined stage: not network_star under another name
    ("network.p99>5ms", "'network' is the joined stage"),
    ("stage:network:p50>2ms", "'network' is the joined stage"),
    ("storage.p99>5parsecs", "'5parsecs' is not a duration"),
    ("p99>-1ms", "'-1ms' is not a duration"),
])
def test_trigger__bad_expression__exit_serve_naming_the_token(run, tmp_path, expr, token):
    serve_refused(run, "--flight", str(tmp_path / "f"), "--trigger", expr,
                  says=f"--trigger {expr}: {token}")
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize("role, expr, says", [
    ("host", "storage.p99>5ms", "storage is the target's stage: it needs -r target or -r both"),
    ("target", "p99>5ms", "e2e is the host's stage: it needs -r host or -r both"),
    ("target", "network_star.p99>5ms", "network_star is the host's stage"),
    ("host", "reap.p99>5ms", "reap is the application's stage: it needs --app"),
    ("both", "app_e2e.p99>5ms", "app_e2e is the application's stage: it needs --app"),
])
def test_trigger__stage_the_role_does_not_count__exit_serve(run, tmp_path, role, expr, says):
    serve_refused(run, "-r", role, "--flight", str(tmp_path / "f"), "--trigger", expr, says=says)


def test_flight__not_a_directory__exit_serve(run, tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    serve_refused(run, "--flight", str(f), says=f"--flight {f}: not a directory")


def test_flight__cannot_be_made__exit_serve(run, tmp_path):
    serve_refused(run, "--flight", str(tmp_path / "no" / "such"),
                  says=f"--flight {tmp_path / 'no' / 'such'}: cannot make it: No such file or directory")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: monitor drops to --user to check")
def test_flight__user_cannot_write__exit_serve(run, tmp_path):
    d = tmp_path / "roots"
    d.mkdir(mode=0o700)
    serve_refused(run, "--flight", str(d), "--user", "nobody",
                  says=f"--flight {d}: user nobody cannot write there")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the directory is given to --user")
def test_flight__missing__made_for_the_user():
    # not under pytest's tmp_path, whose parent only root may enter
    with tempfile.TemporaryDirectory(dir="/var/tmp") as top:
        os.chmod(top, 0o755)
        d = Path(top) / "flight"
        r = subprocess.run([NTPROF, "monitor", "--flight", str(d), "--user", "nobody", "-d", "1"],
                           capture_output=True, text=True, timeout=120)
        # then the kernel is probed: this machine may lack the host driver (exit 3)
        assert r.returncode not in (Exit.USAGE, Exit.SERVE), r.stderr
        st = d.stat()
        assert d.is_dir() and st.st_uid == pwd.getpwnam("nobody").pw_uid
        assert st.st_mode & 0o777 == 0o750


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


def test_metrics__every_name_the_page_writes__documented():
    # the metrics page's writer (lib/monitor/mon_expo.c) names no metric that
    # ntprof-monitor(1), METRICS, does not document
    import promql
    src = (REPO / "lib" / "monitor" / "mon_expo.c").read_text()
    written = set(re.findall(r'"(ntprof_[a-z_]+)[{ "\\]', src))
    metrics, labels = promql.documented()
    hist = {m[:-len("_bucket")] for m in metrics if m.endswith("_bucket")}
    assert {"ntprof_queue_in_flight", "ntprof_queue_imbalance", "ntprof_queue_series",
            "ntprof_queue_series_limit", "ntprof_stage_seconds"} <= written, written
    assert written - metrics - hist == set(), written - metrics - hist
    assert {"queue", "controller", "role"} <= labels
