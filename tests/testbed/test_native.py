# SPDX-License-Identifier: GPL-2.0
"""run.sh --native: run a test bed script on the running kernel without QEMU.
This machine's kernel has no NVMe-oF modules, so a 6.1 guest plays the
"ordinary server": inside it, run.sh --native runs the smoke (RDMA) and fixture
(file, multipath) scripts, and afterwards nothing they set up may be left
(guest/native.sh)."""
import subprocess

from conftest import REPO, RUN_SH, parse_env


def test_native_refused_without_modules():
    """Here (no nvme-tcp module) --native must refuse with the reason."""
    if subprocess.run(["modinfo", "-n", "nvmet-tcp"], capture_output=True).returncode == 0:
        return  # an ordinary server: the refusal cannot be observed here
    p = subprocess.run([str(RUN_SH), "--native", "tests/testbed/guest/smoke.sh"], cwd=REPO, capture_output=True, text=True)
    assert p.returncode == 3
    assert "--native: kernel" in p.stderr and "module" in p.stderr


def test_native_in_guest(testbed):
    r = testbed.run("tests/testbed/guest/native.sh", kernel="6.1", timeout=400).assert_ok()
    res = r.result
    for s in ("smoke", "fixtures"):
        assert res[f"native_{s}_rc"] == "0", (r.out / s / "console.log").read_text()[-3000:]
    smoke = parse_env(r.out / "smoke" / "result.env")
    assert smoke["rdma_transport"] == "rdma"
    assert int(smoke["rdma_calls_disk"]) == int(smoke["rdma_fio_ios"]) == 2048
    fixtures = parse_env(r.out / "fixtures" / "result.env")
    assert fixtures["fixtures"] == "done"
    assert fixtures["file_ns_is_file"] == "1"
    assert len(fixtures["mp_paths"].split()) == 2
    assert res["native_leftovers"].strip() == ""
    # control: after a plain tb_loop_tcp the same check lists subsystem, port,
    # controller and backing file
    control = res["control_leftovers"].split()
    assert any(x.startswith("nqn.") for x in control), control
    assert any(x.startswith("nvme") for x in control), control
    assert any(x.startswith("tb-ns-") for x in control), control
