#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does `ntprof record` cost on an NVMe/TCP or NVMe/RDMA host?  Boots the
# test bed (tests/testbed/run.sh: QEMU, null_blk exported by nvmet over
# loopback NVMe/TCP, or over NVMe/RDMA on soft-RoCE) once per guest kernel and
# transport, and runs bench/guest/testbed.sh there:
#   - the BPF cost per command of each of ntprof's programs, from the kernel's
#     BPF statistics, with -s 1000 and -s 1, as ratios to empty programs on
#     the same hooks;
#   - fio IOPS bare, under record -s 1000, record -s 1, blktrace and an
#     equivalent bpftrace script, in interleaved rounds, as ratios to bare.
# Prints the tables.  Asserts nothing about time: under TCG (no KVM) kernel
# work is exaggerated, so only the ratios mean something (bench/README.md).
# By default the guests are instruction-counted (run.sh --icount): one guest
# ns is one guest instruction, and every figure repeats from run to run
# whatever else the build machine runs.  ICOUNT=0 boots ordinary TCG (or KVM).
# Needs root, QEMU and the test bed's cache (tests/testbed/setup.sh, run by
# run.sh when missing).  The latest figures: bench/README.md.
#
#   bench/bench_testbed.sh [BUILD_DIR]
#       KERNELS="6.1 6.12"  guest kernels       PARTS="bpf fio"  what to measure
#         (and hooks: empty tp_btf against empty fentry programs, bench/hooks;
#         least: the least work a recorder of every command does on ntprof's
#         hooks, bench/hooks/least_work, with the fio config least)
#       TRANSPORTS="tcp rdma"  record -t and the fixture (tb_loop_tcp/_rdma)
#       ROUNDS=2  RUNTIME=3 (fio seconds per run)  TIMEOUT=1800 (per boot)
#       ICOUNT=1 (0: wall-clock TCG)  NTPROF_BASE=path (a second build, e.g.
#       before a change, measured beside NTPROF in the same boot)
#       FIO_CONFIGS, FIO_TIMEOUT (see bench/guest/testbed.sh)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-build}
NTPROF=$(readlink -f "${NTPROF:-$BUILD/ntprof}")
KERNELS=${KERNELS:-6.1 6.12}
PARTS=${PARTS:-bpf fio}
TRANSPORTS=${TRANSPORTS:-tcp rdma}
TIMEOUT=${TIMEOUT:-1800}
ICOUNT=${ICOUNT:-1}
NTPROF_BASE=${NTPROF_BASE:+$(readlink -f "$NTPROF_BASE")}

[ -x "$NTPROF" ] || { echo "bench_testbed: no $NTPROF (make first)" >&2; exit 1; }
for t in $TRANSPORTS; do
	case "$t" in
	tcp | rdma) ;;
	*) echo "bench_testbed: unknown transport '$t' in TRANSPORTS (tcp, rdma)" >&2; exit 1 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "bench_testbed: skipped: needs root (QEMU exports /, nvmet needs modules)"
	exit 0
fi
for tool in qemu-system-x86_64 bpftrace bpftool blktrace fio jq; do
	command -v "$tool" >/dev/null || { echo "bench_testbed: needs $tool" >&2; exit 1; }
done

# the empty fentry and tp_btf programs of the hooks part and hooks-* configs
# (bench/hooks), built beside the build's other benchmarks
EMPTY_HOOKS=$(readlink -f "$BUILD")/bench/empty_hooks
mkdir -p "${EMPTY_HOOKS%/*}"
if ! clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"/usr/include/$(gcc -dumpmachine)" \
	-c bench/hooks/empty_hooks.bpf.c -o "$EMPTY_HOOKS.bpf.o" ||
	! cc -O2 -Wall -Wextra -Werror bench/hooks/empty_hooks.c -lbpf -o "$EMPTY_HOOKS"; then
	echo "bench_testbed: cannot build bench/hooks/empty_hooks" >&2
	exit 1
fi
# the least work's programs (CO-RE, the collectors' bpf/vmlinux.h) and their loader
LEAST_WORK=${EMPTY_HOOKS%/*}/least_work
if ! clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"/usr/include/$(gcc -dumpmachine)" -Ibpf \
	-c bench/hooks/least_work.bpf.c -o "$LEAST_WORK.bpf.o" ||
	! cc -O2 -Wall -Wextra -Werror -Ibpf bench/hooks/least_work.c -lbpf -o "$LEAST_WORK"; then
	echo "bench_testbed: cannot build bench/hooks/least_work" >&2
	exit 1
fi

OUT=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-bench-testbed.XXXXXX")
# the accelerator every boot below gets (tests/testbed/accel.sh: KVM only when
# a guest boots on it); the first kernel stands for all
k1=${KERNELS%% *}
tests/testbed/setup.sh --kernel "$k1" >/dev/null || { echo "bench_testbed: setup.sh --kernel $k1 failed" >&2; exit 1; }
accel=$(NTPROF_TB_ICOUNT=$ICOUNT tests/testbed/accel.sh --kernel "$k1") || exit 1
accel=${accel^^}
[ "$ICOUNT" = 1 ] && accel+=" -icount shift=0,sleep=off: 1 guest ns = 1 guest instruction"
echo "== ntprof record cost in the test bed ($accel, $(nproc) host CPUs): $(date -u +%Y-%m-%dT%H:%MZ)"
echo "   $NTPROF ($("$NTPROF" version 2>/dev/null | head -n 1))"
[ -z "$NTPROF_BASE" ] || echo "   base: $NTPROF_BASE ($("$NTPROF_BASE" version 2>/dev/null | head -n 1))"
echo "   load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
sampler=
trap '[ -z "$sampler" ] || kill "$sampler" 2>/dev/null' EXIT
for k in $KERNELS; do
	for t in $TRANSPORTS; do
		echo
		echo "== guest kernel $k, NVMe/$t (output in $OUT/$k-$t)"
		# the build machine's 1-minute load average every 10 s of the boot:
		# other guests and builds share its CPUs with this one's vCPUs
		while sleep 10; do cut -d' ' -f1 /proc/loadavg; done > "$OUT/$k-$t.load" &
		sampler=$!
		opts=()
		if [ "$ICOUNT" = 1 ]; then
			opts+=(--icount)
			# 6.1 hangs bringing up its second CPU under -icount
			# (bench/README.md); one vCPU loses nothing there, as
			# all vCPUs share one host thread and one instruction clock
			[ "$k" = 6.1 ] && opts+=(--smp 1)
		fi
		[ -z "$NTPROF_BASE" ] || opts+=(--env NTPROF_BASE="$NTPROF_BASE")
		[ -z "${FIO_CONFIGS:-}" ] || opts+=(--env FIO_CONFIGS="$FIO_CONFIGS")
		[ -z "${FIO_TIMEOUT:-}" ] || opts+=(--env FIO_TIMEOUT="$FIO_TIMEOUT")
		# shellcheck disable=SC2086 # PARTS is a list of words
		if tests/testbed/run.sh --kernel "$k" --timeout "$TIMEOUT" --out "$OUT/$k-$t" "${opts[@]}" \
			--env NTPROF="$NTPROF" --env EMPTY_HOOKS="$EMPTY_HOOKS" \
			--env LEAST_WORK="$LEAST_WORK" --env TRANSPORT="$t" --env ROUNDS="${ROUNDS:-2}" \
			--env RUNTIME="${RUNTIME:-3}" bench/guest/testbed.sh $PARTS; then
			cat "$OUT/$k-$t/bench.txt"
		else
			echo "bench_testbed: the guest run for kernel $k, NVMe/$t failed:" >&2
			sed -n 's/^fail_reason=/  /p' "$OUT/$k-$t/result.env" >&2 || true
			rc=1
		fi
		kill "$sampler"
		wait "$sampler" 2>/dev/null || true
		sampler=
		sort -n "$OUT/$k-$t.load" | awk '{ v[NR] = $1 } END { if (NR)
			printf "   build machine load average during the boot: %s to %s, median %s (%d samples)\n",
				v[1], v[NR], v[int((NR + 1) / 2)], NR }'
	done
done
exit "$rc"
