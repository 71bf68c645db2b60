#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does joining cost next to reading the host recording alone?  Builds
# host/target pairs with bench/join_pair.py (two clocks 1.23 s apart, 20
# ppm of drift; every command joins) and times, side by side and in turn
# (host-only, joined, host-only, joined, ...), `ntprof report HOST` and
# `ntprof report HOST TARGET` with /usr/bin/time: median wall clock, CPU
# time and peak RSS of ROUNDS runs each, and the ratios joined / host-only:
# the wall clock's of each round's two runs, paired (their median, and the
# smallest and largest: a shared machine's speed moves between rounds, and
# a ratio of two medians taken minutes apart moves with it), the memory's
# of the medians.
# Each pair is written back (sync) and reported once each way, untimed,
# before the rounds.
# Also checks that the joined report matched every command.  Asserts
# nothing about time: the figures depend on the machine (bench/README.md).
#
#   bench/bench_join.sh [BUILD_DIR]
#   SIZES="1000000 10000000"  commands per side of the rare-key pairs (default 1000000)
#   HEAVY="1000000"           the same with ntpgen's heavily reused keys ("" for none)
#   NOKEY="1000000"           rare keys, recordings without join_key (as made before it:
#                             the join computes the keys from seven columns; "" for none)
#   ROUNDS=5                  runs of each command
#   OLD=path/to/ntprof        also time another build's joined report (one run, TIMEOUT s)
#   KEEP=1                    keep the pairs (in $TMPDIR/ntprof-bench-join.*)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
NTPROF=${NTPROF:-$BUILD/ntprof}
SIZES=${SIZES:-1000000}
HEAVY=${HEAVY-1000000}
NOKEY=${NOKEY-1000000}
ROUNDS=${ROUNDS:-5}
TIMEOUT=${TIMEOUT:-600}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench-join.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$DIR"' EXIT

for tool in python3 /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench_join: needs $tool" >&2; exit 1; }
done
[ -x "$NTPROF" ] || { echo "bench_join: no $NTPROF (make first)" >&2; exit 1; }

# one run: "wall cpu peak_kb" on stdout
timed() {
	local t="$DIR/time.$$"

	/usr/bin/time -o "$t" -f "%e %U %S %M" timeout "$TIMEOUT" "$@" >/dev/null 2>&1 || {
		echo "bench_join: failed: $*" >&2
		return 1
	}
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$t"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# the share of host commands the joined report matched, in percent
matched_pct() {
	"$NTPROF" report -j - "$@" | python3 -c \
		'import json, sys; print("%.2f" % json.load(sys.stdin)["join"]["matched_pct"])'
}

printf '%-22s %10s %8s %8s | %10s %8s %8s | %-19s %6s %8s\n' pair "host wall" cpu MB \
	"join wall" cpu MB "wall× [min, max]" mem× matched
row() {
	local name=$1 host=$2 target=$3 hw=() hc=() hm=() jw=() jc=() jm=() rw=() r w c m h

	for ((r = 0; r < ROUNDS; r++)); do
		read -r w c m < <(timed "$NTPROF" report "$host")
		hw+=("$w"); hc+=("$c"); hm+=("$m"); h=$w
		read -r w c m < <(timed "$NTPROF" report "$host" "$target")
		jw+=("$w"); jc+=("$c"); jm+=("$m")
		rw+=("$(awk -v j="$w" -v h="$h" 'BEGIN { printf "%.4f", (h > 0 ? j / h : 0) }')")
	done
	local HW HC HM JW JC JM RW RLO RHI
	HW=$(printf '%s\n' "${hw[@]}" | median); HC=$(printf '%s\n' "${hc[@]}" | median)
	HM=$(printf '%s\n' "${hm[@]}" | median); JW=$(printf '%s\n' "${jw[@]}" | median)
	JC=$(printf '%s\n' "${jc[@]}" | median); JM=$(printf '%s\n' "${jm[@]}" | median)
	RW=$(printf '%s\n' "${rw[@]}" | median)
	RLO=$(printf '%s\n' "${rw[@]}" | sort -n | head -1)
	RHI=$(printf '%s\n' "${rw[@]}" | sort -n | tail -1)
	awk -v n="$name" -v hw="$HW" -v hc="$HC" -v hm="$HM" -v jw="$JW" -v jc="$JC" -v jm="$JM" \
		-v rw="$RW" -v rlo="$RLO" -v rhi="$RHI" \
		-v pct="$(matched_pct "$host" "$target")%" 'BEGIN {
		printf "%-22s %9.2fs %7.2fs %8.0f | %9.2fs %7.2fs %8.0f | %5.2fx [%4.2f, %4.2f] %5.2fx %8s\n",
			n, hw, hc, hm / 1024, jw, jc, jm / 1024, rw, rlo, rhi, jm / hm, pct }'
	if [ -n "${OLD:-}" ]; then
		if read -r w c m < <(timed "$OLD" report "$host" "$target"); then
			awk -v n="$name" -v w="$w" -v c="$c" -v m="$m" 'BEGIN {
				printf "%-22s %31s | %9.2fs %7.2fs %8.0f |   (OLD, one run)\n",
					n, "", w, c, m / 1024 }'
		else
			printf '%-22s %31s | %s\n' "$name" "" "OLD: failed or over ${TIMEOUT} s"
		fi
	fi
}

pair() {
	local n=$1 reuse=$2 key=${3-} h="$DIR/h-$2-$1${3-}.ntp" t="$DIR/t-$2-$1${3-}.ntp"

	python3 bench/join_pair.py "$h" "$t" "$n" --reuse "$reuse" $key >&2
	# the new files written back first, and read once each way: the rounds time the reports,
	# not the kernel's writeback of a gigabyte or two, nor the first reading of a file
	sync
	timed "$NTPROF" report "$h" >/dev/null
	timed "$NTPROF" report "$h" "$t" >/dev/null
	row "$n $reuse${key:+ no key}" "$h" "$t"
	[ -n "${KEEP:-}" ] || rm -f "$h" "$t"
}

for n in $SIZES; do
	pair "$n" rare
done
for n in $HEAVY; do
	pair "$n" heavy
done
for n in $NOKEY; do
	pair "$n" rare --no-key
done
