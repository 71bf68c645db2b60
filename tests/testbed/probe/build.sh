#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh - build the test bed's BPF probe (count_calls) on the host.
#
#   tests/testbed/probe/build.sh [OUTDIR]     (default: <repo>/build/testbed/probe)
#
# Must run BEFORE a guest boots: the guest sees the host root over 9p with
# cache=loose, so files changed while it runs may not show. Rebuilds only when
# a source is newer; concurrent runs are serialized. Prints the loader's path.
set -euo pipefail

SRC=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SRC/../../.." && pwd)
OUT=${1:-$REPO/build/testbed/probe}
CLANG=${CLANG:-clang}
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
ARCH=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9
if [ -x "$OUT/count_calls" ] &&
   [ "$OUT/count_calls" -nt "$SRC/count_calls.c" ] &&
   [ "$OUT/count_calls" -nt "$SRC/count_calls.bpf.c" ] &&
   [ "$OUT/count_calls" -nt "$0" ]; then
	echo "$OUT/count_calls"
	exit 0
fi

# the system include dirs clang needs for BPF (asm/types.h), as the Makefile does
sys_includes=$($CLANG -v -E - </dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
tmp=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # sys_includes is a list of words
$CLANG -g -O2 -target bpf -D__TARGET_ARCH_$ARCH $sys_includes -Wall -Werror \
	-c "$SRC/count_calls.bpf.c" -o "$tmp/count_calls.bpf.o"
"$BPFTOOL" gen skeleton "$tmp/count_calls.bpf.o" name count_calls_bpf > "$tmp/count_calls.skel.h"
${CC:-gcc} -O2 -g -std=gnu11 -Wall -Wextra -Werror -I"$tmp" \
	"$SRC/count_calls.c" -lbpf -o "$tmp/count_calls"
mv "$tmp/count_calls.bpf.o" "$tmp/count_calls.skel.h" "$OUT/"
mv "$tmp/count_calls" "$OUT/count_calls"
echo "$OUT/count_calls"
