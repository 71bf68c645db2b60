# SPDX-License-Identifier: GPL-2.0
"""The target fixtures of guest/lib.sh beyond the smoke test, one boot per kernel
(guest/fixtures.sh): file backend, null_blk completion delay, multipath."""
import re

import pytest

from conftest import FULL


@pytest.mark.parametrize("kernel", FULL)
def test_fixtures(testbed, kernel):
    res = testbed.run("tests/testbed/guest/fixtures.sh", kernel=kernel, timeout=300).assert_ok().result

    # --backend file: a regular file behind the namespace, data verified by fio
    assert res["file_transport"] == "tcp"
    assert res["file_ns_is_file"] == "1", res["file_ns_path"]
    assert res["file_fio_errors"] == "0"
    assert int(res["file_fio_ios"]) == 2 * 512  # 2 MiB written, then read back to verify

    # --delay-ns: null_blk completes through its timer after that many ns
    assert res["delay_irqmode"] == "2"
    assert res["delay_completion_nsec"] == "250000"
    assert int(res["delay_fio_ios"]) == 256

    # multipath: one head nvmeXnY, two paths nvmeXcAnY / nvmeXcBnY, two live
    # controllers on different ports, and round-robin I/O over both paths
    head = re.fullmatch(r"nvme(\d+)n(\d+)", res["mp_head"])
    assert head, res["mp_head"]
    paths = res["mp_paths"].split()
    assert len(paths) == 2, paths
    for p in paths:
        m = re.fullmatch(r"nvme(\d+)c(\d+)n(\d+)", p)
        assert m and (m[1], m[3]) == (head[1], head[2]), (p, res["mp_head"])
    ctrls = res["mp_ctrls"].split()
    assert len(ctrls) == 2
    for c in ctrls:
        assert res[f"mp_{c}_transport"] == "tcp"
        assert res[f"mp_{c}_state"] == "live"
    assert res[f"mp_{ctrls[0]}_trsvcid"] != res[f"mp_{ctrls[1]}_trsvcid"]
    assert res["mp_iopolicy"] == "round-robin"
    ios = int(res["mp_fio_ios"])
    per_path = [int(res["mp_path_ios_0"]), int(res["mp_path_ios_1"])]
    assert ios == 1024
    assert all(n > 0 for n in per_path), per_path
    assert sum(per_path) == ios, per_path
