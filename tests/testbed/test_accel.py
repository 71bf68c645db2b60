# SPDX-License-Identifier: GPL-2.0
"""The accelerator choice (accel.sh): KVM only when a guest boots on it.

A stand-in QEMU plays the KVMs met in practice: one that aborts as a nested,
paravirtual KVM does ("failed to set MSR 0x10a"), one that hangs after the
decompressor, and one that boots. Each test has its own cache folder
(NTPROF_TB_DIR) and its own fake kernel, initramfs and KVM device, so no real
KVM is needed; the last test asks the real QEMU about this machine's KVM.
"""
import os
import pathlib
import subprocess
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ACCEL_SH = HERE / "accel.sh"
RUN_SH = HERE / "run.sh"

# The stand-in: behaviour from STANDIN_MODE (abort, hang, ok), one line per
# call appended to STANDIN_LOG. A run.sh boot (no tb.probe=1) reports exit
# status 0 through the output folder the way the real guest's init does.
STANDIN = r"""#!/bin/bash
echo "$*" >> "$STANDIN_LOG"
case " $* " in
*" tb.probe=1 "*) ;;
*)
	out=$(printf '%s\n' "$@" | sed -n 's/^local,path=\(.*\),mount_tag=tbout,.*/\1/p')
	echo 0 > "$out/.tb/rc"
	exit 0 ;;
esac
case "$STANDIN_MODE" in
abort)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion failed." >&2
	kill -ABRT $$ ;;
hang)
	echo "Probing EDD (edd=off to disable)... ok"
	exec sleep 600 ;;
ok)
	echo "[    0.512] Run /init as init process"
	echo "TBINIT[0.61] probe ok"
	exit 0 ;;
esac
"""


class Bed:
    """A cache folder, a stand-in QEMU, a kernel image, an initramfs and a KVM device."""

    def __init__(self, root, mode):
        self.root = root
        self.tb_dir = root / "tb"
        self.qemu = root / "qemu-system-x86_64"
        self.qemu.write_text(STANDIN)
        self.qemu.chmod(0o755)
        self.log = root / "qemu.log"
        self.log.touch()
        kdir = self.tb_dir / "kernels" / "6.1"
        (kdir / "root" / "boot").mkdir(parents=True)
        (kdir / "kver").write_text("6.1.0-0-amd64\n")
        self.image = kdir / "root" / "boot" / "vmlinuz-6.1.0-0-amd64"
        self.image.write_bytes(b"not a kernel")
        self.initrd = kdir / "initramfs.cpio.gz"
        self.initrd.write_bytes(b"not an initramfs")
        self.kvm = root / "kvm"
        self.kvm.touch()
        self.mode = mode

    def env(self, **extra):
        env = dict(os.environ)
        for k in ("NTPROF_TB_ACCEL", "TB_QEMU_EXTRA", "NTPROF_TB_ICOUNT"):
            env.pop(k, None)
        env.update(NTPROF_TB_DIR=str(self.tb_dir), NTPROF_TB_QEMU=str(self.qemu),
                   NTPROF_TB_KVM_DEV=str(self.kvm), NTPROF_TB_ACCEL_PROBE_TIMEOUT="3",
                   STANDIN_MODE=self.mode, STANDIN_LOG=str(self.log))
        env.update(extra)
        return env

    def accel(self, **extra):
        return subprocess.run([str(ACCEL_SH), "--image", str(self.image), "--initrd", str(self.initrd)],
                              env=self.env(**extra), capture_output=True, text=True, timeout=60)

    def calls(self):
        return [line for line in self.log.read_text().splitlines() if line]


def bump_mtime(path):
    """A newer file of the same name: an upgraded QEMU, a new kernel build."""
    t = time.time() + 10
    os.utime(path, (t, t))


@pytest.fixture
def bed(tmp_path, request):
    return Bed(tmp_path, getattr(request, "param", "ok"))


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
def test_kvm_that_aborts_falls_back_to_tcg_and_says_why(bed):
    r = bed.accel()
    assert r.returncode == 0, r.stderr
    assert r.stdout == "tcg\n"
    assert "accelerator tcg: kvm present but could not boot the guest" in r.stderr
    assert "failed to set MSR 0x10a" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    # the probe was a KVM boot of the test bed's own kernel that asked init to stop
    (call,) = bed.calls()
    assert "-accel kvm" in call and f"-kernel {bed.image}" in call and "tb.probe=1" in call


@pytest.mark.parametrize("bed", ["hang"], indirect=True)
def test_kvm_whose_guest_hangs_falls_back_to_tcg_after_the_probe_timeout(bed):
    t0 = time.monotonic()
    r = bed.accel()
    assert r.returncode == 0, r.stderr
    assert r.stdout == "tcg\n"
    assert "did not reach init within 3s" in r.stderr
    assert "Probing EDD" in r.stderr
    # the hang is cut by the probe timeout, not by the test's own
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("bed", ["ok"], indirect=True)
def test_kvm_that_boots_the_guest_is_used(bed):
    r = bed.accel()
    assert r.returncode == 0, r.stderr
    assert r.stdout == "kvm\n"
    assert "accelerator kvm:" in r.stderr and "booted the guest" in r.stderr


@pytest.mark.parametrize("bed", ["abort", "ok"], indirect=True)
def test_verdict_is_cached(bed):
    first = bed.accel()
    second = bed.accel()
    assert first.stdout == second.stdout
    assert len(bed.calls()) == 1, "the second call probed again"
    assert "verdict cached in" in second.stderr


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
@pytest.mark.parametrize("changed", ["qemu", "image", "initrd", "kvm"])
def test_cache_is_invalidated_when_an_input_changes(bed, changed):
    assert bed.accel().stdout == "tcg\n"
    # the same machine with a working KVM now (a QEMU upgrade, a kernel that boots, a new device)
    bed.mode = "ok"
    if changed == "kvm":
        bed.kvm.chmod(0o600)          # a new device node: its ctime changes
        time.sleep(0.01)
        os.chmod(bed.kvm, 0o666)
    else:
        bump_mtime(getattr(bed, changed))
    r = bed.accel()
    assert r.stdout == "kvm\n", r.stderr
    assert len(bed.calls()) == 2
    assert "cached" not in r.stderr
    # and a call with nothing changed uses the new verdict
    assert bed.accel().stdout == "kvm\n"
    assert len(bed.calls()) == 2


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
def test_forced_tcg_never_probes(bed):
    r = bed.accel(NTPROF_TB_ACCEL="tcg")
    assert (r.returncode, r.stdout) == (0, "tcg\n")
    assert "NTPROF_TB_ACCEL=tcg" in r.stderr
    assert bed.calls() == []


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
def test_forced_kvm_that_cannot_boot_fails_with_the_reason(bed):
    r = bed.accel(NTPROF_TB_ACCEL="kvm")
    assert r.returncode == 3
    assert r.stdout == ""
    assert "error: NTPROF_TB_ACCEL=kvm, but kvm present but could not boot the guest" in r.stderr
    assert "failed to set MSR" in r.stderr


@pytest.mark.parametrize("bed", ["ok"], indirect=True)
def test_forced_kvm_that_boots_is_used(bed):
    r = bed.accel(NTPROF_TB_ACCEL="kvm")
    assert (r.returncode, r.stdout) == (0, "kvm\n"), r.stderr


def test_no_kvm_device_means_tcg_without_a_probe(bed):
    r = bed.accel(NTPROF_TB_KVM_DEV=str(bed.root / "no-such-kvm"))
    assert (r.returncode, r.stdout) == (0, "tcg\n")
    assert "no " + str(bed.root / "no-such-kvm") + " on this machine" in r.stderr
    assert bed.calls() == []
    r = bed.accel(NTPROF_TB_KVM_DEV=str(bed.root / "no-such-kvm"), NTPROF_TB_ACCEL="kvm")
    assert r.returncode == 3 and "NTPROF_TB_ACCEL=kvm, but no " in r.stderr


def test_icount_needs_tcg(bed):
    r = bed.accel(TB_QEMU_EXTRA="-icount shift=0,sleep=off")
    assert (r.returncode, r.stdout) == (0, "tcg\n")
    assert "-icount" in r.stderr
    assert bed.calls() == []


def test_icount_setting_needs_tcg(bed):
    r = bed.accel(NTPROF_TB_ICOUNT="1")
    assert (r.returncode, r.stdout) == (0, "tcg\n")
    assert "NTPROF_TB_ICOUNT=1" in r.stderr
    assert bed.calls() == []
    r = bed.accel(NTPROF_TB_ICOUNT="1", NTPROF_TB_ACCEL="kvm")
    assert r.returncode == 3 and "-icount is TCG only" in r.stderr


@pytest.mark.parametrize("bed", ["ok"], indirect=True)
@pytest.mark.parametrize("how", ["option", "env"])
def test_run_sh_icount_boots_tcg_with_icount(bed, tmp_path, how):
    """--icount (or NTPROF_TB_ICOUNT=1) means TCG even where KVM works, with the
    instruction-counted clock, and tells the script (TB_ICOUNT=1)."""
    script = tmp_path / "job.sh"
    script.write_text("true\n")
    out = tmp_path / "out"
    args = [str(RUN_SH), "--kernel", "6.1", "--timeout", "30", "--out", str(out)]
    env = bed.env()
    if how == "option":
        args.append("--icount")
    else:
        env["NTPROF_TB_ICOUNT"] = "1"
    p = subprocess.run(args + [str(script)], env=env, capture_output=True, text=True, timeout=90)
    assert p.returncode == 0, p.stderr
    assert "accelerator tcg" in p.stderr
    (boot,) = bed.calls()       # no KVM probe
    assert "-accel tcg,thread=single -cpu max" in boot
    assert boot.endswith(" -icount shift=0,sleep=off")
    assert "export TB_ICOUNT=1" in (out / ".tb" / "job.sh").read_text()


def test_run_sh_icount_refuses_native(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("true\n")
    p = subprocess.run([str(RUN_SH), "--native", "--icount", str(script)],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--icount needs a QEMU guest" in p.stderr


@pytest.mark.parametrize("setting", [{"NTPROF_TB_ACCEL": "KVM"}, {"NTPROF_TB_ACCEL": "hvf"},
                                     {"NTPROF_TB_ACCEL_PROBE_TIMEOUT": "0"}])
def test_bad_setting_is_a_usage_error(bed, setting):
    r = bed.accel(**setting)
    assert r.returncode == 2
    assert r.stderr.startswith("accel.sh: error: " + next(iter(setting)) + "=")
    assert bed.calls() == []


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
def test_run_sh_boots_under_tcg_when_kvm_cannot_boot(bed, tmp_path):
    """run.sh asks accel.sh and boots with what it chose, saying why."""
    script = tmp_path / "job.sh"
    script.write_text("true\n")
    out = tmp_path / "out"
    p = subprocess.run([str(RUN_SH), "--kernel", "6.1", "--timeout", "30", "--out", str(out), str(script)],
                       env=bed.env(), capture_output=True, text=True, timeout=90)
    assert p.returncode == 0, p.stderr
    assert "accelerator tcg: kvm present but could not boot the guest" in p.stderr
    probe, boot = bed.calls()
    assert "-accel kvm" in probe and "tb.probe=1" in probe
    assert "-accel tcg,thread=single -cpu max" in boot and "tb.probe=1" not in boot


@pytest.mark.parametrize("bed", ["ok"], indirect=True)
def test_run_sh_boots_under_kvm_when_it_works(bed, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("true\n")
    p = subprocess.run([str(RUN_SH), "--kernel", "6.1", "--timeout", "30", "--out", str(tmp_path / "out"),
                        str(script)], env=bed.env(), capture_output=True, text=True, timeout=90)
    assert p.returncode == 0, p.stderr
    assert bed.calls()[-1].startswith("-accel kvm -cpu host ")


@pytest.mark.parametrize("bed", ["abort"], indirect=True)
def test_run_sh_with_forced_kvm_that_cannot_boot_exits_3(bed, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("true\n")
    p = subprocess.run([str(RUN_SH), "--kernel", "6.1", "--timeout", "30", "--out", str(tmp_path / "out"),
                        str(script)], env=bed.env(NTPROF_TB_ACCEL="kvm"), capture_output=True, text=True,
                       timeout=90)
    assert p.returncode == 3
    assert "NTPROF_TB_ACCEL=kvm, but kvm present but could not boot the guest" in p.stderr
    assert len(bed.calls()) == 1, "run.sh booted a guest after the accelerator was refused"


def test_this_machine(testbed):
    """The real QEMU and kernel: a verdict with its reason, then the same verdict from the cache."""
    testbed._session.prepare("6.1")
    env = {k: v for k, v in os.environ.items() if k != "NTPROF_TB_ACCEL"}
    first = subprocess.run([str(ACCEL_SH), "--kernel", "6.1"], env=env, capture_output=True, text=True,
                           timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout in ("kvm\n", "tcg\n")
    print(first.stderr.strip())
    if first.stdout == "tcg\n" and os.access("/dev/kvm", os.W_OK):
        assert "kvm present but could not boot the guest" in first.stderr
    second = subprocess.run([str(ACCEL_SH), "--kernel", "6.1"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert second.stdout == first.stdout
    if os.access("/dev/kvm", os.W_OK):
        assert "verdict cached in" in second.stderr
