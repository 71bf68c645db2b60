# SPDX-License-Identifier: GPL-2.0
"""`ntprof check` on this machine's own kernel: it must say what the kernel
runs (its answers checked against what this machine really has), refuse the
roles whose NVMe modules are missing with one error line each, write one JSON
document, and leave nothing loaded.  The supported case (every mode, hooks
and stages) is tested in the test bed (tests/testbed/test_attach.py)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Exit  # tests/bpf/conftest.py

pytestmark = pytest.mark.bpf

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
KPROBE_PMU = Path("/sys/bus/event_source/devices/kprobe")
HOST_MODULE = Path("/sys/module/nvme_tcp")
TARGET_MODULE = Path("/sys/module/nvmet_tcp")


def bpf_names(kind):
    p = subprocess.run(["bpftool", "-j", kind, "list"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [x.get("name", x.get("id")) for x in json.loads(p.stdout or "[]")]


@pytest.fixture
def nothing_left_behind():
    if os.geteuid() != 0:
        pytest.skip("needs root")
    if not shutil.which("bpftool"):
        pytest.fail("bpftool not found: apt-get install bpftool", pytrace=False)
    progs, links = bpf_names("prog"), bpf_names("link")
    yield
    assert sorted(bpf_names("prog")) == sorted(progs), "ntprof check left BPF programs loaded"
    assert sorted(bpf_names("link")) == sorted(links), "ntprof check left BPF links"


def no_nvme_here():
    if HOST_MODULE.exists() or TARGET_MODULE.exists():
        pytest.skip("this machine has NVMe/TCP modules: the test bed covers check on them")


@pytest.mark.root
def test_check__json__kernel_facts_match_this_machine(run, nothing_left_behind):
    no_nvme_here()
    r = run("check", "-j", "-")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    doc = json.loads(r.stdout)
    assert doc["command"] == "check" and doc["ntprof_version"] and doc["schema_version"] >= 1
    assert doc["kernel_release"] == os.uname().release
    k = doc["kernel"]
    assert k["privileged"] is True
    assert k["btf"] is Path("/sys/kernel/btf/vmlinux").exists()
    if not KPROBE_PMU.exists():
        assert k["kprobe"] is False and "CONFIG_KPROBES" in k["kprobe_why_not"]
    else:
        assert isinstance(k["kprobe"], bool)
    if not k["fentry"]:
        why = k["fentry_why_not"]
        assert "fentry" in why and "blk_mq_complete_request_remote" in why, why
    else:
        assert k["fentry_why_not"] is None
    assert k["raw_tp"] is True, "raw_tp programs load on every kernel with BPF"
    assert k["fentry_timeout_s"] == 10
    roles = {x["role"]: x for x in doc["roles"]}
    assert set(roles) == {"host", "target"}
    for role in roles.values():
        assert role["transport"] == "tcp"
        assert role["supported"] is False and role["exit_code"] == Exit.UNSUPPORTED
        assert role["modes"] == []
        # the error line's text, in the document too; nothing about hooks
        module = "nvme_tcp" if role["role"] == "host" else "nvmet"
        assert role["why_not"].startswith(f"module {module} is not loaded: "), role
        assert role["decision"] is None and role["cross_check"] is None
        assert role["refused"] == []


@pytest.mark.root
def test_check__missing_modules__one_error_line_per_role(run, nothing_left_behind):
    no_nvme_here()
    r = run("check")
    assert r.returncode == Exit.UNSUPPORTED
    lines = r.stderr.splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0].startswith("ntprof check: error: module nvme_tcp is not loaded"), lines[0]
    assert lines[1].startswith("ntprof check: error: module nvmet is not loaded"), lines[1]
    out = r.stdout.splitlines()
    assert out[0] == f"kernel {os.uname().release}"
    caps = {line.split()[0]: line for line in out[1:6]}
    assert set(caps) == {"BTF", "fentry/fexit", "kprobes", "tp_btf", "raw_tp"}
    if not KPROBE_PMU.exists():
        assert "no: kernel has no kprobes" in caps["kprobes"]
    # the same text as the error line, in each role's line
    assert f"host, NVMe/TCP: cannot be recorded: {lines[0].split('error: ', 1)[1]}" in out
    assert f"target, NVMe/TCP: cannot be recorded: {lines[1].split('error: ', 1)[1]}" in out


@pytest.mark.root
def test_check__one_role__only_that_role(run, tmp_path, nothing_left_behind):
    no_nvme_here()
    out = tmp_path / "check.json"
    r = run("check", "-r", "target", "-j", out)
    assert r.returncode == Exit.UNSUPPORTED
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "nvmet" in r.stderr, r.stderr
    doc = json.loads(out.read_text())
    assert [x["role"] for x in doc["roles"]] == ["target"]


RDMA_HOST_MISSING = ("ntprof check: error: module nvme_rdma is not loaded: no NVMe/RDMA host here "
                     "(modprobe nvme-rdma, then nvme connect -t rdma)")


def no_nvme_rdma_here():
    if Path("/sys/module/nvme_rdma").exists() or Path("/sys/module/nvmet_rdma").exists():
        pytest.skip("this machine has NVMe/RDMA modules: the test bed covers check on them")


@pytest.mark.root
def test_check__rdma__each_role_refused_naming_its_module(run, nothing_left_behind):
    no_nvme_rdma_here()
    r = run("check", "-t", "rdma")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0] == RDMA_HOST_MISSING, lines[0]
    assert lines[1].startswith("ntprof check: error: ") and "nvmet" in lines[1], lines[1]
    assert "nvme_tcp" not in r.stderr, "-t rdma must not ask for the TCP driver"
    out = r.stdout.splitlines()
    assert f"host, NVMe/RDMA: cannot be recorded: {lines[0].split('error: ', 1)[1]}" in out
    assert f"target, NVMe/RDMA: cannot be recorded: {lines[1].split('error: ', 1)[1]}" in out
    assert not [x for x in out if "NVMe/TCP" in x], r.stdout


@pytest.mark.root
def test_check__rdma_host__json_says_rdma(run, tmp_path, nothing_left_behind):
    no_nvme_rdma_here()
    out = tmp_path / "check.json"
    r = run("check", "-r", "host", "-t", "rdma", "-j", out)
    assert r.returncode == Exit.UNSUPPORTED
    assert r.stderr.splitlines() == [RDMA_HOST_MISSING]
    doc = json.loads(out.read_text())
    assert [(x["role"], x["transport"], x["supported"], x["exit_code"], x["modes"])
            for x in doc["roles"]] == [("host", "rdma", False, Exit.UNSUPPORTED, [])]


RDMA_TARGET_MISSING = ("ntprof check: error: module nvmet_rdma is not loaded: no NVMe/RDMA target here "
                       "(modprobe nvmet-rdma, then add an rdma port to nvmet)")


@pytest.mark.root
def test_check__rdma_target__refused_naming_nvmet(run, nothing_left_behind):
    """-r target -t rdma alone: the transport's driver is checked first (it
    needs nvmet), so with or without nvmet the one line names nvmet_rdma and
    what to load; only the target role is reported."""
    no_nvme_rdma_here()
    r = run("check", "-r", "target", "-t", "rdma")
    assert r.returncode == Exit.UNSUPPORTED, r.stderr
    assert r.stderr.splitlines() == [RDMA_TARGET_MISSING], r.stderr
    out = r.stdout.splitlines()
    assert out[0] == f"kernel {os.uname().release}", r.stdout
    assert f"target, NVMe/RDMA: cannot be recorded: {RDMA_TARGET_MISSING.split('error: ', 1)[1]}" \
        in out, r.stdout
    assert not [x for x in out if x.startswith("host, ") or "NVMe/TCP" in x], r.stdout


def test_check__not_root__noperm(ntprof, tmp_path):
    cmd = [str(ntprof), "check"] if os.geteuid() != 0 else [*NOBODY, str(ntprof), "check"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == Exit.NOPERM, p.stderr
    assert p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and "needs root" in p.stderr


@pytest.mark.parametrize("args,code", [(["-r", "disk"], "USAGE"), (["-t", "fc"], "USAGE"),
                                       (["extra"], "USAGE"), (["-t", "RDMA"], "USAGE")])
def test_check__bad_command_line(run, args, code):
    r = run("check", *args)
    assert r.returncode == Exit[code], r.stderr
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr


@pytest.mark.parametrize("cmd", ["record", "check"])
def test_commands_needing_root__help_and_bad_options_need_none(ntprof, tmp_path, cmd):
    """The commands the table marks as needing root refuse once their options
    are parsed: --help works without, and a bad option is a usage error first."""
    pre = [] if os.geteuid() != 0 else [*NOBODY]
    p = subprocess.run([*pre, str(ntprof), cmd, "--help"], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert p.returncode == Exit.OK and p.stdout.startswith("usage:"), p.stderr
    p = subprocess.run([*pre, str(ntprof), cmd, "--no-such-option"], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == Exit.USAGE, p.stderr
    p = subprocess.run([*pre, str(ntprof), cmd], capture_output=True, text=True, timeout=60,
                       cwd=tmp_path)
    assert p.returncode == Exit.NOPERM
    assert p.stderr == f"ntprof {cmd}: error: needs root (or CAP_BPF and CAP_PERFMON)\n"
