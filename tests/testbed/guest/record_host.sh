# SPDX-License-Identifier: GPL-2.0
# record_host.sh - guest side of test_record.py: `ntprof record` on a loopback
# NVMe/TCP host while fio issues a fixed number of I/Os.
#
#   record_host.sh [MODE]...   (default: exact sampled duration, one boot)
#   exact     -s 1: every command of a 4k randread, a 4k randwrite and a 128k
#             sequential write (R2T), stopped with SIGINT
#   sampled   -s 100 over a 4k randread, stopped with SIGINT
#   duration  -d 2 with no I/O, and -j
#   diskfull  -s 1 into a 640 KiB tmpfs that fills up: record must stop with
#             an error and keep what it spooled and committed, for ntprof finish
# Results (result.env): kernel, dev, <mode>_rc, <mode>_fio_ios, exact_disk_ios
# (the requests the disk completed while record -s 1 ran), <mode>_attach_s
# (record's own attach time), <mode>_progs_left; $TB_OUT gets <mode>.ntp and
# record's stdout/stderr (<mode>.out, <mode>.err) for the test to inspect.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"

REC_PID=
# The 9p share under $TB_OUT has no shared memory maps, which SQLite's WAL
# index wants: record on the guest's own file system, then copy the finished
# files out (the share mode records onto the share itself, to test just that)
WORK=$(mktemp -d /var/tmp/ntprof-rec-XXXXXX) || tb_fail "mktemp"

# start `ntprof record ARGS` in the background and wait until it has attached
record_start() {
	local mode=$1 i

	shift
	"$NTPROF" record "$@" > "$TB_OUT/$mode.out" 2> "$TB_OUT/$mode.err" &
	REC_PID=$!
	for i in $(seq 1 1200); do
		grep -q 'programs attached' "$TB_OUT/$mode.err" && break
		kill -0 "$REC_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'programs attached' "$TB_OUT/$mode.err" || {
		cat "$TB_OUT/$mode.err" >&2
		tb_fail "$mode: ntprof record did not attach"
	}
	tb_res "${mode}_attach_s" "$(sed -n 's/.*programs attached in \([0-9.]*\) s.*/\1/p' "$TB_OUT/$mode.err")"
}

# SIGINT, like Ctrl-C, then record's status
record_stop() {
	local mode=$1 rc

	kill -INT "$REC_PID"
	wait "$REC_PID"
	rc=$?
	tb_res "${mode}_rc" "$rc"
	cat "$TB_OUT/$mode.err" >&2
	REC_PID=
}

ios=0
add_fio() {
	tb_fio "$@"
	ios=$((ios + TB_FIO_IOS))
}

tb_res kernel "$(uname -r)"
tb_loop_tcp
tb_res dev "$TB_DEV"
[ $# -gt 0 ] || set -- exact sampled duration diskfull share
for mode in "$@"; do
	ios=0
	case "$mode" in
	exact)
		record_start exact -s 1 -o "$WORK/exact.ntp"
		disk0=$(tb_disk_ios)
		# each block once (fio's random map): exact counts, no time limit
		add_fio randread4k --rw=randread --bs=4k --size=8M --iodepth=8
		add_fio randwrite4k --rw=randwrite --bs=4k --size=8M --iodepth=8
		add_fio write128k --rw=write --bs=128k --size=16M --iodepth=4
		# every request of the disk while record ran: fio's and any other
		tb_res exact_disk_ios $(($(tb_disk_ios) - disk0))
		record_stop exact
		;;
	sampled)
		record_start sampled -s 100 -o "$WORK/sampled.ntp"
		add_fio randread4k-s100 --rw=randread --bs=4k --size=64M --iodepth=16
		record_stop sampled
		;;
	diskfull)
		# a file system that fills up while recording: record stops by itself
		mkdir -p "$WORK/full" && mount -t tmpfs -o size=640k tbfull "$WORK/full" ||
			tb_fail "cannot mount a small tmpfs"
		# attached before fio starts, or a slow start records nothing
		record_start diskfull -s 1 -o "$WORK/full/diskfull.ntp"
		# at most 600 commands a second: each write of the spool (about one
		# a second, 224 bytes a command) fits in the tmpfs, which holds about
		# 2900 of them; unthrottled, the first write could need more, and
		# nothing would be kept
		add_fio randread4k-full --rw=randread --bs=4k --size=16M --iodepth=8 --rate_iops=600
		for i in $(seq 1 100); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.1; done
		kill -INT "$REC_PID" 2>/dev/null && tb_log "diskfull: record still running after fio"
		wait "$REC_PID"
		tb_res diskfull_rc $?
		cat "$TB_OUT/diskfull.err" >&2
		cp "$WORK"/full/diskfull.ntp* "$WORK/" 2>/dev/null
		umount "$WORK/full"
		;;
	share)
		# straight onto the 9p share: no FILE-shm there, exclusive locking mode
		record_start share -s 1 -o "$TB_OUT/share.ntp"
		add_fio randread4k-share --rw=randread --bs=4k --size=4M --iodepth=8
		record_stop share
		;;
	duration)
		t0=$SECONDS
		"$NTPROF" record -d 2 -o "$WORK/duration.ntp" -j "$TB_OUT/duration.json" \
			> "$TB_OUT/duration.out" 2> "$TB_OUT/duration.err"
		tb_res duration_rc $?
		tb_res duration_wall_s $((SECONDS - t0))
		cat "$TB_OUT/duration.err" >&2
		;;
	*)
		tb_fail "record_host.sh: unknown mode '$mode'"
		;;
	esac
	tb_res "${mode}_fio_ios" "$ios"
	# with the -wal and -shm files a failed recording may leave
	[ "$mode" = share ] || cp "$WORK/$mode".ntp* "$TB_OUT/" || tb_fail "$mode: no recording $WORK/$mode.ntp"
	# nothing of ntprof's may stay in the kernel once it has exited
	tb_res "${mode}_progs_left" "$(bpftool prog list 2>/dev/null | grep -c -w -E \
		'setup_cmd|complete_rq|complete_remote|try_send_entry|try_send_exit|h2c_setup|cmd_pdu_sent|data_sent')"
done
tb_disconnect
tb_res record_done 1
