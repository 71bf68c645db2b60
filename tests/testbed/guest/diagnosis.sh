# SPDX-License-Identifier: GPL-2.0
# diagnosis.sh - guest side of test_diagnosis.py: the cases the diagnosis
# must name (ntprof-report(1), DIAGNOSIS), induced one after another in one
# boot, each on its own loopback NVMe/TCP subsystem and connection, each
# under its own `ntprof record -r both -s 1 -- fio ...` (one clock: the
# network and storage stages are both there, and no clock estimate).
#
#   diagnosis.sh [CASE...]   (default: every case below)
#   CASE:
#     baseline   null_blk without delay, 4k reads at QD1, one job: quiet
#     slow_disk  null_blk completing in 2 ms, QD1: storage, not saturated
#     one_queue  one I/O queue, two fio jobs at QD16: a starved queue
#     full_queue one I/O queue of 16 (--queue-size 16), one job at QD64:
#                the queue saturated
#     netem      1 ms netem delay on lo: a slow network
#     busy_disk  null_blk completing in 1 ms, a local fio at QD128 on it
#                beside the target: the backend saturated (backend_stats)
#   DIAG_SECONDS  fio run time per case (default 3)
# Results (result.env): kernel, cases, <case>_rc (record's), <case>_ctrl;
# $TB_OUT gets <case>.ntp, <case>.err and fio-<case>.json.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
SECS=${DIAG_SECONDS:-3}
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(baseline slow_disk one_queue full_queue netem busy_disk)
tb_workdir diag
tb_res kernel "$(uname -r)"

# record CASE FIO-OPTS...: fio on $TB_DEV under ntprof record, every command
record() {
	local name=$1

	shift
	"$NTPROF" record -r both -s 1 -o "$TB_WORK/$name.ntp" -- \
		fio --name="$name" --filename="$TB_DEV" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --size=256M --runtime="$SECS" --time_based --eta=never \
		--output-format=json --output="$TB_WORK/fio-$name.json" "$@" \
		> "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err"
	tb_res "${name}_rc" "$?"
	tb_res "${name}_ctrl" "$TB_CTRL"
	cp "$TB_WORK/fio-$name.json" "$TB_OUT/" || tb_fail "$name: no fio JSON"
	tb_collect "$name"
}

for c in "${CASES[@]}"; do
	tb_log "case $c"
	case "$c" in
	baseline)
		tb_loop_tcp
		record "$c" --iodepth=1
		;;
	slow_disk)
		tb_loop_tcp --delay-ns 2000000
		record "$c" --iodepth=1
		;;
	one_queue)
		tb_target_tcp --addr 127.0.0.1
		tb_connect --nr-io-queues 1
		record "$c" --iodepth=16 --numjobs=2
		;;
	full_queue)
		tb_target_tcp --addr 127.0.0.1
		tb_connect --nr-io-queues 1 --queue-size 16
		record "$c" --iodepth=64
		;;
	netem)
		tb_loop_tcp
		modprobe sch_netem 2>/dev/null
		tc qdisc add dev lo root netem delay 1ms || tb_fail "tc netem delay 1ms on lo"
		record "$c" --iodepth=1
		tc qdisc del dev lo root
		;;
	busy_disk)
		tb_loop_tcp --delay-ns 1000000
		fio --name=local --filename="$TB_NS_PATH" --ioengine=libaio --direct=1 \
			--rw=randread --bs=4k --iodepth=128 --time_based --runtime=600 \
			--eta=never --output=/dev/null &
		local_fio=$!
		sleep 1
		record "$c" --iodepth=1
		kill "$local_fio"
		wait "$local_fio" 2>/dev/null
		;;
	*) tb_fail "diagnosis.sh: unknown case '$c'" ;;
	esac
	tb_disconnect
done
tb_res cases "${CASES[*]}"
