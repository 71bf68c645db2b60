# SPDX-License-Identifier: GPL-2.0
# record_rdma.sh - guest side of test_record_rdma.py: `ntprof record -t rdma`
# on a loopback NVMe/RDMA test bed (soft-RoCE), in one boot.
#
# rdma   nvmet-rdma on null_blk with a 2 ms completion delay, nvme-rdma
#        connected over rdma_rxe.  `record -r target -t rdma -s 1` runs in the
#        background (started first, like the target of a two-machine run);
#        `record -r both -t rdma -s 1 -- fio ...` runs a mixed job (4k
#        randread, 4k randwrite, 128k write, 4 s) and stops when fio exits.
#        Three 4k reads at queue depth 1 follow, each in its own region (the
#        target recording only; the backend's diskstats before and after
#        each), then SIGINT stops the target recorder.  `ntprof report` on
#        both.ntp.
# tcp    a loopback NVMe/TCP namespace and `record -r host -t tcp -s 1 -- fio`
#        on it: a recording of the other transport, which the test tries to
#        join with the RDMA ones (refused).
# Files in $TB_OUT: both.ntp, target.ntp, host_tcp.ntp, <name>.out/.err
# (record's stdout/stderr), both.report(.err), fio-*.json.  Results
# (result.env): kernel, ctrl_transport, tcp_ctrl_transport, nullb, <name>_rc,
# both_wall_s, qd1_<i>_dev_reads, qd1_<i>_dev_ms, progs_before, progs_after,
# both_report_rc, rdma_done.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
# SQLite's WAL needs shared memory maps, which the 9p share under $TB_OUT lacks:
# record on the guest's own file system, then copy the finished files out
WORK=$(mktemp -d /var/tmp/ntprof-rdma-XXXXXX) || tb_fail "mktemp"
declare -A PIDS

# start `ntprof record ARGS` as NAME in the background; wait until it has attached
record_start() {
	local name=$1 i

	shift
	"$NTPROF" record "$@" > "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err" &
	PIDS[$name]=$!
	for i in $(seq 1 1200); do
		grep -q 'programs attached' "$TB_OUT/$name.err" && break
		kill -0 "${PIDS[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'programs attached' "$TB_OUT/$name.err" || {
		cat "$TB_OUT/$name.err" >&2
		tb_fail "$name: ntprof record did not attach"
	}
}

# SIGINT, like Ctrl-C, then record's status
record_stop() {
	local name=$1 rc

	kill -INT "${PIDS[$name]}"
	wait "${PIDS[$name]}"
	rc=$?
	tb_res "${name}_rc" "$rc"
	cat "$TB_OUT/$name.err" >&2
}

collect() {
	local name=$1

	cp "$WORK/$name".ntp* "$TB_OUT/" || tb_fail "$name: no recording $WORK/$name.ntp"
}

# BPF programs loaded in the kernel: ntprof must leave as many as it found
nprogs() {
	bpftool prog list 2>/dev/null | grep -c -E '^[0-9]+: '
}

tb_res kernel "$(uname -r)"
tb_res progs_before "$(nprogs)"

# ---- rdma ----------------------------------------------------------------------
tb_loop_rdma --delay-ns 2000000
DEV=$TB_DEV
tb_res ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
tb_res dev "$DEV"
NULLB=${TB_NS_PATH##*/}
tb_res nullb "$NULLB"
# the backend's own per-request times (diskstats), the storage stage's oracle
echo 1 > "/sys/block/$NULLB/queue/iostats" 2>/dev/null

record_start target -r target -t rdma -s 1 -o "$WORK/target.ntp"
t0=$SECONDS
# the jobs stay in the first 200 MiB: the queue-depth-1 runs below use the rest
"$NTPROF" record -r both -t rdma -s 1 -o "$WORK/both.ntp" -- \
	fio --output-format=json --output="$TB_OUT/fio-both.json" \
	--filename="$DEV" --ioengine=libaio --direct=1 --time_based --runtime=4 --size=200M \
	--name=r4k --rw=randread --bs=4k --iodepth=4 \
	--name=w4k --rw=randwrite --bs=4k --iodepth=4 \
	--name=w128k --rw=write --bs=128k --iodepth=2 \
	> "$TB_OUT/both.out" 2> "$TB_OUT/both.err"
tb_res both_rc $?
tb_res both_wall_s $((SECONDS - t0))
cat "$TB_OUT/both.err" >&2
# the storage stage without queueing, one command at a time, in the target
# recording: three tries in their own regions (the test takes the least
# disturbed: a loaded build machine stretches the guest's timer interrupts)
for i in 1 2 3; do
	read -r -a st0 < "/sys/block/$NULLB/stat"
	fio --output-format=json --output="$TB_OUT/fio-qd1-$i.json" --filename="$DEV" \
		--ioengine=libaio --direct=1 --name=qd1 --rw=randread --bs=4k --iodepth=1 \
		--offset=$((384 + 128 * i))M --size=1M >&2 || tb_fail "fio qd1 failed"
	read -r -a st1 < "/sys/block/$NULLB/stat"
	# reads completed, and the milliseconds they took, summed from nanoseconds
	tb_res "qd1_${i}_dev_reads" $((st1[0] - st0[0]))
	tb_res "qd1_${i}_dev_ms" $((st1[3] - st0[3]))
done
record_stop target
collect both
collect target
"$NTPROF" report "$WORK/both.ntp" > "$TB_OUT/both.report" 2> "$TB_OUT/both.report.err"
tb_res both_report_rc $?

# ---- tcp: a recording of the other transport -------------------------------------
tb_loop_tcp
tb_res tcp_ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
"$NTPROF" record -r host -t tcp -s 1 -o "$WORK/host_tcp.ntp" -- \
	fio --output-format=json --output="$TB_OUT/fio-tcp.json" --filename="$TB_DEV" \
	--ioengine=libaio --direct=1 --name=tcp --rw=randread --bs=4k --iodepth=4 --size=512K \
	> "$TB_OUT/host_tcp.out" 2> "$TB_OUT/host_tcp.err"
tb_res host_tcp_rc $?
collect host_tcp

tb_disconnect
tb_res progs_after "$(nprogs)"
tb_res rdma_done 1
