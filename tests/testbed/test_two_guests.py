# SPDX-License-Identifier: GPL-2.0
"""Two guests (run-two.sh): an NVMe/TCP target and a host on an emulated
network, each with its own clock (the target's RTC skewed), netem delay on the
host's NIC (guest/two.sh)."""
import os

import pytest

from conftest import FULL

SKEW_S = int(os.environ.get("TB_TEST_SKEW", "-30"))
# Each guest's wall clock starts up to 2 s behind: run.sh sets its RTC base in
# whole seconds at QEMU's start (up to 1 s lost), and the guest reads the RTC in
# whole seconds at boot (up to 1 s more).  So the two clocks' difference is off
# the skew by less than 2 s (-1.567 s was seen), plus the error of the
# measurement itself (half a round trip).
SKEW_SLACK_S = 2.0


@pytest.mark.parametrize("kernel", FULL)
def test_two_guests(testbed, kernel):
    r = testbed.run_two("tests/testbed/guest/two.sh", kernel=kernel, timeout=300, skew=SKEW_S,
                        env={"TB_NETEM_DELAY": "5ms"}).assert_ok()
    host, tgt = r.host.result, r.target.result

    # the host reached the target over the emulated NIC, not loopback
    assert host["host_transport"] == "tcp"
    assert "traddr=10.0.0.1," in host["host_ctrl_address"]
    assert "src_addr=10.0.0.2" in host["host_ctrl_address"]
    assert int(host["host_fio_ios"]) == 512
    assert int(host["host_calls_disk"]) == int(host["host_fio_ios"])
    # ... and the target, in its own kernel, answered at least all of them
    assert int(tgt["tgt_calls_queue_response"]) >= int(host["host_fio_ios"])

    # netem delay is on the host's eth0
    assert "netem" in host["host_qdisc"] and "delay 5ms" in host["host_qdisc"], host["host_qdisc"]

    # the two wall clocks differ by the configured skew
    offset, rtt = float(host["clock_offset_s"]), float(host["clock_rtt_s"])
    assert abs(offset - SKEW_S) <= SKEW_SLACK_S + rtt / 2, \
        f"target - host clock = {offset} s, configured {SKEW_S} s (round trip {rtt} s)"
