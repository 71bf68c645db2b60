# SPDX-License-Identifier: GPL-2.0
# record_roles.sh - guest side of test_record_roles.py: `ntprof record -r
# target`, `-r both`, `-- COMMAND`, the live lines and the filters, in one boot.
#
# roles    a loopback NVMe/TCP target on null_blk with a 2 ms completion delay.
#          `record -r target --kprobes -s 1 -i 1` runs in the background
#          (the target side of a two-machine run, started first), and
#          `record -r both -s 1 -i 1 -- fio ...` runs a mixed job (4k randread,
#          4k randwrite, 128k write, 4 s) and stops when fio exits.  Three
#          4k reads at queue depth 1 follow (target recording only; the
#          backend's diskstats before and after each), then
#          SIGINT stops the target recorder.  `ntprof report` on both.ntp
#          gives what record's final report must equal.  A COMMAND that does
#          not exist.
# sampled  on the same namespace, `record -r target -s 8` in the background
#          and `record -r host -s 8 -- fio` of fixed counts (tb_record_sampled):
#          both sides choose by the sampling hash alone, and their files join.
# filters  one namespace A through two TCP paths (native multipath,
#          round-robin), plus the delayed namespace of "roles" as B.  While
#          fio issues a fixed number of I/Os that each fail exactly one
#          filter (or none), two recorders run with --session A --io-type
#          read --size 4K,8K: -r host --kprobes with live lines, and -r both
#          --fentry --offline.  Then --session on a path disk and on an
#          unknown namespace.
# Files in $TB_OUT: <name>.ntp (both, target, samp_host, samp_target, filt_host,
# filt_both), <name>.out/.err (record's stdout/stderr), both.report, fio-*.json, ids-sysfs.txt (sysfs's and configfs's NVMe-oF
# names while both recordings ran).  Results (result.env): kernel, dev, ns, <name>_rc,
# <name>_progs_left, filt_ns_a, filt_ns_b, filt_paths, ...
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
# record on the guest's own file system (SQLite's WAL), then tb_collect
tb_workdir roles

progs_left() {
	tb_res "${1}_progs_left" "$(bpftool prog list 2>/dev/null | grep -c -w -E \
		'setup_cmd|complete_rq|complete_remote|try_send_entry|try_send_exit|h2c_setup|cmd_pdu_sent|data_sent|req_init|req_complete|queue_response|bdev_execute_rw|file_execute_rw|passthru_execut|try_send_respon|setup_response_')"
}

tb_res kernel "$(uname -r)"

# ---- roles ---------------------------------------------------------------------
tb_loop_tcp --delay-ns 2000000
B_DEV=$TB_DEV
tb_res dev "$B_DEV"
tb_res ns "${B_DEV#/dev/}"
NULLB=${TB_NS_PATH##*/}
tb_res nullb "$NULLB"
# what sysfs and configfs say of the NVMe-oF names, for the recordings' nvmf_ids:
# host<TAB>controller<TAB>subsysnqn<TAB>cntlid<TAB>transport<TAB>address<TAB>hostnqn,
# subsystem<TAB>nqn, namespace<TAB>nqn<TAB>nsid<TAB>device_path,
# port<TAB>id<TAB>trtype<TAB>traddr<TAB>trsvcid<TAB>linked nqn (one line each)
{
	for c in /sys/class/nvme/nvme*; do
		printf 'host\t%s\t%s\t%s\t%s\t%s\t%s\n' "${c##*/}" "$(cat "$c/subsysnqn")" \
			"$(cat "$c/cntlid")" "$(cat "$c/transport")" "$(cat "$c/address")" \
			"$(cat "$c/hostnqn")"
	done
	for s in /sys/kernel/config/nvmet/subsystems/*; do
		printf 'subsystem\t%s\n' "${s##*/}"
		for n in "$s"/namespaces/*; do
			printf 'namespace\t%s\t%s\t%s\n' "${s##*/}" "${n##*/}" "$(cat "$n/device_path")"
		done
	done
	for p in /sys/kernel/config/nvmet/ports/*; do
		for l in "$p"/subsystems/*; do
			printf 'port\t%s\t%s\t%s\t%s\t%s\n' "${p##*/}" "$(cat "$p/addr_trtype")" \
				"$(cat "$p/addr_traddr")" "$(cat "$p/addr_trsvcid")" "${l##*/}"
		done
	done
} > "$TB_OUT/ids-sysfs.txt"
# the backend's own per-request times (diskstats), the storage stage's oracle
echo 1 > "/sys/block/$NULLB/queue/iostats" 2>/dev/null

# the target side alone, with kprobes and live lines
tb_record_start target -r target --kprobes -s 1 -i 1 -o "$TB_WORK/target.ntp"
t0=$SECONDS
# the jobs stay in the first 200 MiB: the queue-depth-1 runs below use the rest
tb_fio_mix "$B_DEV" both
"$NTPROF" record -r both -s 1 -i 1 -o "$TB_WORK/both.ntp" -- \
	"${TB_FIO_MIX[@]}" > "$TB_OUT/both.out" 2> "$TB_OUT/both.err"
tb_res both_rc $?
tb_res both_wall_s $((SECONDS - t0))
cat "$TB_OUT/both.err" >&2
# the storage stage without queueing, one command at a time, in the target recording
tb_fio_qd1 "$B_DEV" "$NULLB"
tb_record_stop target
progs_left roles
tb_collect both
tb_collect target
"$NTPROF" report "$TB_WORK/both.ntp" > "$TB_OUT/both.report" 2> "$TB_OUT/both.report.err"
tb_res both_report_rc $?
# a command that cannot run: said before anything is loaded
"$NTPROF" record -d 10 -- /nonexistent/ntprof-test-cmd > /dev/null 2> "$TB_OUT/noexec.err"
tb_res noexec_rc $?

# ---- sampled: host and target recorded apart at -s 8, the sampling hash's choice
tb_record_sampled "$B_DEV" tcp 8

# ---- filters --------------------------------------------------------------------
tb_loop_multipath
A_DEV=$TB_DEV
tb_res filt_ns_a "${A_DEV#/dev/}"
tb_res filt_ns_b "${B_DEV#/dev/}"
tb_res filt_paths "$TB_PATHS"
for s in /sys/class/nvme-subsystem/*; do
	[ "$(cat "$s/subsysnqn")" = "$TB_NQN" ] && echo round-robin > "$s/iopolicy"
done

FILTER=(-s 1 --session "${A_DEV#/dev/}" --io-type read --size 4K,8K)
tb_record_start filt_host --kprobes "${FILTER[@]}" -i 1 -o "$TB_WORK/filt_host.ntp"
tb_record_start filt_both --fentry -r both "${FILTER[@]}" --offline -o "$TB_WORK/filt_both.ntp"
# every block once (fio's random map): exact counts; each job but the first
# two fails exactly one filter
fio --output-format=json --output="$TB_OUT/fio-filt.json" --ioengine=libaio --direct=1 \
	--name=keep4k --filename="$A_DEV" --rw=randread --bs=4k --size=2M --iodepth=4 \
	--name=keep8k --filename="$A_DEV" --offset=8M --rw=randread --bs=8k --size=2M --iodepth=4 \
	--name=write4k --filename="$A_DEV" --offset=16M --rw=randwrite --bs=4k --size=1M --iodepth=4 \
	--name=read16k --filename="$A_DEV" --offset=24M --rw=randread --bs=16k --size=2M --iodepth=4 \
	--name=otherns --filename="$B_DEV" --rw=randread --bs=4k --size=512K --iodepth=4 >&2 ||
	tb_fail "fio filt failed"
tb_record_stop filt_host
tb_record_stop filt_both
progs_left filt
tb_collect filt_host
tb_collect filt_both

# refused before anything is loaded
"$NTPROF" record --session "${TB_PATHS%% *}" -d 1 > /dev/null 2> "$TB_OUT/badpath.err"
tb_res badpath_rc $?
"$NTPROF" record --session nvme99n9 -d 1 > /dev/null 2> "$TB_OUT/badns.err"
tb_res badns_rc $?

tb_disconnect
tb_res roles_done 1
