#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - `make demo`: from a fresh Debian 12 machine, prepare the test bed,
# boot a guest, create a loopback NVMe/TCP namespace, run fio on it, and when
# ntprof is built run that fio under `ntprof record` and print `ntprof report`.
#
#   tests/testbed/demo.sh [--kernel 6.1|6.12] [--out DIR] [--native]
#
# Needs root and network access to the Debian mirror on the first run (packages,
# the kernel package); later runs use the cache (tests/testbed/README.md).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KERNEL=${DEMO_KERNEL:-6.1}
OUT=
NATIVE=()

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--native) NATIVE=(--native); shift ;;
	*) sed -n 's/^#   tests/tests/p' "$0" >&2; exit 2 ;;
	esac
done

t0=$SECONDS
[ ${#NATIVE[@]} -gt 0 ] || "$HERE/setup.sh" --kernel "$KERNEL"
# `make demo` has built everything already; run directly, build here
[ -n "${MAKELEVEL:-}" ] || make -C "$REPO" -s
t1=$SECONDS
echo "demo: setup and build took $((t1 - t0)) s; booting the $KERNEL guest (under TCG this is slow: timings are not performance data)"
"$HERE/run.sh" -v --kernel "$KERNEL" --timeout 300 ${OUT:+--out "$OUT"} "${NATIVE[@]}" \
	"$HERE/guest/demo.sh"
echo "demo: done in $((SECONDS - t0)) s"
