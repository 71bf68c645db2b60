#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every benchmark and print its figures: each built bench program
# (OUTDIR/bench/bench_*, from bench/bench_*.c) and each bench/bench_*.sh
# script (called with OUTDIR).  Benchmarks assert nothing about time; this
# exits non-zero only when one of them fails to run.  See bench/README.md.
#
#   bench/run.sh OUTDIR        (make bench: OUTDIR is the build directory)
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 1
OUTDIR=$(cd "$1" 2>/dev/null && pwd) || { echo "bench: no directory $1 (make first)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

echo "# ntprof benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -n), $(uname -r)"
echo "# cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) online"
echo "# scratch files in $WORK ($(df -h --output=fstype,avail "$WORK" | tail -1 | xargs))"

failed=()
ran=0
run() {
	local name=$1 start end rc
	shift
	echo
	echo "== $name"
	start=$(date +%s.%N)
	"$@"
	rc=$?
	end=$(date +%s.%N)
	ran=$((ran + 1))
	awk -v a="$start" -v b="$end" -v n="$name" -v rc=$rc \
		'BEGIN { printf "== %s: exit %d, %.1f s\n", n, rc, b - a }'
	[ $rc -eq 0 ] || failed+=("$name")
}

for bin in "$OUTDIR"/bench/bench_*; do
	# built programs only: skip the compiler's dependency files
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	case $bin in *.d | *.o) continue ;; esac
	name=$(basename "$bin")
	mkdir -p "$WORK/$name"
	run "$name" bash -c 'cd "$1" && exec "$2"' _ "$WORK/$name" "$bin"
done

for script in bench/bench_*.sh; do
	[ -f "$script" ] || continue
	TMPDIR=$WORK run "$(basename "$script")" bash "$script" "$OUTDIR"
done

echo
if [ $ran -eq 0 ]; then
	echo "# no benchmarks found: build them first (make bench)" >&2
	exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "# $ran benchmarks, failed: ${failed[*]}" >&2
	exit 1
fi
echo "# $ran benchmarks ran"
