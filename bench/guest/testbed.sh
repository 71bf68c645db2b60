# SPDX-License-Identifier: GPL-2.0
# testbed.sh - guest side of bench/bench_testbed.sh: what ntprof record costs,
# measured inside a test bed guest on a loopback NVMe/TCP or NVMe/RDMA
# (soft-RoCE) namespace: TRANSPORT=tcp|rdma, `record -t $TRANSPORT`.
#
#   testbed.sh [bpf] [fio] [hooks] [least]   (default: bpf fio, in one boot)
#
#   bpf  The BPF cost per command, from the kernel's own BPF statistics
#        (kernel.bpf_stats_enabled=1; bpftool prog show: run_time_ns/run_cnt),
#        for each of ntprof's programs with record -s 1000 (almost every
#        command unsampled: the hash test and one map lookup) and -s 1 (every
#        command sampled), each beside an empty bpftrace program on the same
#        hook, measured over the same fixed fio workload.  Host programs
#        only (record's default -r host), on either transport.
#   fio  The cost a user sees: fio IOPS with nothing attached, with record
#        -s 1000, record -s 1, blktrace, empty programs on the hooks ntprof
#        attached (the floor any tool on those hooks pays), and a bpftrace
#        script doing ntprof's work on the same hooks; ROUNDS interleaved
#        rounds of short fixed-time runs, reported as ratios to the bare runs
#        (medians of the rounds) and as guest ns per I/O; under record, also
#        the recorder's own process time (user and kernel) per command, a
#        rough figure (own_cpu below).  Each record config's recording is
#        counted against the requests the disk completed while it ran
#        (/sys/block/DEV/stat): commands in the file, seen, sampled and lost.
#   hooks  The tracepoints the NVMe drivers offer, and the BPF statistics of
#        empty fentry and empty tp_btf programs on the same points
#        (bench/hooks/empty_hooks.bpf.c); their cost to fio: the fio
#        configs hooks-fe_ and hooks-tp_ (or any name prefix, e.g. hooks-tp_h_).
#   least  The BPF statistics of bench/hooks/least_work.bpf.c's programs: the
#        least work a recorder of every command does on ntprof's hooks (TCP,
#        6.12), over the same workload as bpf; their cost to fio: the fio
#        config `least`, which also counts the records its loader kept
#        against the requests the disk completed, as record's configs do.
#
# Prints tables on stderr (the console) and into $TB_OUT/bench.txt; asserts
# nothing about time. Under TCG kernel work is exaggerated: read the ratios.
# In an instruction-counted guest (run.sh --icount, TB_ICOUNT=1) one guest ns
# is one guest instruction, so every figure is a count of work done and
# repeats from run to run whatever the build machine's load.
# Env: NTPROF, TRANSPORT (tcp), ROUNDS (3), RUNTIME (fio seconds per run, 5),
# FIO_TIMEOUT (guest seconds a fio run may take, RUNTIME + 120; idle time
# jumps ahead under -icount, sleep=off),
# NTPROF_BASE (a second ntprof build, e.g. before a change: measured beside
# NTPROF in the same boot, as "base"), FIO_CONFIGS (the fio part's configs,
# default all of: bare record-s1000 record-s1 blktrace empty bpftrace, and
# base-s1000 base-s1 with NTPROF_BASE; monitor-s1000 and monitor-s1, ntprof
# monitor, and flight-s1000 and flight-s1, monitor --flight, on request;
# baseflight-s1000 and baseflight-s1, NTPROF_BASE's monitor --flight;
# basemonitor-s1000 and basemonitor-s1, NTPROF_BASE's monitor;
# appmonitor-s1000 and appmonitor-s1, monitor --app; hooks-PREFIX, the empty
# programs of bench/hooks whose names begin with PREFIX; least, bench/hooks/least_work),
# EMPTY_HOOKS (their loader; its object is EMPTY_HOOKS.bpf.o), LEAST_WORK (the least
# work's loader; its object is LEAST_WORK.bpf.o).
#
# nvme_core is loaded with multipath=N, as in tests/testbed/guest/record_btt.sh,
# so the namespace is one request-based disk and blktrace traces the whole
# request path (on a multipath head it would see only the bio being queued).
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
NTPROF_BASE=${NTPROF_BASE:-}
[ -z "$NTPROF_BASE" ] || [ -x "$NTPROF_BASE" ] || tb_fail "NTPROF_BASE=$NTPROF_BASE is not executable"
TRANSPORT=${TRANSPORT:-tcp}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-5}
WORK=/tmp/bench-testbed         # tmpfs: SQLite cannot lock on 9p
REPORT=$TB_OUT/bench.txt

# ntprof's programs (bpf/host.bpf.c, bpf/host_rdma.bpf.h) and the same hook in
# bpftrace's terms. ntprof takes nvme_setup_cmd as tp_btf; bpftrace 0.17 has
# no raw/BTF tracepoints, so its empty reference is the classic tracepoint of
# the same event. The BPF statistics time the program body only
# (bpf_prog_run() and the trampoline's __bpf_prog_enter/exit), not the hook's
# dispatch, so the flavour does not enter the figure. A program without an
# entry here (a backstop, e.g. complete_rq_tp) gets no empty reference.
declare -A PROBE=(
	[setup_cmd]=tracepoint:nvme:nvme_setup_cmd
	[complete_rq]=kfunc:nvme_complete_rq
	[complete_rq_exit]=kretfunc:nvme_complete_rq
	# the application's side (on by default): its system calls' hooks
	[app_ent_io_submit]=kfunc:__x64_sys_io_submit
	[app_getevents_exit_fx]=kretfunc:__x64_sys_io_getevents
	[app_ent_pread64]=kfunc:__x64_sys_pread64
	[app_ent_pwrite64]=kfunc:__x64_sys_pwrite64
	[app_exit_pread64]=kretfunc:__x64_sys_pread64
	[app_exit_pwrite64]=kretfunc:__x64_sys_pwrite64
)
case "$TRANSPORT" in
tcp)
	PROBE+=(
		[cmd_pdu_ent]=kfunc:nvme_tcp_try_send_cmd_pdu
		[cmd_pdu_sent]=kretfunc:nvme_tcp_try_send_cmd_pdu
		[data_ent]=kfunc:nvme_tcp_try_send_data
		[data_sent]=kretfunc:nvme_tcp_try_send_data
		[h2c_setup]=kfunc:nvme_tcp_setup_h2c_data_pdu
		[try_send_entry]=kfunc:nvme_tcp_try_send
		[try_send_exit]=kretfunc:nvme_tcp_try_send
		[complete_remote]=kfunc:blk_mq_complete_request_remote
	)
	WRITE_DATA="with R2T"
	;;
rdma)
	PROBE+=(
		[rdma_post_ent]=kfunc:nvme_rdma_post_send
		[rdma_post_send]=kretfunc:nvme_rdma_post_send
		[rdma_recv_done]=kfunc:nvme_rdma_recv_done
	)
	WRITE_DATA="pulled by RDMA READ"
	;;
*)
	tb_fail "testbed.sh: unknown TRANSPORT '$TRANSPORT' (tcp, rdma)"
	;;
esac

say() {
	echo "$*" | tee -a "$REPORT" >&2
}

# ---- tools started in the background, each returning once it is attached ----

REC_PID=
REC_DISK0=0
# record_start S [BINARY]: ntprof record -s S, by default $NTPROF
record_start() {
	local s=$1 bin=${2:-$NTPROF}

	"$bin" record -t "$TRANSPORT" -s "$s" -o "$WORK/rec-$s.ntp" > "$WORK/rec.out" 2> "$WORK/rec.err" &
	REC_PID=$!
	tb_attached "$REC_PID" "$WORK/rec.err" 'programs attached' && { REC_DISK0=$(tb_disk_ios); return 0; }
	cat "$WORK/rec.err" >&2
	tb_fail "ntprof record -t $TRANSPORT -s $s did not attach"
}

# record_stop [TAG [ROUND]]: with a TAG, keep the own-cost line report prints for
# the recording; with a ROUND too, the commands in the file against the requests
# the disk completed since record_start (nothing is in flight at either end)
record_stop() {
	local f disk

	disk=$(($(tb_disk_ios) - REC_DISK0))
	kill -INT "$REC_PID"
	wait "$REC_PID" || { cat "$WORK/rec.err" >&2; tb_fail "ntprof record failed"; }
	REC_PID=
	if [ -n "${1:-}" ]; then
		for f in "$WORK"/rec-*.ntp; do
			printf '%-14s %s\n' "$1" "$("$NTPROF" report "$f" 2>&1 | sed -n "s/^# ntprof's own cost: //p")" \
				>> "$WORK/own-cost"
		done
	fi
	if [ -n "${2:-}" ]; then
		for f in "$WORK"/rec-*.ntp; do
			count_commands "$1" "$2" "$f" "$disk"
		done
	fi
	rm -f "$WORK"/rec-*.ntp
}

# count_commands TAG ROUND FILE DISK_IOS: one line into $WORK/counts: commands in
# FILE, the host's seen, sampled and lost counters, the disk's requests, and the
# I/Os fio counted (the cost window's and the run's; fio leaves its ramp out)
count_commands() {
	local tag=$1 round=$2 f=$3 disk=$4 rows iv fio

	rows=$(sqlite3 "file:$f?mode=ro" 'SELECT count(*) FROM host_io') || tb_fail "sqlite3 $f"
	iv=$(sqlite3 -separator ' ' "file:$f?mode=ro" "SELECT sum(seen), sum(sampled), sum(lost_ringbuf),
		sum(lost_map) FROM intervals WHERE side = 'host'") || tb_fail "sqlite3 $f"
	fio=$(cat "$WORK/fio-window.json" "$WORK/fio-$tag-$round.json" |
		jq -s '[.[].jobs[] | .read.total_ios + .write.total_ios] | add')
	# shellcheck disable=SC2086 # iv is four words
	set -- $iv
	printf '%-14s round %s: %s commands in file / %s I/Os issued (disk); seen %s, sampled %s, lost ring %s, map %s; fio counted %s (its ramp left out)\n' \
		"$tag" "$round" "$rows" "$disk" "$1" "$2" "$3" "$4" "$fio" >> "$WORK/counts"
	tb_res "cmds_${tag//-/_}_r$round" "$rows"
	tb_res "disk_ios_${tag//-/_}_r$round" "$disk"
	tb_res "lost_${tag//-/_}_r$round" "$(($3 + $4))"
}

MON_PID=
# the ntprof whose monitor runs: NTPROF, or NTPROF_BASE for the base... configs
MON_BIN=
# monitor_start S [ARG...]: ntprof monitor -s S ARG..., returning once its programs are attached
monitor_start() {
	local s=$1

	shift
	"${MON_BIN:-$NTPROF}" monitor -t "$TRANSPORT" -s "$s" --listen 127.0.0.1:9464 "$@" 2> "$WORK/mon.err" &
	MON_PID=$!
	tb_attached "$MON_PID" "$WORK/mon.err" 'metrics at' && return 0
	cat "$WORK/mon.err" >&2
	tb_fail "ntprof monitor -t $TRANSPORT -s $s $* did not start"
}

FLIGHT_DIR=
# flight_start S: monitor_start S with the flight recorder (its defaults), into a
# fresh directory that monitor makes for its user (nobody)
flight_start() {
	FLIGHT_DIR=$(mktemp -d /var/tmp/ntprof-bench-flight-XXXXXX) || tb_fail "mktemp"
	chmod 755 "$FLIGHT_DIR"
	monitor_start "$1" --flight "$FLIGHT_DIR/f"
}

# flight_stop TAG: a snapshot asked for and written (after fio: not in its figures), its
# commands kept counted, then monitor_stop TAG
flight_stop() {
	local f rows

	curl -sf -X POST http://127.0.0.1:9464/snapshot > /dev/null || tb_fail "POST /snapshot failed"
	for _ in $(seq 1 600); do
		grep -q 'flight snapshot .* written' "$WORK/mon.err" && break
		sleep 0.1
	done
	f=$(ls "$FLIGHT_DIR"/f/flight-*.ntp 2>/dev/null | head -n 1)
	[ -n "$f" ] || { cat "$WORK/mon.err" >&2; tb_fail "no flight snapshot written"; }
	rows=$("$NTPROF" dump "$f" 2>/dev/null | grep -vc '^#' || true)
	printf '%-14s flight snapshot: %s lines of dump, %s\n' "$1" "$rows" \
		"$(grep -o 'flight snapshot .*: [0-9]* host and [0-9]* target' "$WORK/mon.err" | head -n 1 | sed 's/.*: //')" \
		>> "$WORK/own-cost"
	monitor_stop "$1"
	rm -rf "$FLIGHT_DIR"
}

# monitor_stop TAG: its own cost from its last page (BPF ns and runs a command seen), then SIGTERM
monitor_stop() {
	curl -sf http://127.0.0.1:9464/metrics | awk -v tag="$1" '
		/^ntprof_bpf_ns_per_command/ { ns = $2 }
		/^ntprof_bpf_runs_per_command/ { runs = $2 }
		END { printf "%-14s BPF programs %s runs, %s ns a command (monitor, first 2 s and 1000 commands)\n",
			tag, runs, ns }' >> "$WORK/own-cost"
	kill -TERM "$MON_PID"
	wait "$MON_PID" || { cat "$WORK/mon.err" >&2; tb_fail "ntprof monitor failed"; }
}

# bench/hooks/empty_hooks.bpf.c's empty programs, one flavour (a name prefix:
# fe_ fentry, tp_ tp_btf, fe_h_ the host's nvme core points...) at a time
EMPTY_HOOKS=${EMPTY_HOOKS:-$TB_REPO/build/bench/empty_hooks}
EH_PID=
empty_hooks_start() {
	[ -x "$EMPTY_HOOKS" ] || tb_fail "$EMPTY_HOOKS missing: bench/bench_testbed.sh builds it"
	"$EMPTY_HOOKS" "$EMPTY_HOOKS.bpf.o" "$1" > "$WORK/eh.out" 2>&1 &
	EH_PID=$!
	tb_attached "$EH_PID" "$WORK/eh.out" '^ready' && return 0
	cat "$WORK/eh.out" >&2
	tb_fail "empty_hooks $1 did not attach"
}

empty_hooks_stop() {
	kill -INT "$EH_PID"
	wait "$EH_PID" || { cat "$WORK/eh.out" >&2; tb_fail "empty_hooks failed"; }
}

# bench/hooks/least_work: one record per command on ntprof's hooks, written to tmpfs
LEAST_WORK=${LEAST_WORK:-$TB_REPO/build/bench/least_work}
LW_PID=
LW_DISK0=0
least_start() {
	[ -x "$LEAST_WORK" ] || tb_fail "$LEAST_WORK missing: bench/bench_testbed.sh builds it"
	"$LEAST_WORK" "$LEAST_WORK.bpf.o" "$WORK/least.raw" > "$WORK/lw.out" 2>&1 &
	LW_PID=$!
	tb_attached "$LW_PID" "$WORK/lw.out" '^ready' && { LW_DISK0=$(tb_disk_ios); return 0; }
	cat "$WORK/lw.out" >&2
	tb_fail "least_work did not attach"
}

# least_stop [TAG ROUND]: with them, the records kept against the requests the
# disk completed since least_start (nothing is in flight at either end), and
# the file's size against the records
least_stop() {
	local disk kept clobbered lost bytes size

	disk=$(($(tb_disk_ios) - LW_DISK0))
	kill -INT "$LW_PID"
	wait "$LW_PID" || { cat "$WORK/lw.out" >&2; tb_fail "least_work failed"; }
	LW_PID=
	if [ -n "${2:-}" ]; then
		read -r _ kept _ clobbered _ lost < <(grep '^kept ' "$WORK/lw.out")
		bytes=$(sed -n 's/^bytes //p' "$WORK/lw.out")
		size=$(stat -c %s "$WORK/least.raw")
		[ -n "$kept" ] && [ "$bytes" = "$size" ] ||
			{ cat "$WORK/lw.out" >&2; tb_fail "least_work: no count, or $size bytes in the file for $bytes"; }
		printf '%-14s round %s: %s records kept / %s I/Os issued (disk); clobbered %s, lost ring %s; %s bytes written (%s a record)\n' \
			"$1" "$2" "$kept" "$disk" "$clobbered" "$lost" "$size" "$((kept ? size / kept : 0))" >> "$WORK/counts"
		tb_res "kept_${1//-/_}_r$2" "$kept"
		tb_res "disk_ios_${1//-/_}_r$2" "$disk"
		tb_res "lost_${1//-/_}_r$2" "$((clobbered + lost))"
	fi
	rm -f "$WORK/least.raw"
}

BT_PID=
bpftrace_start() {
	local script=$1

	# BEGIN fires once every probe is attached
	printf 'BEGIN { printf("ready\\n"); }\n%s\n' "$script" > "$WORK/bt.bt"
	tb_log "bpftrace: starting"
	timeout -s INT 900 bpftrace -B line "$WORK/bt.bt" > "$WORK/bt.out" 2>&1 &
	BT_PID=$!
	tb_attached "$BT_PID" "$WORK/bt.out" '^ready' && return 0
	cat "$WORK/bt.bt" "$WORK/bt.out" >&2
	tb_fail "bpftrace did not attach"
}

bpftrace_stop() {
	tb_log "bpftrace: stopping"
	kill -INT "$BT_PID"
	wait "$BT_PID"
}

BLK_PID=
blktrace_start() {

	rm -rf "$WORK/blk"
	mkdir -p "$WORK/blk"
	blktrace -d "$TB_DEV" -D "$WORK/blk" -o bt > "$WORK/blk.log" 2>&1 &
	BLK_PID=$!
	for _ in $(seq 1 100); do
		[ -e "$WORK/blk/bt.blktrace.0" ] && break
		sleep 0.1
	done
	[ -e "$WORK/blk/bt.blktrace.0" ] || tb_fail "blktrace on $TB_DEV: $(cat "$WORK/blk.log")"
	sleep 1         # the files appear just before BLKTRACESTART
}

blktrace_stop() {
	kill -INT "$BLK_PID"
	wait "$BLK_PID"
	rm -rf "$WORK/blk"
}

# ---- bpf: kernel BPF statistics ----

# "id name run_cnt run_time_ns" for every loaded program
prog_stats() {
	bpftool prog show -j | jq -r '.[] | "\(.id) \(.name // "-") \(.run_cnt // 0) \(.run_time_ns // 0)"'
}

# one 4k read and one 128k write outside the measured regions: every hook runs
warmup() {
	dd if="$TB_DEV" of=/dev/null bs=4k count=1 skip=100000 iflag=direct status=none
	dd if=/dev/zero of="$TB_DEV" bs=128k count=1 seek=5000 oflag=direct status=none
}

# the measured workload: a fixed number of commands, reads and writes large
# enough for an R2T (TCP) or an RDMA READ by the target (RDMA);
# REPS repetitions, each program's figure is the lowest of its mean ns per
# run: a vCPU thread the build machine preempts inflates a repetition's sum,
# never deflates it, so the least disturbed repetition is the best estimate
COST_READS=1024
COST_WRITES=64
REPS=${REPS:-3}
cost_work() {
	tb_fio cost_read --rw=randread --bs=4k --size=$((COST_READS * 4))k --iodepth=8 --eta=never
	tb_fio cost_write --rw=write --bs=128k --size=$((COST_WRITES * 128))k --offset=64M \
		--iodepth=4 --eta=never
}

# the programs with ids $1 over cost_work, into $WORK/cost-$2:
# "name runs ns_per_run" (runs: the median, ns: the lowest over the repetitions)
measure() {
	local ids=$1 tag=$2

	warmup
	: > "$WORK/reps"
	for _ in $(seq 1 "$REPS"); do
		prog_stats > "$WORK/s0"
		cost_work
		prog_stats > "$WORK/s1"
		awk -v ids=" $ids " 'NR == FNR { n[$1] = $3; t[$1] = $4; next }
			index(ids, " " $1 " ") && $3 > n[$1] {
				printf "%s %d %.1f\n", $2, $3 - n[$1], ($4 - t[$1]) / ($3 - n[$1]) }' \
			"$WORK/s0" "$WORK/s1" >> "$WORK/reps"
	done
	awk '{ k = $1; c[k]++; r[k, c[k]] = $2; v[k, c[k]] = $3; if (!(k in seen)) { seen[k]; o[++n] = k } }
		function med(a, k, m,   i, j, x, y) {
			for (i = 1; i <= m; i++) y[i] = a[k, i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
				if (y[j] < y[i]) { x = y[i]; y[i] = y[j]; y[j] = x }
			return m % 2 ? y[(m + 1) / 2] : (y[m / 2] + y[m / 2 + 1]) / 2
		}
		function low(a, k, m,   i, x) {
			x = a[k, 1]
			for (i = 2; i <= m; i++) if (a[k, i] < x) x = a[k, i]
			return x
		}
		END { for (i = 1; i <= n; i++) print o[i], med(r, o[i], c[o[i]]), low(v, o[i], c[o[i]]) }' \
		"$WORK/reps" > "$WORK/cost-$tag"
}

new_ids() {
	prog_stats | awk -v old=" $1 " '!index(old, " " $1 " ") { printf "%s ", $1 }'
}

all_ids() {
	prog_stats | awk '{ printf "%s ", $1 }'
}

# bpftrace names a program after its function or tracepoint, cut to 15
# characters: probes whose names collide go to different runs
empty_refs() {
	local names=$1 name probe key groups=() seen=() g placed ids0 ids script

	for name in $names; do
		probe=${PROBE[$name]:-}
		[ -n "$probe" ] || continue
		key=${probe##*:}
		key=${key:0:15}
		placed=0
		for g in "${!groups[@]}"; do
			case " ${seen[g]} " in *" $key "*) continue ;; esac
			groups[g]+=" $name"
			seen[g]+=" $key"
			placed=1
			break
		done
		if [ $placed = 0 ]; then
			groups+=("$name")
			seen+=("$key")
		fi
	done
	: > "$WORK/cost-empty"
	for g in "${!groups[@]}"; do
		script=
		for name in ${groups[g]}; do
			script+="${PROBE[$name]} { }"$'\n'
		done
		ids0=$(all_ids)
		bpftrace_start "$script"
		ids=$(new_ids "$ids0")
		measure "$ids" "empty-$g"
		bpftrace_stop
		# bpftrace's name -> ntprof's name
		for name in ${groups[g]}; do
			key=${PROBE[$name]##*:}
			awk -v k="${key:0:15}" -v n="$name" '$1 == k { print n, $2, $3 }' \
				"$WORK/cost-empty-$g" >> "$WORK/cost-empty"
		done
	done
}

# the table of one build's programs: cost-$1s1000, cost-$1s1 against cost-empty
cost_table() {
	local prefix=$1

	awk -v cmds=$((COST_READS + COST_WRITES)) -v pfx="$prefix" -v hooks="$(for n in "${!PROBE[@]}"; do printf '%s=%s ' "$n" "${PROBE[$n]}"; done)" '
		BEGIN { nh = split(hooks, h, " "); for (i = 1; i <= nh; i++) { split(h[i], kv, "="); probe[kv[1]] = kv[2] } }
		FILENAME ~ /s1000$/ { r1k[$1] = $2; a[$1] = $3; order[++n] = $1; next }
		FILENAME ~ /s1$/ { r1[$1] = $2; b[$1] = $3; next }
		{ re[$1] = $2; e[$1] = $3 }
		function ratio(x, y) { return y > 0 ? sprintf("%.1f", x / y) : "-" }
		END {
			printf "%-16s %-38s %6s %9s %9s %9s %8s %8s\n", "program", "hook (empty reference)", "runs",
				"ns -s1000", "ns -s1", "ns empty", "x -s1000", "x -s1"
			for (i = 1; i <= n; i++) {
				p = order[i]
				printf "%-16s %-38s %6d %9.0f %9.0f %9.0f %8s %8s\n", p, probe[p], r1[p], a[p], b[p], e[p],
					ratio(a[p], e[p]), ratio(b[p], e[p])
				sa += r1k[p] * a[p]; sb += r1[p] * b[p]
				# a backstop without an empty reference adds nothing to the floor
				if (p in e) se += r1[p] * e[p]
			}
			printf "%-16s %-38s %6s %9.0f %9.0f %9.0f %8s %8s\n", "per command", "(runs x ns, all programs / commands)",
				cmds, sa / cmds, sb / cmds, se / cmds, ratio(sa, se), ratio(sb, se)
			printf "bpf_%sper_cmd_ns_s1000=%.0f\nbpf_%sper_cmd_ns_s1=%.0f\nbpf_per_cmd_ns_empty=%.0f\n",
				pfx, sa / cmds, pfx, sb / cmds, se / cmds > "/dev/stderr"
		}' "$WORK/cost-${prefix}s1000" "$WORK/cost-${prefix}s1" "$WORK/cost-empty" 2> "$WORK/cost.env" |
		tee -a "$REPORT" >&2
	while IFS='=' read -r k v; do
		tb_res "$k" "$v"
	done < "$WORK/cost.env"
}

bench_bpf() {
	local s ids0 ids names

	sysctl -q -w kernel.bpf_stats_enabled=1 || tb_fail "cannot enable kernel.bpf_stats_enabled"
	for s in 1000 1; do
		ids0=$(all_ids)
		record_start "$s"
		ids=$(new_ids "$ids0")
		measure "$ids" "s$s"
		record_stop
		[ -n "$NTPROF_BASE" ] || continue
		ids0=$(all_ids)
		record_start "$s" "$NTPROF_BASE"
		ids=$(new_ids "$ids0")
		measure "$ids" "base_s$s"
		record_stop
	done
	names=$(awk '{ print $1 }' "$WORK/cost-s1")
	[ -z "$NTPROF_BASE" ] || names+=" $(awk '{ print $1 }' "$WORK/cost-base_s1")"
	# shellcheck disable=SC2086 # names is a list of words
	empty_refs "$(printf '%s\n' $names | awk '!seen[$0]++' | paste -sd' ')"
	sysctl -q -w kernel.bpf_stats_enabled=0

	say ""
	say "== BPF cost per run, kernel $(uname -r), NVMe/$TRANSPORT: $((COST_READS + COST_WRITES))" \
		"commands per repetition ($COST_READS 4k randread QD8, $COST_WRITES 128k write QD4" \
		"$WRITE_DATA)," \
		"lowest of $REPS$([ "${TB_ICOUNT:-0}" = 1 ] && echo "; instruction-counted: ns = guest instructions")"
	say "-- $NTPROF ($("$NTPROF" version 2>/dev/null | head -n 1))"
	cost_table ""
	if [ -n "$NTPROF_BASE" ]; then
		say "-- base: $NTPROF_BASE ($("$NTPROF_BASE" version 2>/dev/null | head -n 1))"
		cost_table base_
	fi
}

# ---- hooks: an empty tp_btf program against an empty fentry one, same points ----

bench_hooks() {
	local fl ids0 ids ev d e names

	ev=/sys/kernel/tracing/events
	[ -d "$ev/block" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	say ""
	say "== tracepoints of the NVMe drivers, kernel $(uname -r):"
	for d in "$ev"/nvme*; do
		[ -d "$d" ] || continue
		names=
		for e in "$d"/*/; do
			e=${e%/}
			names+=" ${e##*/}"
		done
		say "   ${d##*/}:$names"
	done
	sysctl -q -w kernel.bpf_stats_enabled=1 || tb_fail "cannot enable kernel.bpf_stats_enabled"
	for fl in fe_ tp_; do
		ids0=$(all_ids)
		empty_hooks_start "$fl"
		ids=$(new_ids "$ids0")
		measure "$ids" "hooks-$fl"
		empty_hooks_stop
	done
	sysctl -q -w kernel.bpf_stats_enabled=0
	say ""
	say "== empty programs, fentry against tp_btf on the same points, kernel $(uname -r), NVMe/$TRANSPORT:" \
		"$((COST_READS + COST_WRITES)) commands per repetition, lowest of $REPS"
	say "$(awk 'FILENAME ~ /fe_$/ { k = substr($1, 4); o[++n] = k; rf[k] = $2; nf[k] = $3; next }
		{ k = substr($1, 4); rt[k] = $2; nt[k] = $3 }
		END { printf "%-16s %8s %8s %10s %10s\n", "point", "runs fe", "runs tp", "ns fe", "ns tp"
			for (i = 1; i <= n; i++) { k = o[i]
				printf "%-16s %8d %8d %10.1f %10.1f\n", k, rf[k], rt[k], nf[k], nt[k] } }' \
		"$WORK/cost-hooks-fe_" "$WORK/cost-hooks-tp_")"
	say "(the statistics time a program's body, not its dispatch: fio's hooks-fe_ and hooks-tp_ configs weigh that)"
}

# ---- least: the least work's programs, by the kernel's BPF statistics ----

bench_least() {
	local ids0 ids

	sysctl -q -w kernel.bpf_stats_enabled=1 || tb_fail "cannot enable kernel.bpf_stats_enabled"
	ids0=$(all_ids)
	least_start
	ids=$(new_ids "$ids0")
	measure "$ids" least
	least_stop
	sysctl -q -w kernel.bpf_stats_enabled=0
	say ""
	say "== the least work's programs (bench/hooks/least_work.bpf.c), kernel $(uname -r), NVMe/$TRANSPORT:" \
		"$((COST_READS + COST_WRITES)) commands per repetition ($COST_READS 4k randread QD8, $COST_WRITES 128k" \
		"write QD4 $WRITE_DATA), lowest of $REPS$([ "${TB_ICOUNT:-0}" = 1 ] && echo "; instruction-counted: ns = guest instructions")"
	say "$(awk -v cmds=$((COST_READS + COST_WRITES)) '
		BEGIN { printf "%-22s %6s %9s\n", "program", "runs", "ns a run" }
		{ printf "%-22s %6d %9.0f\n", $1, $2, $3; sum += $2 * $3 }
		END { printf "%-22s %6d %9.0f\n", "per command", cmds, sum / cmds
			printf "bpf_least_per_cmd_ns=%.0f\n", sum / cmds > "/dev/stderr" }' \
		"$WORK/cost-least" 2> "$WORK/cost.env")"
	while IFS='=' read -r k v; do
		tb_res "$k" "$v"
	done < "$WORK/cost.env"
}

# ---- fio: IOPS under each tool ----

# ntprof's work in bpftrace: a timestamp per command at each of the hooks
# ntprof attached, keyed by the request (or the nvme_tcp request / queue, the
# nvme_rdma capsule, the ib_wc: preallocated, so bounded maps), and the
# end-to-end time into a histogram. The send and R2T hooks take both kernels'
# variants; missing ones are left out. On RDMA the receive hook stands for
# ntprof's (queue, command id) lookup with one keyed store: the same count of
# map operations, not the same keys.
bpftrace_equivalent() {
	local names=$1 s name

	s='kfunc:nvme_setup_cmd { @start[(uint64)args->req] = nsecs; }'$'\n'
	for name in $names; do
		case "$name" in
		cmd_pdu_sent) s+='kretfunc:nvme_tcp_try_send_cmd_pdu /retval == 1/ { @sent[(uint64)args->req] = nsecs; }' ;;
		data_sent) s+='kretfunc:nvme_tcp_try_send_data /retval == 1/ { @data[(uint64)args->req] = nsecs; }' ;;
		h2c_setup) s+='kfunc:nvme_tcp_setup_h2c_data_pdu { @r2t[(uint64)args->req] = nsecs; }' ;;
		try_send_entry) s+='kfunc:nvme_tcp_try_send { @q[(uint64)args->queue] = nsecs; }' ;;
		try_send_exit) s+='kretfunc:nvme_tcp_try_send /retval > 0/ { @qsent[(uint64)args->queue] = nsecs; }' ;;
		complete_remote) s+='kfunc:blk_mq_complete_request_remote /@start[(uint64)args->rq]/ { @recv[(uint64)args->rq] = nsecs; }' ;;
		rdma_post_send) s+='kretfunc:nvme_rdma_post_send /retval == 0/ { @sent[(uint64)args->qe] = nsecs; }' ;;
		rdma_recv_done) s+='kfunc:nvme_rdma_recv_done { @recvwc[(uint64)args->wc] = nsecs; }' ;;
		*) continue ;;
		esac
		s+=$'\n'
	done
	# the request-keyed maps are dropped at completion (bpftrace refuses a
	# map no probe writes: @recv exists with complete_remote, TCP only)
	s+='kfunc:nvme_complete_rq /@start[(uint64)args->req]/ { @e2e_us = hist((nsecs - @start[(uint64)args->req]) / 1000); delete(@start[(uint64)args->req]);'
	case " $names " in *" complete_remote "*) s+=' delete(@recv[(uint64)args->req]);' ;; esac
	s+=' }'
	echo "$s"
}

# record keeps the kernel's BPF statistics on for its first 2 s and 1000
# commands (its own cost, ntprof-ntp(5)); they cost two clock reads per
# program run, which a long recording does not see: so each measured run
# starts after that window, here too (for every build alike)
past_cost_window() {
	fio --name=window --filename="$TB_DEV" --ioengine=libaio --direct=1 --rw=randread --bs=4k \
		--size=4M --iodepth=8 --eta=never --output-format=json --output="$WORK/fio-window.json" >&2 ||
		tb_fail "fio window"
	sleep 3.5
}

# own_cpu: the guest ns the recorder's (or least_work's) threads ran (/proc/PID/task/*/schedstat,
# user and kernel) and the commands the namespace completed, "ns commands";
# nothing when no recorder runs.  Under icount with 2 vCPUs one clock counts
# both vCPUs' instructions, so this includes what the other vCPU ran meanwhile:
# it varies between runs of one build (1573, 1802 a command) and tells large
# differences only; the IOPS of one boot are the figure to compare
own_cpu() {
	local ns=0 t v pid=${REC_PID:-$LW_PID}

	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 0
	for t in /proc/"$pid"/task/*/schedstat; do
		read -r v _ < "$t" && ns=$((ns + v))
	done
	echo "$ns $(awk '{ print $1 + $5 }' "/sys/block/${TB_DEV##*/}/stat")"
}

fio_run() {
	local tag=$1 round=$2
	local json=$WORK/fio-$tag-$round.json
	local c0 c1

	c0=$(own_cpu)
	timeout "${FIO_TIMEOUT:-$((RUNTIME + 120))}" fio --name="$tag" --filename="$TB_DEV" --ioengine=libaio --direct=1 --rw=randread --bs=4k \
		--iodepth=8 --time_based --runtime="$RUNTIME" --ramp_time=1 --eta=never \
		--output-format=json --output="$json" >&2 || tb_fail "fio $tag round $round"
	c1=$(own_cpu)
	jq '[.jobs[].read.iops] | add | floor' "$json" >> "$WORK/iops-$tag"
	[ -z "$c0" ] || [ -z "$c1" ] || echo "$c0 $c1" | awk -v t="$tag" '$4 > $2 {
		printf "%-14s %.0f ns a command (%d commands)\n", t, ($3 - $1) / ($4 - $2), $4 - $2 }' \
		>> "$WORK/rec-cpu"
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# the floor: an empty program on each hook ntprof attached
empty_script() {
	local name

	for name in $1; do
		[ -n "${PROBE[$name]:-}" ] && echo "${PROBE[$name]} { }"
	done
}

bench_fio() {
	local names round tag script empty configs bare m

	sysctl -q -w kernel.bpf_stats_enabled=0
	# which optional hooks ntprof uses here: its program names while attached
	ids0=$(all_ids)
	record_start 1000
	names=$(prog_stats | awk -v old=" $ids0 " '!index(old, " " $1 " ") { print $2 }' | paste -sd' ')
	record_stop
	script=$(bpftrace_equivalent "$names")
	echo "$script" > "$TB_OUT/equivalent.bt"
	empty=$(empty_script "$names")
	echo "$empty" > "$TB_OUT/empty.bt"
	configs=${FIO_CONFIGS:-bare record-s1000 record-s1 blktrace empty bpftrace${NTPROF_BASE:+ base-s1000 base-s1}}
	rm -f "$WORK"/iops-* "$WORK/own-cost" "$WORK/counts" "$WORK/rec-cpu"
	for round in $(seq 1 "$ROUNDS"); do
		for tag in $configs; do
			tb_log "round $round $tag: start"
			case "$tag" in
			bare) fio_run "$tag" "$round" ;;
			record-s1000) record_start 1000; past_cost_window; fio_run "$tag" "$round"; record_stop "$tag" "$round" ;;
			record-s1) record_start 1; past_cost_window; fio_run "$tag" "$round"; record_stop "$tag" "$round" ;;
			base-s1000) record_start 1000 "$NTPROF_BASE"; past_cost_window; fio_run "$tag" "$round"; record_stop ;;
			base-s1) record_start 1 "$NTPROF_BASE"; past_cost_window; fio_run "$tag" "$round"; record_stop ;;
			monitor-s1000) monitor_start 1000; past_cost_window; fio_run "$tag" "$round"; monitor_stop "$tag" ;;
			monitor-s1) monitor_start 1; past_cost_window; fio_run "$tag" "$round"; monitor_stop "$tag" ;;
			flight-s1000) flight_start 1000; past_cost_window; fio_run "$tag" "$round"; flight_stop "$tag" ;;
			flight-s1) flight_start 1; past_cost_window; fio_run "$tag" "$round"; flight_stop "$tag" ;;
			baseflight-s1000|baseflight-s1)
				[ -n "$NTPROF_BASE" ] || tb_fail "testbed.sh: $tag needs NTPROF_BASE"
				MON_BIN=$NTPROF_BASE
				flight_start "${tag#baseflight-s}"; past_cost_window; fio_run "$tag" "$round"; flight_stop "$tag"
				MON_BIN= ;;
			appmonitor-s1000|appmonitor-s1)
				monitor_start "${tag#appmonitor-s}" --app; past_cost_window; fio_run "$tag" "$round"
				monitor_stop "$tag" ;;
			basemonitor-s1000|basemonitor-s1)
				[ -n "$NTPROF_BASE" ] || tb_fail "testbed.sh: $tag needs NTPROF_BASE"
				MON_BIN=$NTPROF_BASE
				monitor_start "${tag#basemonitor-s}"; past_cost_window; fio_run "$tag" "$round"; monitor_stop "$tag"
				MON_BIN= ;;
			blktrace) blktrace_start; fio_run "$tag" "$round"; blktrace_stop ;;
			empty) bpftrace_start "$empty"; fio_run "$tag" "$round"; bpftrace_stop ;;
			hooks-*) empty_hooks_start "${tag#hooks-}"; fio_run "$tag" "$round"; empty_hooks_stop ;;
			least) least_start; fio_run "$tag" "$round"; least_stop "$tag" "$round" ;;
			bpftrace) bpftrace_start "$script"; fio_run "$tag" "$round"; bpftrace_stop ;;
			*) tb_fail "testbed.sh: unknown fio config '$tag'" ;;
			esac
			tb_log "round $round $tag: $(tail -n 1 "$WORK/iops-$tag") IOPS"
		done
	done

	say ""
	say "== fio IOPS, kernel $(uname -r), NVMe/$TRANSPORT: 4k randread QD8, ${RUNTIME} s per run," \
		"$ROUNDS interleaved rounds$([ "${TB_ICOUNT:-0}" = 1 ] && echo "; instruction-counted: ns = guest instructions")"
	# ns per I/O: guest time per I/O, all vCPUs; under icount the instructions
	# the machine executed per I/O while busy (idle time is skipped)
	say "$(printf '%-14s %-30s %10s %8s %9s %9s %7s' config 'IOPS per round' median 'x bare' 'ns/IO' '+ns/IO' spread)"
	bare=$(median "$WORK/iops-bare")
	for tag in $configs; do
		m=$(median "$WORK/iops-$tag")
		say "$(printf '%-14s %-30s %10s %8s %9s %9s %7s' "$tag" "$(paste -sd' ' "$WORK/iops-$tag")" "$m" \
			"$(awk -v a="$m" -v b="$bare" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$m" 'BEGIN { printf "%.0f", (a > 0 ? 1e9 / a : 0) }')" \
			"$(awk -v a="$m" -v b="$bare" 'BEGIN { printf "%+.0f", (a > 0 && b > 0 ? 1e9 / a - 1e9 / b : 0) }')" \
			"$(sort -n "$WORK/iops-$tag" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f%%", (lo > 0 ? 100 * (hi - lo) / lo : 0) }')")"
		tb_res "iops_${tag//-/_}" "$m"
	done
	say "(spread: (highest - lowest) / lowest over the rounds; the bpftrace script: $TB_OUT/equivalent.bt, the empty programs: $TB_OUT/empty.bt)"
	if [ -s "$WORK/counts" ]; then
		say "-- the commands each recording (or least_work's file) holds against the requests the disk completed while it ran:"
		say "$(cat "$WORK/counts")"
	fi
	if [ -s "$WORK/own-cost" ]; then
		say "-- ntprof's own cost, as its report gives it for each recorded run (statistics over its first 2 s and 1000 commands):"
		say "$(cat "$WORK/own-cost")"
	fi
	if [ -s "$WORK/rec-cpu" ]; then
		say "-- the recorder's process (user and kernel) over each fio run, per command the namespace completed:"
		say "$(cat "$WORK/rec-cpu")"
	fi
}

rm -rf "$WORK"
mkdir -p "$WORK"
: > "$REPORT"
[ -d /sys/module/nvme_core ] && tb_fail "nvme_core already loaded: cannot turn multipath off"
modprobe nvme_core multipath=N || tb_fail "modprobe nvme_core multipath=N"
tb_loop_"$TRANSPORT"
tb_res kernel "$(uname -r)"
tb_res transport "$TRANSPORT"
tb_res ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
[ "$(cat "/sys/class/nvme/$TB_CTRL/transport")" = "$TRANSPORT" ] ||
	tb_fail "controller $TB_CTRL is not NVMe/$TRANSPORT"
case "$TRANSPORT" in
tcp) fabric="loopback NVMe/TCP" ;;
rdma) fabric="NVMe/RDMA over soft-RoCE (rdma_rxe on a dummy netdev)" ;;
esac
say "kernel $(uname -r), $(nproc) CPUs, namespace $TB_DEV (null_blk over $fabric), $(bpftrace --version)"
[ $# -gt 0 ] || set -- bpf fio
for part in "$@"; do
	case "$part" in
	bpf) bench_bpf ;;
	fio) bench_fio ;;
	hooks) bench_hooks ;;
	least) bench_least ;;
	*) tb_fail "testbed.sh: unknown part '$part' (bpf, fio, hooks, least)" ;;
	esac
done
tb_disconnect
tb_res done 1
