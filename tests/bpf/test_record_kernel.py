# SPDX-License-Identifier: GPL-2.0
"""`ntprof record` against this machine's kernel, which has BTF but cannot run
fentry programs and has no nvme modules: it must refuse with one line naming
what is missing, refuse non-root users, reject bad options, and leave nothing
in the kernel behind.  The recording itself is tested in the test bed
(tests/testbed/test_record.py)."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import Exit  # tests/bpf/conftest.py

pytestmark = pytest.mark.bpf

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def bpftool_json(*args):
    p = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"bpftool {' '.join(args)}: {p.stderr}"
    return json.loads(p.stdout or "[]")


def prog_ids():
    # every program in the kernel: comparing before and after needs no list of
    # our program names (which the kernel truncates to 15 characters)
    return {p["id"] for p in bpftool_json("prog", "list")}


def link_ids():
    return {link["id"] for link in bpftool_json("link", "list")}


@pytest.fixture
def nothing_left_behind():
    """Nothing of ours may be loaded before the test, nor stay after it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to list BPF programs")
    if not shutil.which("bpftool"):
        pytest.fail("bpftool not found: apt-get install bpftool", pytrace=False)
    progs, links = prog_ids(), link_ids()
    yield
    assert prog_ids() <= progs, "ntprof left BPF programs in the kernel"
    assert link_ids() <= links, "ntprof left BPF links in the kernel"


@pytest.mark.root
def test_record__kernel_without_fentry__unsupported_one_line(run, nothing_left_behind):
    if os.path.exists("/sys/module/nvme_tcp"):
        pytest.skip("this kernel has nvme_tcp: the test bed covers recording on it")
    r = run("record", "-s", "1", "-d", "1")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    line = lines[0]
    assert line.startswith("ntprof record: error: "), line
    # names the missing support: fentry programs (this kernel) or the nvme_tcp module
    assert "fentry" in line or "nvme_tcp" in line, line


@pytest.mark.root
def test_record__no_nvme_tcp__no_file_written(run, tmp_path, nothing_left_behind):
    out = tmp_path / "never.ntp"
    r = run("record", "-o", out, "-d", "1")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    assert not out.exists(), "a refused record must not create its output file"
    assert list(tmp_path.iterdir()) == []


RDMA_MISSING = ("ntprof record: error: module nvme_rdma is not loaded: no NVMe/RDMA host here "
                "(modprobe nvme-rdma, then nvme connect -t rdma)")


@pytest.mark.root
def test_record__rdma_without_nvme_rdma__unsupported_no_file(run, tmp_path, nothing_left_behind):
    """-t rdma needs nvme-rdma: refused in one line naming it (or fentry), before any file."""
    if os.path.exists("/sys/module/nvme_rdma"):
        pytest.skip("this kernel has nvme_rdma: the test bed covers recording on it")
    out = tmp_path / "never.ntp"
    r = run("record", "-t", "rdma", "-s", "1", "-o", out, "-d", "1")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "nvme_rdma" in lines[0] or "fentry" in lines[0], lines[0]
    if "nvme_rdma" in lines[0]:
        assert lines[0] == RDMA_MISSING
    assert "nvme_tcp" not in lines[0], "-t rdma must not ask for the TCP driver"
    assert not out.exists(), "a refused record must not create its output file"
    assert list(tmp_path.iterdir()) == []


def test_record__not_root__noperm(ntprof, tmp_path):
    if os.geteuid() != 0:
        cmd = [str(ntprof), "record", "-d", "1"]
    else:
        cmd = [*NOBODY, str(ntprof), "record", "-d", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == Exit.NOPERM, p.stderr
    assert p.stdout == ""
    assert p.stderr == "ntprof record: error: needs root (or CAP_BPF and CAP_PERFMON)\n"


@pytest.mark.root
def test_record__not_root__nothing_loaded(ntprof, nothing_left_behind):
    p = subprocess.run([*NOBODY, str(ntprof), "record", "-s", "1"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == Exit.NOPERM, p.stderr


@pytest.mark.parametrize("value", ["0", "-1", "2147483649", "abc", "10k", "1.5", ""])
def test_record__bad_sample__usage(run, value):
    r = run("record", "-s", value)
    assert r.returncode == Exit.USAGE, r.stderr
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "-s" in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["-d", "0"], ["-d", "-3"], ["-d", "soon"],
                                  ["-d", "99999999999"], ["-d", "31622401"], ["-i", "3601"],
                                  ["--bogus"], ["-r", "client"], ["-t", "fc"], ["-t", "RDMA"],
                                  ["-i", "0"], ["-i", "0.05"], ["-i", "soon"],
                                  ["--kprobes", "--fentry"], ["--fentry", "--kprobes"]])
def test_record__bad_command_line__usage(run, args):
    r = run("record", *args)
    assert r.returncode == Exit.USAGE, r.stderr
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr


@pytest.mark.root
@pytest.mark.parametrize("where, why", [("no-such-dir/x.ntp", "No such file or directory"),
                                        ("a-file/x.ntp", "Not a directory"),
                                        ("a-dir", "it is a directory")])
def test_record__output_that_cannot_be_created__refused_before_loading(run, tmp_path, where, why,
                                                                      nothing_left_behind):
    """A bad -o is said first, before the kernel is asked for anything (exit 1, one line)."""
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    out = tmp_path / where
    r = run("record", "-o", out, "-d", "1")
    assert r.returncode == Exit.FAILURE, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ntprof record: error: cannot create {out}"), r.stderr
    assert why in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-dir", "a-file"]


@pytest.mark.parametrize("args, named", [
    (["--io-type", "rw"], "'rw'"), (["--io-type", ""], "--io-type"),
    (["--size", "3000"], "'3000'"), (["--size", "4K,,8K"], "--size"), (["--size", "4Q"], "4Q"),
    (["--session", "nvme0c0n1"], "'nvme0c0n1'"), (["--session", "sda"], "'sda'"),
    (["--session", "nvme987n654"], "nvme987n654"),
    (["-r", "target", "--session", "nvme0n1"], "--session"),
])
def test_record__bad_filter__usage_before_loading(run, args, named):
    """Filters are checked before anything is loaded: even without root or nvme, exit 2."""
    r = run("record", *args, "-d", "1")
    assert r.returncode == Exit.USAGE, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ntprof record: error: "), r.stderr
    assert named in lines[0], lines[0]


def test_record__unknown_namespace__says_so(run):
    r = run("record", "--session", "nvme987n654", "-d", "1")
    assert r.returncode == Exit.USAGE
    assert "no such namespace" in r.stderr, r.stderr


def test_record__operands_are_the_command(run):
    """Without "--" the first non-option starts the command: its options are not record's."""
    r = run("record", "--help-not-an-option-of-record")
    assert r.returncode == Exit.USAGE
    r = run("record", "-d", "1", "true", "--bogus", "-s", "0")
    # reached the kernel checks: "--bogus" and "-s 0" went to the command
    assert r.returncode in (Exit.NOPERM, Exit.UNSUPPORTED), r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr


def test_record__sample_limits_accepted_by_parser(run):
    """1 and 2^31 are valid: the run then stops at a later check, not at parsing."""
    for value in ("1", "2147483648"):
        r = run("record", "-s", value, "--help")
        assert r.returncode == Exit.OK, r.stderr


def test_record__help__lists_options(run):
    r = run("record", "--help")
    assert r.returncode == Exit.OK and r.stderr == ""
    for opt in ("--role", "--transport", "--sample", "--session", "--io-type", "--size", "--output",
                "--duration", "--interval", "--offline", "--json", "--kprobes", "--fentry",
                "--verbose"):
        assert opt in r.stdout, opt
    assert "COMMAND" in r.stdout.splitlines()[0]
    assert "tcp (default) or rdma" in r.stdout


@pytest.mark.parametrize("command", [["/nonexistent/ntprof-cmd"], ["ntprof-no-such-cmd", "-x"], ["/"]])
def test_record__command_cannot_run__failure_before_loading(run, tmp_path, command):
    """A COMMAND that cannot run is said before the kernel is asked anything."""
    out = tmp_path / "never.ntp"
    r = run("record", "-o", out, "--", *command)
    assert r.returncode == Exit.FAILURE, r.stderr
    assert r.stdout == ""
    assert r.stderr.splitlines() == [f"ntprof record: error: cannot run '{command[0]}': "
                                     + ("Permission denied" if command[0] == "/" else
                                        "No such file or directory")], r.stderr
    assert not out.exists()
