# SPDX-License-Identifier: GPL-2.0
# monitor.sh - guest side of test_monitor.py: `ntprof monitor -r both -s 1 --app`
# scraped by Debian's prometheus (the build machine's, through the shared
# root) while fio runs, with `ntprof record -r both -s 1` beside it over the
# same commands.
#
# A loopback NVMe/TCP target on null_blk with a 1 ms completion delay.
# record attaches first, then monitor, then prometheus (scraping every
# second) once it is ready; fio runs a 4k randread job of a fixed count
# while a loop saves monitor's page every second (scrape-N.txt).  After fio,
# one more page (final.txt) and Prometheus' answers to the queries of the
# test (prom-<name>.json) once it has scraped past the end, and to every
# expression of the tree's Grafana dashboard and recording rules, which it
# loads (promql.jsonl lists them, prom-expr-N.json the answers); then
# SIGTERM stops monitor, SIGINT record.
#
# monitor runs its flight recorder too (--flight, a trigger on the storage
# stage's p99 that null_blk's delay meets): SIGUSR2 once its page counts
# the first commands, while fio runs; after fio, POST /snapshot and a GET of
# it (refused); then the snapshots are waited for and copied out.  It keeps
# the slowest 50 commands of each second.  Once monitor has stopped, a
# second one on the same directory reads the window back from its file and
# writes it as its first snapshot (restart.ntp).
# Files in $TB_OUT: rec.ntp, mon.err, mon2.err, rec.err, scrape-*.txt,
# scrape-*.time (the uptime in ns before and after each: CLOCK_BOOTTIME, the
# BPF programs' CLOCK_MONOTONIC in a guest never suspended), final.txt, prom-*.json, promql.jsonl, prometheus.log, flight/*.ntp (the snapshots),
# flight-ls.txt (every name in the flight directory), flight-window (its
# window file), post.txt (POST's answer), restart.ntp.  Results: kernel,
# dev, mon_rc, mon2_rc, rec_rc, mon_uid (real,effective), mon_capeff,
# fio_ios, scrapes, prom (yes, or why not), trigger, usr2 (sent, or why
# not), post_code, get_code, flight_owner, flight_written, read_back.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
PORT=9464
DELAY_NS=1000000
tb_workdir monitor

tb_res kernel "$(uname -r)"
tb_loop_tcp --delay-ns $DELAY_NS
tb_res dev "$TB_DEV"
tb_res delay_ns $DELAY_NS

tb_record_start rec -r both -s 1 --offline -o "$TB_WORK/rec.ntp"

# the flight directory's parent open to all: monitor makes it, for nobody
FLIGHT_TOP=$(mktemp -d /var/tmp/ntprof-flight-XXXXXX) || tb_fail "mktemp /var/tmp/ntprof-flight-XXXXXX"
tb__defer "rm -rf $FLIGHT_TOP"
chmod 0755 "$FLIGHT_TOP"
FLIGHT=$FLIGHT_TOP/snap
TRIGGER='storage.p99>500us'
tb_res trigger "$TRIGGER"
# the slowest 50 of each second kept, of fio's thousands a second; a window
# that holds them until the restart below
FLIGHT_ARGS=(--flight "$FLIGHT" --flight-seconds 600 --flight-commands 50)

"$NTPROF" monitor -r both -s 1 --app --listen 127.0.0.1:$PORT "${FLIGHT_ARGS[@]}" --trigger "$TRIGGER" \
	2> "$TB_OUT/mon.err" &
MON_PID=$!
for _ in $(seq 1 1200); do
	grep -q 'metrics at' "$TB_OUT/mon.err" && break
	kill -0 $MON_PID 2>/dev/null || break
	sleep 0.1
done
grep -q 'metrics at' "$TB_OUT/mon.err" || { cat "$TB_OUT/mon.err" >&2; tb_fail "monitor did not start"; }
# who it runs as once attached (--user's default), and its capabilities
tb_res mon_uid "$(awk '/^Uid:/ { print $2 "," $3 }' "/proc/$MON_PID/status")"
tb_res mon_capeff "$(awk '/^CapEff:/ { print $2 }' "/proc/$MON_PID/status")"

PROM_PID=
if command -v prometheus > /dev/null; then
	mkdir -p "$TB_WORK/prom"
	cat > "$TB_WORK/prom.yml" <<-EOC
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
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

# monitor's page every second while fio runs, until the flag file says stop
(
	n=0
	while [ ! -e "$TB_WORK/scraper-stop" ]; do
		read -r t0 _ < /proc/uptime
		if curl -sf "http://127.0.0.1:$PORT/metrics" > "$TB_OUT/scrape-$n.txt.tmp"; then
			read -r t1 _ < /proc/uptime
			echo "${t0/./}0000000 ${t1/./}0000000" > "$TB_OUT/scrape-$n.time"
			mv "$TB_OUT/scrape-$n.txt.tmp" "$TB_OUT/scrape-$n.txt"
		fi
		n=$((n + 1))
		sleep 1
	done
) &
SCRAPER=$!
# SIGUSR2 once monitor has counted the first of fio's commands
(
	for _ in $(seq 1 1200); do
		curl -sf "http://127.0.0.1:$PORT/metrics" |
			grep -q '^ntprof_stage_seconds_count{role="target",stage="storage"' && break
		sleep 0.1
	done
	if kill -USR2 $MON_PID; then tb_res usr2 sent; else tb_res usr2 "kill failed"; fi
) &
SIGNALLER=$!
tb_fio randread4k --rw=randread --bs=4k --size=16M --iodepth=8
tb_res fio_ios "$TB_FIO_IOS"
# the dashboard's and rules' rates are asked for at the end of fio's run (and
# 2 s, two more scrapes): the snapshots below take longer than their window
FIO_END=$(date +%s.%N | awk '{ printf "%.3f\n", $1 + 2 }')
touch "$TB_WORK/scraper-stop"
wait $SCRAPER
wait $SIGNALLER
tb_res post_code "$(curl -s -X POST -o "$TB_OUT/post.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/snapshot")"
tb_res get_code "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/snapshot")"
# snapshots are written one after another: POST's is the last
POSTED=$(basename "$(cat "$TB_OUT/post.txt")")
for _ in $(seq 1 1200); do
	grep -q "flight snapshot .*/$POSTED written" "$TB_OUT/mon.err" && break
	sleep 0.1
done
tb_res flight_written "$(grep -c 'flight snapshot .* written' "$TB_OUT/mon.err")"
tb_res flight_owner "$(stat -c %U "$FLIGHT")"
ls -A "$FLIGHT" > "$TB_OUT/flight-ls.txt"
mkdir -p "$TB_OUT/flight"
cp "$FLIGHT"/*.ntp "$TB_OUT/flight/" 2>/dev/null || tb_log "no snapshot in $FLIGHT"
cp "$FLIGHT/.flight-window" "$TB_OUT/flight-window" 2>/dev/null || tb_log "no window file in $FLIGHT"
tb_res scrapes "$(find "$TB_OUT" -maxdepth 1 -name "scrape-*.txt" | wc -l)"
curl -sf "http://127.0.0.1:$PORT/metrics" > "$TB_OUT/final.txt" || tb_log "final scrape failed"

prom_query() {
	curl -sf --get http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$2" \
		> "$TB_OUT/prom-$1.json" || tb_log "query $1 failed"
}

if [ "$(sed -n 's/^prom=//p' "$TB_OUT/result.env")" = yes ]; then
	# until Prometheus holds a scrape of every command fio issued
	q='sum(ntprof_stage_seconds_count{role="target",stage="storage"})'
	for _ in $(seq 1 60); do
		prom_query count "$q"
		grep -q "\"$TB_FIO_IOS\"" "$TB_OUT/prom-count.json" && break
		sleep 1
	done
	prom_query mean 'sum(ntprof_stage_seconds_sum{role="target",stage="storage"}) / sum(ntprof_stage_seconds_count{role="target",stage="storage"})'
	prom_query p50 'histogram_quantile(0.5, sum by (le) (ntprof_stage_seconds_bucket{role="target",stage="storage"}))'
	prom_query p99 'histogram_quantile(0.99, sum by (le) (ntprof_stage_seconds_bucket{role="target",stage="storage"}))'
	prom_query up 'up{job="ntprof"}'
	# every expression of the dashboard and the rules, and each recorded series
	# (tests/integration/promql.py lists them, read from the files, and asks
	# them in one process), at the end of fio's run
	/usr/bin/python3 "$TB_REPO/tests/integration/promql.py" > "$TB_OUT/promql.jsonl" ||
		tb_log "promql.py failed"
	/usr/bin/python3 "$TB_REPO/tests/integration/promql.py" --query http://127.0.0.1:9090 \
		"$FIO_END" "$TB_OUT" || tb_log "promql.py --query failed"
	kill $PROM_PID
	wait $PROM_PID
fi

kill -TERM $MON_PID
wait $MON_PID
tb_res mon_rc $?
cat "$TB_OUT/mon.err" >&2

# restarted on the same directory: the window read back from its file, in its first snapshot
"$NTPROF" monitor -r both -s 1 --listen 127.0.0.1:$PORT "${FLIGHT_ARGS[@]}" 2> "$TB_OUT/mon2.err" &
MON_PID=$!
for _ in $(seq 1 1200); do
	grep -q 'metrics at' "$TB_OUT/mon2.err" && break
	kill -0 $MON_PID 2>/dev/null || break
	sleep 0.1
done
tb_res read_back "$(sed -n 's/.*window file .*, \([0-9]*\) commands read back/\1/p' "$TB_OUT/mon2.err")"
RESTART=$(basename "$(curl -s -X POST "http://127.0.0.1:$PORT/snapshot")")
for _ in $(seq 1 1200); do
	grep -q "flight snapshot .*/$RESTART written" "$TB_OUT/mon2.err" && break
	sleep 0.1
done
cp "$FLIGHT/$RESTART" "$TB_OUT/restart.ntp" 2>/dev/null || tb_log "no snapshot after the restart"
kill -TERM $MON_PID
wait $MON_PID
tb_res mon2_rc $?
cat "$TB_OUT/mon2.err" >&2
tb_record_stop rec
tb_collect rec
tb_res done 1
