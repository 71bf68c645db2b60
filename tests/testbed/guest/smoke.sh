# SPDX-License-Identifier: GPL-2.0
# smoke.sh - guest side of test_smoke.py: loopback NVMe/TCP and NVMe/RDMA on a
# null_blk namespace, fio with a fixed I/O count, and a libbpf fentry probe on
# the transport's ->queue_rq() that must count the same number of commands.
#
#   smoke.sh [tcp] [rdma]        (default: both)
# Results (result.env), per transport T:
#   T_transport  /sys/class/nvme/<ctrl>/transport of the connected controller
#   T_dev        the namespace's block device
#   T_fio_ios    I/Os fio issued (total_ios, read + write)
#   T_calls_disk fentry count on the ->queue_rq() of namespace queues
#   T_calls_all  the same including admin/connect queue commands
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

PROBE=${TB_PROBE:-$TB_REPO/build/testbed/probe/count_calls}
[ -x "$PROBE" ] || tb_fail "$PROBE missing: run tests/testbed/probe/build.sh before booting"

# 2048 x 4 KiB, every block once (random map), no time limit: an exact count
FIO_ARGS=(--rw=randrw --bs=4k --size=8M --iodepth=8)

smoke() {
	local t=$1 func=$2 ios errors calls_disk calls_all

	tb_res "${t}_transport" "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
	tb_res "${t}_dev" "$TB_DEV"
	"$PROBE" -o "$TB_OUT/calls-$t.env" "$func" \
		fio --name="$t" --filename="$TB_DEV" --ioengine=libaio --direct=1 \
		--output-format=json --output="$TB_OUT/fio-$t.json" --eta=never "${FIO_ARGS[@]}" >&2 ||
		tb_fail "fio under $PROBE $func failed"
	read -r ios errors < <(jq -r '[([.jobs[] | .read.total_ios + .write.total_ios] | add),
		([.jobs[].error] | add)] | @tsv' "$TB_OUT/fio-$t.json")
	tb_res "${t}_fio_ios" "$ios"
	tb_res "${t}_fio_errors" "$errors"
	. "$TB_OUT/calls-$t.env"
	tb_res "${t}_calls_disk" "$calls_disk"
	tb_res "${t}_calls_all" "$calls_all"
	tb_disconnect
}

tb_res kernel "$(uname -r)"
[ $# -gt 0 ] || set -- tcp rdma
for t in "$@"; do
	case "$t" in
	tcp) tb_loop_tcp; smoke tcp nvme_tcp_queue_rq ;;
	rdma) tb_loop_rdma; smoke rdma nvme_rdma_queue_rq ;;
	*) tb_fail "smoke.sh: unknown transport '$t'" ;;
	esac
done
tb_res smoke "done"
