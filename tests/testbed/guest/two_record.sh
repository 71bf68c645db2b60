# SPDX-License-Identifier: GPL-2.0
# two_record.sh - guest side of test_two_guest_record.py, run in both guests by
# run-two.sh: `ntprof record -r target` on the target guest, `ntprof record -r
# host -s 1 -- fio` on the host guest, three phases in one boot:
#   A  no added delay
#   B  netem delay 5ms on eth0 of BOTH guests (5 ms each way)
#   C  no netem; the target's clock slewed while it records: its tick 3%
#      long, then 3% short, in turns of SLEW_S seconds (busybox adjtimex),
#      so no one line of offset and drift pairs the two clocks
# Each phase: the target recorder starts first (flag tgt-ready-P), the host
# records a fixed fio job (4k randread, QD1, $IOS I/Os) and says host-done-P,
# then the target recorder stops (last).  The host disconnects after phase C
# and says host-exit; the target serves until then.
# Files in $TB_OUT: target: tgt-A.ntp, tgt-B.ntp, tgt-C.ntp, tgt-P.out/.err;
# host: host-A.ntp, host-B.ntp, host-C.ntp, host-P.out/.err, fio-P.json.
# Results: <role>_kernel, tgt_P_rc / host_P_rc (record's status), host_P_fio_ios,
# <role>_P_qdisc (the qdisc on eth0 during the phase), tgt_C_slews (the
# tick changes made while phase C recorded), host_P_ping (busybox
# ping's summary; its replies in ping-P.txt, just before the phase, and in
# ping-P-after.txt, just after it while the target still records).
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NQN=nqn.2024-01.io.ntprof:two-record
IOS=${TB_IOS:-300}
NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
# SQLite cannot lock on the 9p share: record on the guest's own file system
WORK=$(mktemp -d /var/tmp/ntprof-two-XXXXXX) || tb_fail "mktemp"
REC_PID=
SLEW_S=${TB_SLEW_S:-1}

# start `ntprof record ARGS` as NAME in the background; wait until it attached
record_start() {
	local name=$1 i

	shift
	"$NTPROF" record "$@" > "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err" &
	REC_PID=$!
	for i in $(seq 1 1200); do
		grep -q 'programs attached' "$TB_OUT/$name.err" && return 0
		kill -0 "$REC_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TB_OUT/$name.err" >&2
	tb_fail "$name: ntprof record did not attach"
}

record_stop() {
	local name=$1 rc

	kill -INT "$REC_PID"
	wait "$REC_PID"
	rc=$?
	tb_res "${name//-/_}_rc" "$rc"
	cat "$TB_OUT/$name.err" >&2
}

collect() {
	cp "$WORK/$1.ntp" "$TB_OUT/" || tb_fail "no recording $WORK/$1.ntp"
}

# turn the clock's tick 3% long and 3% short until killed; counts the turns
slew() {
	local n=0 tick

	while :; do
		for tick in 10300 9700; do
			busybox adjtimex -t "$tick" > /dev/null || tb_fail "adjtimex -t $tick"
			n=$((n + 1))
			echo "$n" > "$WORK/slews"
			sleep "$SLEW_S"
		done
	done
}

# the phase's qdisc: netem in B only
phase_net() {
	case $1 in
	B) tb_netem 5ms ;;
	C) tc qdisc del dev eth0 root 2>/dev/null || true ;;
	esac
}

qdisc() {
	tb_res "${TB_ROLE}_$1_qdisc" "$(tc qdisc show dev eth0 | head -n 1)"
}

target() {
	local p slew_pid

	tb_net_up
	tb_res target_kernel "$(uname -r)"
	tb_target_tcp --addr "$TB_MY_ADDR" --nqn "$NQN"
	tb_sync_signal target-listening
	for p in A B C; do
		phase_net "$p"
		qdisc "$p"
		record_start "tgt-$p" -r target -s 1 -o "$WORK/tgt-$p.ntp"
		if [ "$p" = C ]; then
			slew &
			slew_pid=$!
		fi
		tb_sync_signal "tgt-ready-$p"
		tb_sync_wait "host-done-$p" 240
		if [ "$p" = C ]; then
			kill "$slew_pid"
			wait "$slew_pid" 2>/dev/null
			busybox adjtimex -t 10000 > /dev/null || tb_fail "adjtimex -t 10000"
			tb_res tgt_C_slews "$(cat "$WORK/slews" 2>/dev/null || echo 0)"
		fi
		record_stop "tgt-$p"
		collect "tgt-$p"
	done
	tb_sync_wait host-exit 120
}

host() {
	local p ios

	tb_net_up
	tb_res host_kernel "$(uname -r)"
	tb_sync_wait target-listening 240
	tb_connect --transport tcp --addr "$TB_PEER_ADDR" --port 4420 --nqn "$NQN"
	tb_res host_ctrl_address "$(cat "/sys/class/nvme/$TB_CTRL/address")"
	for p in A B C; do
		phase_net "$p"
		qdisc "$p"
		tb_sync_wait "tgt-ready-$p" 240
		# the emulated network's own round trips, before the phase and after
		# it (the test's oracle for what netem really added: under TCG its
		# timers fire late, by how much depends on the machine's load then)
		busybox ping -A -c 40 "$TB_PEER_ADDR" > "$TB_OUT/ping-$p.txt" 2>&1
		tb_res "host_${p}_ping" "$(tail -n 1 "$TB_OUT/ping-$p.txt")"
		# every block of the region once (fio's random map): exactly $IOS reads
		"$NTPROF" record -r host -s 1 -o "$WORK/host-$p.ntp" -- \
			fio --name="phase$p" --filename="$TB_DEV" --ioengine=libaio --direct=1 \
			--rw=randread --bs=4k --iodepth=1 --size=$((IOS * 4))k \
			--eta=never --output-format=json --output="$TB_OUT/fio-$p.json" \
			> "$TB_OUT/host-$p.out" 2> "$TB_OUT/host-$p.err"
		tb_res "host_${p}_rc" $?
		cat "$TB_OUT/host-$p.err" >&2
		busybox ping -A -c 40 "$TB_PEER_ADDR" > "$TB_OUT/ping-$p-after.txt" 2>&1
		tb_sync_signal "host-done-$p"
		collect "host-$p"
		ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$TB_OUT/fio-$p.json")
		tb_res "host_${p}_fio_ios" "$ios"
	done
	tb_disconnect
	tb_sync_signal host-exit
}

case "${TB_ROLE:-}" in
target) target ;;
host) host ;;
*) tb_fail "two_record.sh: TB_ROLE must be target or host (run it with run-two.sh)" ;;
esac
