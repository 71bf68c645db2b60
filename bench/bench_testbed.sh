#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does `ntprof record` cost on an NVMe/TCP host?  Boots the test bed
# (tests/testbed/run.sh: QEMU, loopback NVMe/TCP on null_blk) once per guest
# kernel and runs bench/guest/testbed.sh there:
#   - the BPF cost per command of each of ntprof's programs, from the kernel's
#     BPF statistics, with -s 1000 and -s 1, as ratios to empty programs on
#     the same hooks;
#   - fio IOPS bare, under record -s 1000, record -s 1, blktrace and an
#     equivalent bpftrace script, in interleaved rounds, as ratios to bare.
# Prints the tables.  Asserts nothing about time: under TCG (no KVM) kernel
# work is exaggerated, so only the ratios mean something (bench/README.md).
# Needs root, QEMU and the test bed's cache (tests/testbed/setup.sh, run by
# run.sh when missing).  Results of a run: bench/testbed-results.md.
#
#   bench/bench_testbed.sh [BUILD_DIR]
#       KERNELS="6.1 6.12"  guest kernels       PARTS="bpf fio"  what to measure
#       ROUNDS=3  RUNTIME=5 (fio seconds per run)  TIMEOUT=900 (per boot)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
NTPROF=$(readlink -f "${NTPROF:-$BUILD/ntprof}")
KERNELS=${KERNELS:-6.1 6.12}
PARTS=${PARTS:-bpf fio}
TIMEOUT=${TIMEOUT:-900}

[ -x "$NTPROF" ] || { echo "bench_testbed: no $NTPROF (make first)" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
	echo "bench_testbed: skipped: needs root (QEMU exports /, nvmet needs modules)"
	exit 0
fi
for tool in qemu-system-x86_64 bpftrace bpftool blktrace fio jq; do
	command -v "$tool" >/dev/null || { echo "bench_testbed: needs $tool" >&2; exit 1; }
done

OUT=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench-testbed.XXXXXX")
accel=TCG
[ -w /dev/kvm ] && accel=KVM
echo "== ntprof record cost in the test bed ($accel, $(nproc) host CPUs): $(date -u +%Y-%m-%dT%H:%MZ)"
echo "   $NTPROF ($("$NTPROF" version 2>/dev/null | head -n 1))"
rc=0
for k in $KERNELS; do
	echo
	echo "== guest kernel $k (output in $OUT/$k)"
	# shellcheck disable=SC2086 # PARTS is a list of words
	if tests/testbed/run.sh --kernel "$k" --timeout "$TIMEOUT" --out "$OUT/$k" \
		--env NTPROF="$NTPROF" --env ROUNDS="${ROUNDS:-3}" --env RUNTIME="${RUNTIME:-5}" \
		bench/guest/testbed.sh $PARTS; then
		cat "$OUT/$k/bench.txt"
	else
		echo "bench_testbed: the guest run for kernel $k failed:" >&2
		sed -n 's/^fail_reason=/  /p' "$OUT/$k/result.env" >&2 || true
		rc=1
	fi
done
exit "$rc"
