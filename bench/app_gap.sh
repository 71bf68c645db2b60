# SPDX-License-Identifier: GPL-2.0
# app_gap.sh (guest side) - where fio's latency goes outside ntprof's host
# window: fio on a loopback NVMe/TCP namespace under bench/app_gap.bt
# (bpftrace), alone and under `ntprof record` as the demo runs it.
#
#   tests/testbed/run.sh --kernel 6.1 --timeout 900 --out DIR bench/app_gap.sh
#
# Prints, per fio run, fio's slat/clat/lat means, ntprof's host e2e mean
# (host_stages) and the bpftrace steps (app_gap.bt says what each holds), and
# writes them to $TB_OUT/app_gap.txt.  APP_GAP_SECONDS (default 5) per run.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
SECS=${APP_GAP_SECONDS:-5}
WORK=$(mktemp -d /var/tmp/ntprof-gap-XXXXXX) || tb_fail "mktemp"
tb_loop_tcp
bpftrace "$TB_REPO/bench/app_gap.bt" > "$WORK/bt.out" 2> "$WORK/bt.err" &
BT=$!
for i in $(seq 1 600); do
	grep -q 'Attaching' "$WORK/bt.err" "$WORK/bt.out" 2>/dev/null && break
	kill -0 "$BT" 2>/dev/null || { cat "$WORK/bt.err" >&2; tb_fail "bpftrace exited"; }
	sleep 0.5
done
sleep 2
tb_log "bpftrace attached: $(cat "$WORK/bt.out" "$WORK/bt.err" | head -3)"

RUNS=()
run() {
	local label=$1 rec=$2
	shift 2
	local fio=(fio --name="$label" --filename="$TB_DEV" --direct=1 --rw=randread --bs=4k
		   --runtime="$SECS" --time_based --eta=never --output-format=json
		   --output="$WORK/$label.json" "$@")
	if [ "$rec" = rec ]; then
		"$NTPROF" record -r both -s 1 -o "$WORK/$label.ntp" -- "${fio[@]}" > "$WORK/$label.rep" 2>&1 ||
			tb_fail "record $label"
	else
		"${fio[@]}" || tb_fail "fio $label"
	fi
	RUNS+=("$label")
	sleep 1
}
run libaio8 no --ioengine=libaio --iodepth=8
run libaio8_rec rec --ioengine=libaio --iodepth=8
run uring8_rec rec --ioengine=io_uring --iodepth=8
run psync_rec rec --ioengine=psync
run libaio1_rec rec --ioengine=libaio --iodepth=1
kill -INT "$BT"
wait "$BT"

{
	echo "kernel $(uname -r)"
	echo "run: fio slat / clat / lat mean (us); ntprof host e2e mean (us)"
	for r in "${RUNS[@]}"; do
		f=$WORK/$r.json
		e2e=-
		[ -f "$WORK/$r.ntp" ] && e2e=$(sqlite3 "$WORK/$r.ntp" 'SELECT printf("%.1f", avg(e2e_ns)/1000.0), count(*) FROM host_stages')
		echo "$r: $(jq -r '.jobs[0].read | "\(.slat_ns.mean/1000|floor) / \(.clat_ns.mean/1000|floor) / \(.lat_ns.mean/1000|floor) ios \(.total_ios)"' "$f"); ntprof $e2e"
	done
	echo
	echo "means in us (bench/app_gap.bt says what each step holds); sum = sub..reap"
	args=()
	for r in "${RUNS[@]}"; do
		e=
		[ -f "$WORK/$r.ntp" ] && e=$(sqlite3 "$WORK/$r.ntp" 'SELECT avg(e2e_ns)/1000.0 FROM host_stages')
		args+=("$r:$WORK/$r.json:$e")
	done
	/usr/bin/python3 "$TB_REPO/bench/app_gap_summary.py" "$WORK/bt.out" "${args[@]}"
	echo
	echo "bpftrace (ns sums and counts per fio process, in the order the runs started):"
	cat "$WORK/bt.out"
} | tee "$TB_OUT/app_gap.txt"
cp "$WORK"/*.rep "$WORK"/*.json "$WORK/bt.out" "$TB_OUT/" 2>/dev/null
tb_disconnect
