# SPDX-License-Identifier: GPL-2.0
"""An older kernel ntprof cannot record: Debian 11's 5.10 has BTF for vmlinux
but none for modules (CONFIG_DEBUG_INFO_BTF_MODULES came with 5.11), and
ntprof reads the NVMe drivers' structures through module BTF.  One cheap
boot of the smoke tier (guest/old_kernel.sh), the nvme modules loaded: `ntprof
check` and `ntprof record` each exit 3 with one line naming what is missing,
and record leaves no file behind."""
import os
import re
from pathlib import Path

from conftest import OLD, REPO

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
EXIT = {m[0]: int(m[1]) for m in re.findall(r"NTP_EXIT_(\w+) = (\d+)",
                                             (REPO / "lib" / "cli" / "exit.h").read_text())}


def missing(tool, module):
    return (f"ntprof {tool}: error: kernel has no BTF for module {module}: /sys/kernel/btf/{module} "
            "is missing (needs CONFIG_DEBUG_INFO_BTF_MODULES: Linux 5.11 and later)")


def test_old_kernel__check_and_record_say_what_is_missing(testbed):
    r = testbed.run("tests/testbed/guest/old_kernel.sh", kernel=OLD, timeout=200,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    res, out = r.result, r.out
    print(f"kernel {OLD}: {res['kernel']} ({res['kpkg']})")
    assert res["kernel"].startswith(OLD + "."), res["kernel"]
    assert res["vmlinux_btf"] == "1" and res["module_btf"] == "0", res

    assert res["record_rc"] == str(EXIT["UNSUPPORTED"]), (out / "record.err").read_text()
    assert (out / "record.err").read_text().splitlines() == [missing("record", "nvme_tcp")]
    assert res["record_file"] == "0"

    assert res["check_rc"] == str(EXIT["UNSUPPORTED"]), (out / "check.err").read_text()
    assert (out / "check.err").read_text().splitlines() == [missing("check", "nvme_tcp"),
                                                            missing("check", "nvmet")]
    text = (out / "check.out").read_text().splitlines()
    for role, module in (("host", "nvme_tcp"), ("target", "nvmet")):
        line = f"{role}, NVMe/TCP: cannot be recorded: " + missing("check", module).split("error: ")[1]
        assert line in text, text
