#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How fast, and in how much memory, does `ntprof report` summarize a large
# recording?  Generates a recording of ROWS sampled commands (default 10
# million) with the sqlite3 CLI (a recursive CTE, seconds instead of minutes
# in Python), then times `ntprof report` with /usr/bin/time -v (wall clock,
# peak RSS) and, as the reference, the same per-group summary computed by a
# plain sqlite3 query (window functions for the nearest-rank percentiles).
# Prints both, and whether their numbers agree.  Asserts nothing about time:
# the figures depend on the machine (bench/README.md).
#
#   bench/bench_report.sh [BUILD_DIR]
#   ROWS=1000000: fewer commands; KEEP=1: keep the generated recording;
#   RECORDING=FILE: time an existing recording instead of generating one
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
NTPROF=${NTPROF:-$BUILD/ntprof}
ROWS=${ROWS:-10000000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench-report.XXXXXX")
FILE=${RECORDING:-$DIR/big.ntp}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$DIR"' EXIT

for tool in sqlite3 jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench_report: needs $tool" >&2; exit 1; }
done
[ -x "$NTPROF" ] || { echo "bench_report: no $NTPROF (make first)" >&2; exit 1; }

generate() {
	echo "== generating $ROWS commands into $FILE"
	gen_start=$(date +%s.%N)
# Latencies are a deterministic hash of the row number: 12 groups (read, write
# and flush; 4 KiB and 128 KiB; two namespaces), a quarter of the large writes
# with an R2T round trip.  Times in ns; 8 s of recording at 1/1000.
{
	cat schema/ntp.sql
	cat <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO meta VALUES ('role', 'host'), ('transport', 'tcp'), ('sample_one_in', 1000),
  ('hash_version', 1), ('kernel_release', 'bench'), ('hostname', 'bench'),
  ('start_ns', 1000000000), ('stop_ns', 9000000000), ('start_realtime_ns', 1704067200000000000),
  ('ntprof_version', 'bench_report.sh');
INSERT INTO hooks VALUES ('host', 'h_start', 'block_bio_queue', 'raw_tp', ''),
  ('host', 'h_queue', 'nvme_setup_cmd', 'raw_tp', ''),
  ('host', 'h_recv', 'nvme_tcp_recv_pdu', 'fentry', ''),
  ('host', 'h_done', 'nvme_complete_rq', 'raw_tp', '');
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8)
INSERT INTO intervals SELECT 1000000000 + i * 1000000000, 'host',
  $ROWS * 1000 / 8, $ROWS / 8, 0, 0 FROM k;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $ROWS),
h AS (SELECT i, (i * 2654435761) % 4294967296 AS x, (i * 40503 + 12345) % 65536 AS y FROM c),
t AS (SELECT i, x, y,
        1000000000 + i * (8000000000 / $ROWS) AS s,       -- h_start
        1000 + x % 9000 AS blk,
        2000 + y % 6000 AS sub,
        20000 + (x / 7) % 80000 + (CASE WHEN y % 100 = 0 THEN 500000 ELSE 0 END) AS wire,
        1000 + (x / 13) % 3000 AS cpl,
        CASE i % 3 WHEN 0 THEN 2 WHEN 1 THEN 1 ELSE 0 END AS op,
        CASE (i / 3) % 2 WHEN 0 THEN 4096 ELSE 131072 END AS bytes,
        'nvme' || ((i / 6) % 2) || 'n1' AS ns
      FROM h),
u AS (SELECT *, (op = 1 AND bytes = 131072 AND y % 4 = 0) AS r2t FROM t)
INSERT INTO host_io (id, h_start_ns, h_queue_ns, h_cmd_sent_ns, h_r2t_ns, h_data_sent_ns,
  h_recv_ns, h_done_ns, opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, controller,
  namespace, path, status, flags)
SELECT i, s, s + blk, s + blk + sub,
  CASE WHEN r2t THEN s + blk + sub + 15000 END,
  CASE WHEN r2t THEN s + blk + sub + 15000 + 800 END,
  s + blk + sub + wire + (CASE WHEN r2t THEN 15800 ELSE 0 END),
  s + blk + sub + wire + (CASE WHEN r2t THEN 15800 ELSE 0 END) + cpl,
  op, i % 65536, x, bytes / 512, bytes, 1 + i % 4, 1, 1, substr(ns, 1, 5), ns, ns, 0,
  CASE WHEN r2t THEN 4 ELSE 0 END
FROM u;
COMMIT;
EOF
} | sqlite3 "$FILE" >/dev/null
	gen_end=$(date +%s.%N)
	awk -v a="$gen_start" -v b="$gen_end" -v s="$(stat -c %s "$FILE")" \
		'BEGIN { printf "   %.1f s, %.0f MB\n", b - a, s / 1e6 }'
}
if [ -n "${RECORDING:-}" ]; then
	ROWS=$(sqlite3 -readonly "$FILE" 'SELECT count(*) FROM host_io')
	echo "== $FILE: $ROWS commands"
else
	generate
fi

# "wall seconds, CPU seconds, peak RSS MB" from /usr/bin/time -v's report in $1
# (CPU time too: on a busy machine the wall clock says little)
figures() {
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
			for (k = 1; k <= n; k++) s = s * 60 + t[k]; wall = s }
		/User time|System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END { printf "%.2f s wall, %.2f s CPU, %.0f MB peak RSS", wall, cpu, rss }' "$1"
}

echo "== ntprof report (text and JSON)"
/usr/bin/time -v -o "$DIR/time.ntprof" "$NTPROF" report -j "$DIR/report.json" "$FILE" > "$DIR/report.txt"
echo "   $(figures "$DIR/time.ntprof")"

echo "== reference: the same summary from one sqlite3 query"
cat > "$DIR/ref.sql" <<'EOF'
.mode list
.separator " "
WITH r AS (
  SELECT io_type, bytes, namespace, e2e_ns,
         ROW_NUMBER() OVER w AS rk, COUNT(*) OVER (PARTITION BY io_type, bytes, namespace) AS n
  FROM host_stages
  WINDOW w AS (PARTITION BY io_type, bytes, namespace ORDER BY e2e_ns))
SELECT io_type, bytes, namespace, n, MIN(e2e_ns), CAST(round(avg(e2e_ns)) AS INTEGER),
       MAX(CASE WHEN rk = (n * 50 + 99) / 100 THEN e2e_ns END),
       MAX(CASE WHEN rk = (n * 90 + 99) / 100 THEN e2e_ns END),
       MAX(CASE WHEN rk = (n * 99 + 99) / 100 THEN e2e_ns END),
       MAX(CASE WHEN rk = (n * 999 + 999) / 1000 THEN e2e_ns END),
       MAX(e2e_ns)
FROM r GROUP BY io_type, bytes, namespace
ORDER BY namespace, CASE io_type WHEN 'read' THEN 0 WHEN 'write' THEN 1 ELSE 2 END, bytes;
EOF
/usr/bin/time -v -o "$DIR/time.sqlite" sqlite3 -readonly "$FILE" < "$DIR/ref.sql" > "$DIR/ref.txt"
echo "   $(figures "$DIR/time.sqlite")"

jq -r '.groups[] | [.io_type, .bytes, .namespace, .n, .e2e.min_ns, .e2e.mean_ns, .e2e.p50_ns,
	.e2e.p90_ns, .e2e.p99_ns, .e2e.p99_9_ns, .e2e.max_ns] | map(tostring) | join(" ")' \
	"$DIR/report.json" > "$DIR/ntprof.txt"

echo
echo "== end-to-end per group, ns: io_type bytes namespace n min mean p50 p90 p99 p99.9 max"
echo "-- ntprof report"
cat "$DIR/ntprof.txt"
echo "-- sqlite3"
cat "$DIR/ref.txt"
if cmp -s "$DIR/ntprof.txt" "$DIR/ref.txt"; then
	echo "== the numbers agree"
else
	echo "== the numbers DIFFER:"
	diff "$DIR/ntprof.txt" "$DIR/ref.txt" || true
	exit 1
fi
echo
echo "== ntprof's text report"
cat "$DIR/report.txt"
echo
printf 'summary: %s commands: ntprof report %s; sqlite3 reference %s\n' "$ROWS" \
	"$(figures "$DIR/time.ntprof")" "$(figures "$DIR/time.sqlite")"
