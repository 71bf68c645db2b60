#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two ntprof builds timed in turn on one command: A B A B ..., ROUNDS times
# each (default 9), and the median elapsed and CPU (user + system) time of
# each, with each round's ratio B / A as their median [smallest, largest].
# On a shared machine only runs in turn tell two builds apart, and CPU time
# says more than elapsed time (bench/README.md).  Asserts nothing.  The
# command's output goes to /dev/null; a run that fails stops the script.
#
#   bench/ab.sh A_NTPROF B_NTPROF -- report big.ntp
#   ROUNDS=15 bench/ab.sh old/ntprof build/ntprof -- dump -o /dev/null big.ntp
set -euo pipefail

[ $# -ge 4 ] && [ "$3" = "--" ] || {
	echo "usage: bench/ab.sh A_NTPROF B_NTPROF -- ARGS..." >&2
	exit 2
}
A=$1 B=$2
shift 3
ROUNDS=${ROUNDS:-9}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-ab.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# one run: "elapsed cpu" appended to $DIR/$1
one() {
	local which=$1 bin=$2
	shift 2
	/usr/bin/time -f "%e %U %S" -o "$DIR/t" "$bin" "$@" >/dev/null 2>"$DIR/err" || {
		echo "bench/ab.sh: $bin $*: failed:" >&2
		cat "$DIR/err" >&2
		exit 1
	}
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$DIR/t" >> "$DIR/$which"
}

# the first run of each reads the file into the page cache: untimed
"$A" "$@" >/dev/null 2>&1 || true
"$B" "$@" >/dev/null 2>&1 || true
for ((i = 0; i < ROUNDS; i++)); do
	one a "$A" "$@"
	one b "$B" "$@"
done

paste "$DIR/a" "$DIR/b" | awk -v n="$ROUNDS" '
function median(v, k,   t, i, j) {
	for (i = 1; i <= k; i++) t[i] = v[i]
	for (i = 2; i <= k; i++) for (j = i; j > 1 && t[j - 1] > t[j]; j--) {
		x = t[j]; t[j] = t[j - 1]; t[j - 1] = x
	}
	return k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
}
function range(v, k,   i, lo, hi) {
	lo = hi = v[1]
	for (i = 2; i <= k; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
	return sprintf("[%.2f, %.2f]", lo, hi)
}
{ ae[NR] = $1; ac[NR] = $2; be[NR] = $3; bc[NR] = $4
  re[NR] = $1 > 0 ? $3 / $1 : 1; rc[NR] = $2 > 0 ? $4 / $2 : 1 }
END {
	printf "%d rounds, A B in turn: median elapsed s, median CPU s (user + system)\n", n
	printf "A  %.3f  %.3f\n", median(ae, n), median(ac, n)
	printf "B  %.3f  %.3f\n", median(be, n), median(bc, n)
	printf "B/A per round: elapsed %.2f %s, CPU %.2f %s\n", median(re, n), range(re, n),
	       median(rc, n), range(rc, n)
}'
