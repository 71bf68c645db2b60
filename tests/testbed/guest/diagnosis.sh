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
#     reset      on a port of its own (4421), 1 s into the run the target's
#                port closed for 1 s (its controller deleted, its listener
#                gone): the host resets the controller and reconnects every
#                1 s until the port is back, out of "live" about a second:
#                errors or retries
#     cpu_hog    one I/O queue (its io_cpu CPU 0), fio pinned to CPU 1 (every
#                send deferred to io_work), a busy loop at nice -20 on CPU 0
#                from the recorder's attach on
#   DIAG_SECONDS  fio run time per case (default 3)
# Results (result.env): kernel, cases, <case>_rc (record's), <case>_ctrl;
# $TB_OUT gets <case>.ntp, <case>.err and fio-<case>.json.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
SECS=${DIAG_SECONDS:-3}
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(baseline slow_disk one_queue full_queue netem busy_disk reset
				  cpu_hog)
tb_workdir diag
tb_res kernel "$(uname -r)"

# wait until the recorder of case $1 attached (fio starts then)
attached() {
	local i

	for i in $(seq 1200); do
		grep -qs 'programs attached' "$TB_OUT/$1.err" && return 0
		sleep 0.1
	done
	return 1
}

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
	reset)
		# alone on its port: the port's last subsystem gone closes its
		# listener, and a refused connection is retried
		tb_target_tcp --addr 127.0.0.1 --port 4421
		tb_connect --reconnect-delay 1
		# (a connection refused by the subsystem's port instead would say
		# do not retry, and the controller would be deleted)
		link=$TB_PORT_DIR/subsystems/$TB_NQN
		rm -f "$TB_OUT/$c.err"
		(
			# 1 s into fio: after the recorder attached (slow under TCG)
			attached "$c"
			sleep 1
			rm "$link"
			sleep 1
			ln -s "/sys/kernel/config/nvmet/subsystems/$TB_NQN" "$link"
		) &
		resetter=$!
		record "$c" --iodepth=4
		wait "$resetter"
		# live again before the next case
		state=/sys/class/nvme/$TB_CTRL/state
		for i in $(seq 100); do
			[ -e "$state" ] && [ "$(cat "$state")" != live ] || break
			sleep 0.1
		done
		tb_res reset_state "$(cat "$state" 2>/dev/null || echo deleted)"
		;;
	cpu_hog)
		tb_target_tcp --addr 127.0.0.1
		tb_connect --nr-io-queues 1
		rm -f "$TB_OUT/$c.err"
		( attached "$c" && exec taskset -c 0 nice -n -20 sh -c 'while :; do :; done' ) &
		hog=$!
		record "$c" --iodepth=1 --cpus_allowed=1
		kill "$hog"
		wait "$hog" 2>/dev/null
		;;
	*) tb_fail "diagnosis.sh: unknown case '$c'" ;;
	esac
	tb_disconnect
done
tb_res cases "${CASES[*]}"
