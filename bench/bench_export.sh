#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How fast, and in how much memory, does `ntprof export` write a Perfetto
# trace of a large recording?  Generates a host recording of ROWS sampled
# commands (default 10 million; tests/integration/ntpgen.py's bulk generator,
# a recursive CTE inside SQLite) and times `ntprof export` with
# /usr/bin/time (wall clock, peak RSS).  The trace goes to /dev/null unless
# KEEP=1 (then beside the recording, in TMPDIR): at about 370 bytes per
# command a 10 M trace takes 3.7 GB.  Asserts nothing about time
# (bench/README.md); fails only when export does.
#
#   bench/bench_export.sh [BUILD_DIR]
#   ROWS=1000000: fewer commands; KEEP=1: keep the recording and the trace
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
NTPROF=${NTPROF:-$BUILD/ntprof}
ROWS=${ROWS:-10000000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench-export.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$DIR"' EXIT
[ -x "$NTPROF" ] || { echo "bench_export: no $NTPROF (make first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_export: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

echo "== generating $ROWS host commands into $DIR/big.ntp"
/usr/bin/python3 - "$DIR/big.ntp" "$ROWS" <<'PY'
import sys
sys.path.insert(0, "tests/integration")
import ntpgen
ntpgen.generate_bulk(sys.argv[1], int(sys.argv[2]))
PY
out=/dev/null
[ -z "${KEEP:-}" ] || out=$DIR/big.pftrace
echo "== ntprof export -o $out ($(du -h "$DIR/big.ntp" | cut -f1) recording)"
/usr/bin/time -f "%e %M" -o "$DIR/time" "$NTPROF" export -o "$out" "$DIR/big.ntp"
read -r wall rss < "$DIR/time"
awk -v w="$wall" -v r="$rss" -v n="$ROWS" 'BEGIN {
	printf "   wall %.1f s (%.2f us per command), peak RSS %.1f MB\n", w, w * 1e6 / n, r / 1024 }'
[ -z "${KEEP:-}" ] || awk -v b="$(stat -c %s "$out")" -v n="$ROWS" \
	'BEGIN { printf "   trace %.0f MB, %.0f bytes per command\n", b / 1048576, b / n }'
