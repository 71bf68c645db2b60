# SPDX-License-Identifier: GPL-2.0
# soak.sh - guest side of test_soak.py: `ntprof monitor -r both -s 1 --flight`
# under fio for SOAK_SECONDS (600), scraped by Debian's prometheus (every 5 s,
# the tree's recording rules loaded) and by a loop that every 10 s saves the
# page (page-N.txt) and one line of samples.txt: N, the guest's uptime in s,
# monitor's VmRSS in KiB, the flight recorder's window file's size in bytes.
# After fio: final.txt, a snapshot asked for with POST /snapshot
# (snapshot.ntp), Prometheus' count of its scrapes of monitor and of those up
# (prom-scrapes.json, prom-up.json); then SIGTERM stops monitor.
# A loopback NVMe/TCP target on null_blk with a 100 us completion delay.
# Results: kernel, soak_s, fio_ios, prom (yes, or why not), mon_rc,
# flight_commands, flight_seconds, snapshot (written, or why not).
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
PORT=9464
SOAK_S=${SOAK_SECONDS:-600}
FLIGHT_S=30
FLIGHT_N=200
tb_workdir soak

tb_res kernel "$(uname -r)"
tb_res soak_s "$SOAK_S"
tb_res flight_seconds $FLIGHT_S
tb_res flight_commands $FLIGHT_N
tb_loop_tcp --delay-ns 100000

FLIGHT_TOP=$(mktemp -d /var/tmp/ntprof-soak-XXXXXX) || tb_fail "mktemp /var/tmp/ntprof-soak-XXXXXX"
tb__defer "rm -rf $FLIGHT_TOP"
chmod 0755 "$FLIGHT_TOP"
FLIGHT=$FLIGHT_TOP/f
"$NTPROF" monitor -r both -s 1 --listen 127.0.0.1:$PORT --flight "$FLIGHT" \
	--flight-seconds $FLIGHT_S --flight-commands $FLIGHT_N 2> "$TB_OUT/mon.err" &
MON_PID=$!
for _ in $(seq 1 1200); do
	grep -q 'metrics at' "$TB_OUT/mon.err" && break
	kill -0 $MON_PID 2>/dev/null || break
	sleep 0.1
done
grep -q 'metrics at' "$TB_OUT/mon.err" || { cat "$TB_OUT/mon.err" >&2; tb_fail "monitor did not start"; }

PROM_PID=
if command -v prometheus > /dev/null; then
	mkdir -p "$TB_WORK/prom"
	cat > "$TB_WORK/prom.yml" <<-EOC
	global:
	  scrape_interval: 5s
	  scrape_timeout: 5s
	  evaluation_interval: 5s
	rule_files:
	  - $TB_REPO/contrib/prometheus/ntprof-rules.yml
	scrape_configs:
	  - job_name: ntprof
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	EOC
	prometheus --config.file="$TB_WORK/prom.yml" --storage.tsdb.path="$TB_WORK/prom" \
		--web.listen-address=127.0.0.1:9090 > "$TB_OUT/prometheus.log" 2>&1 &
	PROM_PID=$!
	for _ in $(seq 1 600); do
		curl -sf http://127.0.0.1:9090/-/ready > /dev/null && break
		sleep 0.2
	done
	if curl -sf http://127.0.0.1:9090/-/ready > /dev/null; then
		tb_res prom yes
	else
		tb_res prom "not ready after 120 s"
	fi
else
	tb_res prom "no prometheus on the build machine (apt-get install prometheus)"
fi

# every 10 s: monitor's RSS, the window file's size, its page
(
	n=0
	while [ ! -e "$TB_WORK/sampler-stop" ]; do
		printf '%s %s %s %s\n' "$n" "$(cut -d' ' -f1 /proc/uptime)" \
			"$(awk '/^VmRSS:/ { print $2 }' "/proc/$MON_PID/status")" \
			"$(stat -c %s "$FLIGHT/.flight-window" 2>/dev/null || echo 0)" >> "$TB_OUT/samples.txt"
		curl -sf "http://127.0.0.1:$PORT/metrics" > "$TB_OUT/page-$n.txt.tmp" &&
			mv "$TB_OUT/page-$n.txt.tmp" "$TB_OUT/page-$n.txt"
		n=$((n + 1))
		sleep 10
	done
) &
SAMPLER=$!
tb_fio soak --rw=randread --bs=4k --size=64M --iodepth=8 --time_based --runtime="$SOAK_S"
tb_res fio_ios "$TB_FIO_IOS"
touch "$TB_WORK/sampler-stop"
wait $SAMPLER
curl -sf "http://127.0.0.1:$PORT/metrics" > "$TB_OUT/final.txt" || tb_log "final scrape failed"

SNAP=$(basename "$(curl -sf -X POST "http://127.0.0.1:$PORT/snapshot")")
for _ in $(seq 1 1200); do
	grep -q "flight snapshot .*/$SNAP written" "$TB_OUT/mon.err" && break
	sleep 0.1
done
if cp "$FLIGHT/$SNAP" "$TB_OUT/snapshot.ntp" 2>/dev/null; then
	tb_res snapshot written
else
	tb_res snapshot "not written: $SNAP"
fi

if [ -n "$PROM_PID" ]; then
	for q in "scrapes:count_over_time(up{job=\"ntprof\"}[1h])" "up:sum_over_time(up{job=\"ntprof\"}[1h])"; do
		curl -sf --get http://127.0.0.1:9090/api/v1/query --data-urlencode "query=${q#*:}" \
			> "$TB_OUT/prom-${q%%:*}.json" || tb_log "query ${q%%:*} failed"
	done
	kill $PROM_PID
	wait $PROM_PID
fi
kill -TERM $MON_PID
wait $MON_PID
tb_res mon_rc $?
tb_res done 1
