# SPDX-License-Identifier: GPL-2.0
# attach_busy.sh - guest side of test_attach.py: `ntprof record` while an
# io_uring SQPOLL fio job keeps a kernel thread busy on the namespace, in each
# attach flavour, and `ntprof check`.  (ntprof-design(7), "Attaching": on 6.1 the first
# fentry attach of the system waits for an RCU-tasks grace period that the
# SQPOLL thread holds up for as long as it polls.)
#
#   attach_busy.sh MODE...      (run in this order; a mode runs once per boot)
#   auto      AUTO: record -s 1 starts 2 s into the busy job; then fio issues
#             exactly FIO_8K 8 KiB reads (the busy job does 4 KiB), SIGINT,
#             and the busy job ends 2 s later.
#   kprobes   the same with --kprobes -r both (the target collector too)
#   fentry    --fentry while the busy job runs: the attach waits, and says
#             so after 10 s; the busy job is then stopped, which lets the
#             attach return; then the 8 KiB reads.  It must come first in a
#             boot: only the first fentry attach of a system waits.
#   check     ntprof check -j (both roles)
#   tponly    record -r both with fentry, kprobes and tp_btf disabled
#             (NTPROF_ATTACH_DISABLE): tracepoints only, through raw_tp; the
#             8 KiB reads; and check -j under the same setting (check-tp.json)
# Files in $TB_OUT: <mode>.ntp, <mode>.out/.err, check.json, check.err.
# Results (result.env): kernel, dev, <mode>_rc, <mode>_fio8k (8 KiB reads
# issued), <mode>_progs_left (BPF programs loaded after record ended that
# were not before), check_rc.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
WORK=$(mktemp -d /var/tmp/ntprof-attach-XXXXXX) || tb_fail "mktemp"
BUSY_S=${BUSY_S:-60}
BUSY=
REC=

progs() {
	bpftool prog list 2>/dev/null | grep -c '^[0-9]*:'
}

# io_uring with a polling SQ thread pinned to CPU 1: a kernel thread that never sleeps
busy_start() {
	fio --name=busy --filename="$TB_DEV" --ioengine=io_uring --sqthread_poll=1 \
		--sqthread_poll_cpu=1 --direct=1 --rw=randread --bs=4k --iodepth=16 \
		--time_based --runtime="$1" --output-format=terse > /dev/null 2>&1 &
	BUSY=$!
	sleep 2
	kill -0 "$BUSY" 2>/dev/null || tb_fail "the io_uring SQPOLL fio job did not start"
}

busy_stop() {
	kill "$BUSY" 2>/dev/null
	wait "$BUSY"
	BUSY=
}

# wait (up to 3 min) until record's stderr has a line matching $2 or it ended
record_wait() {
	local mode=$1 pattern=$2 i

	for i in $(seq 1 1800); do
		grep -q -E "$pattern" "$TB_OUT/$mode.err" && return 0
		kill -0 "$REC" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# start `ntprof record ARGS` in the background; wait until it attached
record_start() {
	local mode=$1

	shift
	"$NTPROF" record "$@" -o "$WORK/$mode.ntp" --offline > "$TB_OUT/$mode.out" 2> "$TB_OUT/$mode.err" &
	REC=$!
	if [ "$mode" = fentry ]; then
		# the attach waits for the busy thread: stop it once record says it waits
		record_wait fentry 'programs attached|fentry waits for it'
		busy_stop
	fi
	record_wait "$mode" 'programs attached' || {
		cat "$TB_OUT/$mode.err" >&2
		tb_fail "$mode: ntprof record did not attach"
	}
}

record_stop() {
	local mode=$1

	kill -INT "$REC"
	# the busy thread holds up the detach of fentry programs: let it go a little later
	[ -n "$BUSY" ] && { sleep 2; busy_stop; }
	wait "$REC"
	tb_res "${mode}_rc" "$?"
	REC=
	cat "$TB_OUT/$mode.err" >&2
	cp "$WORK/$mode.ntp" "$TB_OUT/" 2>/dev/null
	tb_res "${mode}_progs_left" $(($(progs) - PROGS0))
}

reads8k() {
	tb_fio "8k-$1" --rw=randread --bs=8k --size=8M --iodepth=8
	tb_res "${1}_fio8k" "$TB_FIO_IOS"
}

tb_res kernel "$(uname -r)"
tb_loop_tcp
tb_res dev "$TB_DEV"
PROGS0=$(progs)
for mode in "$@"; do
	case "$mode" in
	auto|kprobes)
		busy_start "$BUSY_S"
		if [ "$mode" = auto ]; then
			record_start auto -s 1
		else
			record_start kprobes -s 1 -r both --kprobes
		fi
		reads8k "$mode"
		record_stop "$mode"
		;;
	fentry)
		busy_start "$BUSY_S"
		record_start fentry -s 1 --fentry
		reads8k fentry
		record_stop fentry
		;;
	check)
		"$NTPROF" check -j "$TB_OUT/check.json" 2> "$TB_OUT/check.err"
		tb_res check_rc "$?"
		;;
	tponly)
		export NTPROF_ATTACH_DISABLE=fentry,kprobe,tp_btf
		record_start tponly -s 1 -r both
		reads8k tponly
		record_stop tponly
		"$NTPROF" check -j "$TB_OUT/check-tp.json" 2> "$TB_OUT/check-tp.err"
		tb_res check_tp_rc "$?"
		unset NTPROF_ATTACH_DISABLE
		;;
	*)
		tb_fail "unknown mode $mode"
		;;
	esac
done
tb_res attach_done 1
