# SPDX-License-Identifier: GPL-2.0
# two.sh - guest side of test_two_guests.py, run in both guests by run-two.sh.
#   target: nvmet-tcp on eth0, counts nvmet_tcp_queue_response while serving
#   host:   optional netem delay on eth0 (TB_NETEM_DELAY, e.g. 5ms), connects to
#           the target over the emulated network, fio with a fixed I/O count
#           under an fentry count on nvme_tcp_queue_rq
#   both:   a three-round ping-pong through /tb-sync; each side stamps its own
#           wall clock (CLOCK_REALTIME), the host derives the clock offset
# Results: target: tgt_*; host: host_*, clock_offset_s (target - host, seconds).
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NQN=nqn.2024-01.io.ntprof:two-guests
ROUNDS=3
PROBE=${TB_PROBE:-$TB_REPO/build/testbed/probe/count_calls}
[ -x "$PROBE" ] || tb_fail "$PROBE missing: run tests/testbed/probe/build.sh before booting"

# the wall clock (CLOCK_REALTIME, as date +%s.%N) without a fork
now() {
	TB_NOW=$EPOCHREALTIME
}

# target half of the clock exchange: answer each ping with our clock
clock_target() {
	local i

	for i in $(seq "$ROUNDS"); do
		tb_sync_wait "ping-$i"
		now
		tb_sync_signal "pong-$i" "$TB_NOW"
	done
}

# host half: offset = t_target - (t_send + t_recv) / 2 of the round with the
# smallest round trip (its error is at most half that round trip)
clock_host() {
	local i t1 t2 t3 best

	for i in $(seq "$ROUNDS"); do
		now
		t1=$TB_NOW
		tb_sync_signal "ping-$i" "$t1"
		tb_sync_wait "pong-$i"
		now
		t3=$TB_NOW
		t2=$TB_SYNC_TEXT
		echo "$t1 $t2 $t3"
	done > /tmp/tb-clock
	best=$(awk '{ rtt = $3 - $1; if (NR == 1 || rtt < min) { min = rtt; off = $2 - ($1 + $3) / 2 } }
		END { printf "%.3f %.3f", off, min }' /tmp/tb-clock)
	tb_res host_clock_rounds "$(tr '\n' ';' < /tmp/tb-clock)"
	tb_res clock_offset_s "${best% *}"
	tb_res clock_rtt_s "${best#* }"
}

target_serve() {
	tb_sync_signal target-ready
	clock_target
	tb_sync_wait host-done 240
}

target() {
	tb_net_up
	tb_res tgt_start_clock "$EPOCHREALTIME"
	tb_target_tcp --addr "$TB_MY_ADDR" --nqn "$NQN"
	"$PROBE" -o "$TB_OUT/calls.env" nvmet_tcp_queue_response bash "$0" serve ||
		tb_fail "serving under $PROBE failed"
	. "$TB_OUT/calls.env"
	tb_res tgt_calls_queue_response "$calls_all"
}

host() {
	local ios calls_disk calls_all

	tb_net_up
	tb_res host_start_clock "$EPOCHREALTIME"
	if [ -n "${TB_NETEM_DELAY:-}" ]; then
		tb_netem "$TB_NETEM_DELAY"
		tb_res host_qdisc "$(tc qdisc show dev eth0 | head -n 1)"
	fi
	tb_sync_wait target-ready 240
	clock_host
	tb_connect --transport tcp --addr "$TB_PEER_ADDR" --port 4420 --nqn "$NQN"
	tb_res host_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
	tb_res host_ctrl_address "$(cat "/sys/class/nvme/$TB_CTRL/address")"
	"$PROBE" -o "$TB_OUT/calls.env" nvme_tcp_queue_rq \
		fio --name=two --filename="$TB_DEV" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --size=2M --iodepth=4 --eta=never --output-format=json \
		--output="$TB_OUT/fio-two.json" >&2 || tb_fail "fio under $PROBE failed"
	ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$TB_OUT/fio-two.json")
	. "$TB_OUT/calls.env"
	tb_res host_fio_ios "$ios"
	tb_res host_calls_disk "$calls_disk"
	tb_disconnect
	tb_sync_signal host-done
}

case "${1:-${TB_ROLE:-}}" in
serve) target_serve ;;
target) target ;;
host) host ;;
*) tb_fail "two.sh: TB_ROLE must be target or host (run it with run-two.sh)" ;;
esac
