# SPDX-License-Identifier: GPL-2.0
# record_btt.sh - guest side of test_record_btt.py: `ntprof record -s 1` and
# blktrace on the same loopback NVMe/TCP namespace, over the same I/Os, so the
# test can compare ntprof's mean end-to-end latency with btt's Q2C mean.
#
#   record_btt.sh [PHASE...]     PHASE = LABEL:RW:BS:QD:IOS, default: the six
#                                phases below (4k randread, 4k randwrite and
#                                128k write, each at queue depth 1 and 8)
#
# One recording covers every phase; blktrace runs once per phase. Phase i uses
# its own region of the namespace (offset i * 64 MiB, IOS * BS bytes, every
# block once: fio's random map, no time limit), so the test selects a phase's
# commands in the recording by LBA and gets exactly the I/Os blktrace saw.
# blkparse and btt run on the build machine (the test), not under TCG.
#
# Why multipath is off: nvmet exposes a multi-controller subsystem, so with
# native multipath the host has a bio-based head disk nvme0n1 and a hidden path
# disk nvme0c0n1 that has no /dev node; blktrace on the head sees Q but never
# G/D/C (those happen on the path's queue), and the hidden disk has no device
# number at all (no /sys/block/nvme0c0n1/dev: checked on 6.1), so no node can
# be made for blktrace's BLKTRACESETUP ioctl. Loading nvme_core with multipath=N
# before nvme-tcp gives one request-based disk for the namespace: Q (bio
# submitted, where the bio's issue time is stamped: ntprof's h_start) and C
# (request completed, right after nvme_complete_rq: ntprof's h_done) are then
# events of the same queue and the same I/Os, on the same disk ntprof records.
# The NVMe/TCP driver path ntprof hooks is the same with or without multipath.
#
# Files in $TB_OUT: btt.ntp (the recording), btt.err (record's stderr),
# bt-LABEL/ (blktrace's per-CPU files bt.blktrace.N), fio-LABEL.json.
# Results (result.env): kernel, multipath, dev, hidden_paths, record_rc,
# attach_s, phases, and per phase LABEL_{rw,bs,qd,offset,size,fio_ios,fio_errors,
# blktrace_rc}.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
REGION_MIB=64
WORK=/tmp/record-btt            # the guest's tmpfs: SQLite cannot lock on 9p
REC_PID=

[ $# -gt 0 ] || set -- read4k_qd1:randread:4k:1:512 read4k_qd8:randread:4k:8:512 \
	write4k_qd1:randwrite:4k:1:512 write4k_qd8:randwrite:4k:8:512 \
	write128k_qd1:write:128k:1:96 write128k_qd8:write:128k:8:96

bytes_of() {
	case "$1" in
	*k) echo $((${1%k} * 1024)) ;;
	*) echo "$1" ;;
	esac
}

record_start() {
	local i

	"$NTPROF" record -s 1 -o "$WORK/btt.ntp" > "$WORK/btt.out" 2> "$WORK/btt.err" &
	REC_PID=$!
	for i in $(seq 1 1200); do
		grep -q 'programs attached' "$WORK/btt.err" && break
		kill -0 "$REC_PID" 2>/dev/null || break
		sleep 0.1
	done
	cp "$WORK/btt.err" "$TB_OUT/btt.err"
	grep -q 'programs attached' "$WORK/btt.err" || {
		cat "$WORK/btt.err" >&2
		tb_fail "ntprof record did not attach"
	}
	tb_res attach_s "$(sed -n 's/.*programs attached in \([0-9.]*\) s.*/\1/p' "$WORK/btt.err")"
}

record_stop() {
	local rc

	kill -INT "$REC_PID"
	wait "$REC_PID"
	rc=$?
	cat "$WORK/btt.err" >&2
	cp "$WORK/btt.err" "$TB_OUT/btt.err"
	tb_res record_rc "$rc"
	[ -f "$WORK/btt.ntp" ] && cp "$WORK/btt.ntp" "$TB_OUT/btt.ntp"
}

# blktrace until SIGINT; returns once its per-CPU readers are running
blktrace_start() {
	local dir=$1 i

	mkdir -p "$dir"
	blktrace -d "$TB_DEV" -D "$dir" -o bt > "$dir/blktrace.log" 2>&1 &
	BT_PID=$!
	for i in $(seq 1 100); do
		[ -e "$dir/bt.blktrace.0" ] && break
		kill -0 "$BT_PID" 2>/dev/null || tb_fail "blktrace on $TB_DEV: $(cat "$dir/blktrace.log")"
		sleep 0.1
	done
	[ -e "$dir/bt.blktrace.0" ] || tb_fail "blktrace on $TB_DEV wrote nothing"
	# the output files appear just before BLKTRACESTART: give it a moment
	sleep 1
}

# SIGINT: blktrace stops tracing, drains the per-CPU buffers and exits 0
blktrace_stop() {
	kill -INT "$BT_PID"
	wait "$BT_PID"
	BT_RC=$?
}

phase() {
	local idx=$1 label rw bs qd ios size offset dir

	IFS=: read -r label rw bs qd ios <<< "$2"
	[ -n "$ios" ] || tb_fail "phase '$2': expected LABEL:RW:BS:QD:IOS"
	size=$(($(bytes_of "$bs") * ios))
	offset=$((idx * REGION_MIB * 1024 * 1024))
	[ "$size" -le $((REGION_MIB * 1024 * 1024)) ] || tb_fail "phase $label: $size bytes > ${REGION_MIB} MiB"
	tb_res "${label}_rw" "$rw"
	tb_res "${label}_bs" "$(bytes_of "$bs")"
	tb_res "${label}_qd" "$qd"
	tb_res "${label}_offset" "$offset"
	tb_res "${label}_size" "$size"

	dir=$WORK/bt-$label
	blktrace_start "$dir"
	tb_fio "$label" --rw="$rw" --bs="$bs" --iodepth="$qd" --offset="$offset" \
		--size="$size" --eta=never
	blktrace_stop
	tb_res "${label}_blktrace_rc" "$BT_RC"
	tb_res "${label}_fio_ios" "$TB_FIO_IOS"
	tb_res "${label}_fio_errors" "$(jq '[.jobs[].error] | add' "$TB_OUT/fio-$label.json")"
	mkdir -p "$TB_OUT/bt-$label"
	cp "$dir"/* "$TB_OUT/bt-$label/" || tb_fail "phase $label: cannot copy the blktrace files"
}

tb_res kernel "$(uname -r)"
rm -rf "$WORK"
mkdir -p "$WORK"
# before anything loads nvme_core as a dependency of nvme-tcp
[ -d /sys/module/nvme_core ] && tb_fail "nvme_core already loaded: cannot turn multipath off"
modprobe nvme_core multipath=N || tb_fail "modprobe nvme_core multipath=N"
tb_res multipath "$(cat /sys/module/nvme_core/parameters/multipath)"
tb_loop_tcp
tb_res dev "$TB_DEV"
hidden=(/sys/block/nvme*c*n*)
[ -e "${hidden[0]}" ] || hidden=()
tb_res hidden_paths "${#hidden[@]}"
# one bio, one request, one command: no merging of neighbouring 4k I/Os at QD8
echo 2 > "/sys/block/${TB_DEV#/dev/}/queue/nomerges"

record_start
tb_res phases "$(printf '%s\n' "$@" | cut -d: -f1 | paste -sd' ')"
i=0
for p in "$@"; do
	phase "$i" "$p"
	i=$((i + 1))
done
record_stop
tb_disconnect
tb_res done 1
