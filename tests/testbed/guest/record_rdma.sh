# SPDX-License-Identifier: GPL-2.0
# record_rdma.sh - guest side of test_record_rdma.py: `ntprof record -t rdma`
# on a loopback NVMe/RDMA test bed (soft-RoCE), in one boot.
#
# rdma     nvmet-rdma on null_blk with a 2 ms completion delay, nvme-rdma
#          connected over rdma_rxe.  `record -r target -t rdma --kprobes -s 1
#          -i 1` runs in the background (started first, like the target of a
#          two-machine run; kprobes, so its backstop for skipped ones is in
#          play; live lines); `record -r both -t rdma -s 1 -j both.json -- fio
#          ...` (AUTO attach) runs a mixed job (4k randread, 4k randwrite, 128k
#          write, 4 s) and stops when fio exits.  Three 4k reads at queue
#          depth 1 follow, each in its own region (the target recording only;
#          the backend's diskstats before and after each), then SIGINT stops
#          the target recorder.  `ntprof report` on both.ntp.
# sampled  `record -r target -t rdma -s 8` in the background and `record -r
#          host -t rdma -s 8 -- fio` of fixed counts (tb_record_sampled): both
#          sides choose by the sampling hash alone, and their files join.
# filters  `record -r host -t rdma --fentry -s 1 -i 1 --io-type read --size 4K`
#          while fio issues fixed counts of 4k reads, 4k writes and 16k reads.
# tcp      a loopback NVMe/TCP namespace and `record -r host -t tcp -s 1 -- fio`
#          on it: a recording of the other transport, which the test tries to
#          join with the RDMA ones (refused).
# Files in $TB_OUT: both.ntp, both.json, target.ntp, samp_host.ntp, samp_target.ntp,
# filt_host.ntp, host_tcp.ntp,
# <name>.out/.err (record's stdout/stderr), both.report(.err), fio-*.json.
# Results (result.env): kernel, ctrl_transport, tcp_ctrl_transport, dev, nullb,
# <name>_rc, both_wall_s, qd1_<i>_dev_reads, qd1_<i>_dev_ms, progs_before,
# progs_after, both_report_rc, rdma_done.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
# record on the guest's own file system (SQLite's WAL), then tb_collect
tb_workdir rdma

tb_res kernel "$(uname -r)"
tb_res progs_before "$(tb_bpf_progs)"

# ---- rdma ----------------------------------------------------------------------
tb_loop_rdma --delay-ns 2000000
DEV=$TB_DEV
tb_res ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
tb_res dev "$DEV"
NULLB=${TB_NS_PATH##*/}
tb_res nullb "$NULLB"
# the backend's own per-request times (diskstats), the storage stage's oracle
echo 1 > "/sys/block/$NULLB/queue/iostats" 2>/dev/null

# the target side alone, with kprobes (and their backstop) and live lines
tb_record_start target -r target -t rdma --kprobes -s 1 -i 1 -o "$TB_WORK/target.ntp"
t0=$SECONDS
# the jobs stay in the first 200 MiB: the queue-depth-1 runs below use the rest
tb_fio_mix "$DEV" both
"$NTPROF" record -r both -t rdma -s 1 -j "$TB_OUT/both.json" -o "$TB_WORK/both.ntp" -- \
	"${TB_FIO_MIX[@]}" > "$TB_OUT/both.out" 2> "$TB_OUT/both.err"
tb_res both_rc $?
tb_res both_wall_s $((SECONDS - t0))
cat "$TB_OUT/both.err" >&2
# the storage stage without queueing, one command at a time, in the target recording
tb_fio_qd1 "$DEV" "$NULLB"
tb_record_stop target
tb_collect both
tb_collect target
"$NTPROF" report "$TB_WORK/both.ntp" > "$TB_OUT/both.report" 2> "$TB_OUT/both.report.err"
tb_res both_report_rc $?

# ---- sampled: host and target recorded apart at -s 8, the sampling hash's choice
tb_record_sampled "$DEV" rdma 8

# ---- filters: only 4k reads, with fentry ----------------------------------------
tb_record_start filt_host -r host -t rdma --fentry -s 1 -i 1 --io-type read --size 4K \
	-o "$TB_WORK/filt_host.ntp"
# every block once (fio's random map): fixed counts; all but keep4k fail one filter
fio --output-format=json --output="$TB_OUT/fio-filt.json" --filename="$DEV" \
	--ioengine=libaio --direct=1 --iodepth=4 \
	--name=keep4k --offset=256M --rw=randread --bs=4k --size=2M \
	--name=write4k --offset=264M --rw=randwrite --bs=4k --size=1M \
	--name=read16k --offset=272M --rw=randread --bs=16k --size=2M >&2 || tb_fail "fio filt failed"
tb_record_stop filt_host
tb_collect filt_host

# ---- tcp: a recording of the other transport -------------------------------------
tb_loop_tcp
tb_res tcp_ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
"$NTPROF" record -r host -t tcp -s 1 -o "$TB_WORK/host_tcp.ntp" -- \
	fio --output-format=json --output="$TB_OUT/fio-tcp.json" --filename="$TB_DEV" \
	--ioengine=libaio --direct=1 --name=tcp --rw=randread --bs=4k --iodepth=4 --size=512K \
	> "$TB_OUT/host_tcp.out" 2> "$TB_OUT/host_tcp.err"
tb_res host_tcp_rc $?
tb_collect host_tcp

tb_disconnect
tb_res progs_after "$(tb_bpf_progs)"
tb_res rdma_done 1
