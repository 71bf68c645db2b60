# SPDX-License-Identifier: GPL-2.0
"""Smoke test of the test bed: per guest kernel, loopback NVMe/TCP and NVMe/RDMA
on a null_blk namespace, fio with a fixed I/O count, and a libbpf fentry probe on
the transport's ->queue_rq() that counts exactly the commands fio issued.
One boot per kernel covers both transports (guest/smoke.sh)."""
import pytest

from conftest import KERNELS

FIO_IOS = 2048  # guest/smoke.sh: --size=8M --bs=4k, every block once

TRANSPORTS = {"tcp": "nvme_tcp_queue_rq", "rdma": "nvme_rdma_queue_rq"}


@pytest.mark.parametrize("kernel", KERNELS)
def test_smoke(testbed, kernel):
    r = testbed.run("tests/testbed/guest/smoke.sh", kernel=kernel, timeout=240).assert_ok()
    res = r.result
    assert res["kernel"].startswith(kernel + "."), res["kernel"]
    for t, func in TRANSPORTS.items():
        # the I/O went over this transport: the controller says so
        assert res[f"{t}_transport"] == t
        assert res[f"{t}_dev"].startswith("/dev/nvme")
        assert res[f"{t}_fio_errors"] == "0"
        assert int(res[f"{t}_fio_ios"]) == FIO_IOS
        # fentry on the module function saw every command fio issued, no more
        assert int(res[f"{t}_calls_disk"]) == int(res[f"{t}_fio_ios"]), \
            f"{func}: {res[f'{t}_calls_disk']} calls for {res[f'{t}_fio_ios']} fio I/Os"
        # admin commands (keep-alive, connect) go through the same function
        assert int(res[f"{t}_calls_all"]) >= int(res[f"{t}_calls_disk"])
