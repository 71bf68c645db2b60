# SPDX-License-Identifier: GPL-2.0
# native.sh - guest side of test_native.py: the guest kernel has the NVMe-oF
# modules, so it stands in for "an ordinary server": run the smoke and fixture
# scripts through `run.sh --native` here, then check that the helpers undid
# everything they set up (nvmet subsystems and ports, null_blk devices,
# controllers, soft-RoCE links, dummy interfaces, backing files).
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

leftovers() {
	local cfs=/sys/kernel/config

	ls "$cfs/nvmet/subsystems" "$cfs/nvmet/ports" "$cfs/nullb" 2>/dev/null | grep -v '^/\|^$\|features'
	ls /sys/class/nvme 2>/dev/null
	rdma link show 2>/dev/null | awk '{ print $2 }'
	ip -o link show type dummy 2>/dev/null | awk -F': ' '{ print $2 }'
	ls /dev/shm /var/tmp 2>/dev/null | grep '^tb-ns-'
}

# rdma: soft-RoCE and a dummy netdev to undo; file + multipath: a backing
# file, two ports, two controllers (TCP itself is in both)
tests/testbed/run.sh --native --timeout 200 --out "$TB_OUT/smoke" tests/testbed/guest/smoke.sh rdma
tb_res native_smoke_rc $?
tests/testbed/run.sh --native --timeout 200 --out "$TB_OUT/fixtures" tests/testbed/guest/fixtures.sh file multipath
tb_res native_fixtures_rc $?
tb_res native_leftovers "$(leftovers | tr '\n' ' ')"
# control: the check does see what the helpers set up
tb_loop_tcp --backend file --size 16
tb_res control_leftovers "$(leftovers | tr '\n' ' ')"
