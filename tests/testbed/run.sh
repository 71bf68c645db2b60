#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh - run a script inside a test bed guest (or natively) and return its status.
#
#   tests/testbed/run.sh [--kernel 6.1|6.12] [--timeout SEC] [--out DIR] [--smp N]
#                        [--mem MiB] [--native] [--icount] [--env NAME=VALUE]...
#                        [--append KARGS] [-v] SCRIPT [ARGS...]
#
# Boots the Debian guest kernel under QEMU (KVM when a guest boots on it, else
# TCG: accel.sh decides) with the host root shared read-only over 9p under a
# tmpfs overlay, and runs `bash SCRIPT ARGS` inside with the current directory
# set to the repository root (same absolute path as on the host). DIR is mounted at
# /tb-out in the guest (TB_OUT=/tb-out); the console log is DIR/console.log,
# guest helpers write DIR/result.env. QEMU is killed after SEC seconds.
# Exit status: the script's; 124 on timeout; 125 when the guest never reported
# one (boot failure, panic); 2 on a usage error; 3 when NTPROF_TB_ACCEL=kvm
# and KVM cannot boot the guest. On failure the console tail is
# printed to stderr.
#
#   --native   run the script on this machine's own kernel, without QEMU, when it
#              has nvme-tcp, nvmet-tcp and null_blk modules (also: TB_NATIVE=1);
#              TB_OUT is then DIR itself. Changes this machine's NVMe-oF setup
#              for the duration of the run (the helpers undo it on exit).
#   --icount   instruction-counted guest (also: NTPROF_TB_ICOUNT=1): QEMU's
#              -icount shift=0,sleep=off makes the guest clock advance one ns
#              per guest instruction and skip idle time, so timings and the
#              kernel's BPF run-time statistics in the guest count work done,
#              not the build machine's load (bench/README.md). TCG
#              only; slower in wall time. The script sees TB_ICOUNT=1.
#   --env      export NAME=VALUE to the script (repeatable)
#   --append   extra guest kernel command line arguments
#   -v         stream the console to stdout while running
# Options used by run-two.sh: --name NAME (host name, console prefix),
# --nic server:SOCKET|client:SOCKET (virtio-net over a QEMU stream socket),
# --mac MAC, --rtc-offset SEC (guest wall clock SEC seconds off this machine's),
# --sync DIR (shared at /tb-sync, uncached).
# Env: NTPROF_TB_DIR (cache, default /var/tmp/ntprof-testbed), TB_QEMU_EXTRA,
# NTPROF_TB_ICOUNT (1: --icount),
# TB_TCG_THREAD (single (default) or multi), NTPROF_TB_ACCEL (auto (default),
# kvm or tcg: see accel.sh), NTPROF_TB_QEMU (default qemu-system-x86_64).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TB_DIR=${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}
QEMU=${NTPROF_TB_QEMU:-qemu-system-x86_64}

SERIES=6.1
TIMEOUT=300
OUT=
SMP=2
MEM=2048
NATIVE=${TB_NATIVE:-0}
ICOUNT=${NTPROF_TB_ICOUNT:-0}
VERBOSE=0
NAME=tbguest
NIC=
MAC=52:54:00:12:34:56
RTC_OFFSET=0
SYNC=
APPEND=
ENVS=()

usage() {
	sed -n 's/^#   tests/tests/p; s/^#                        /                        /p' "$0" >&2
	exit 2
}

die() {
	echo "run.sh: error: $1" >&2
	exit "${2:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) SERIES=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--native) NATIVE=1; shift ;;
	--icount) ICOUNT=1; shift ;;
	--env) ENVS+=("${2:?}"); shift 2 ;;
	--name) NAME=${2:?}; shift 2 ;;
	--nic) NIC=${2:?}; shift 2 ;;
	--mac) MAC=${2:?}; shift 2 ;;
	--rtc-offset) RTC_OFFSET=${2:?}; shift 2 ;;
	--sync) SYNC=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	-v|--verbose) VERBOSE=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "run.sh: error: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
SCRIPT=$(readlink -f "$1") || die "cannot resolve script '$1'"
shift
[ -f "$SCRIPT" ] || die "script '$SCRIPT' not found"
case "$TIMEOUT$SMP$MEM" in
*[!0-9]*) die "--timeout, --smp and --mem take whole numbers" ;;
esac
[[ "$RTC_OFFSET" =~ ^-?[0-9]+$ ]] || die "--rtc-offset takes whole seconds"
case "$ICOUNT" in
0) ;;
1)
	[ "$NATIVE" = 1 ] && die "--icount needs a QEMU guest, not --native"
	# accel.sh sees the words and chooses TCG, the only accelerator with -icount
	case " ${TB_QEMU_EXTRA:-} " in
	*" -icount "*) ;;
	*) export TB_QEMU_EXTRA="${TB_QEMU_EXTRA:+$TB_QEMU_EXTRA }-icount shift=0,sleep=off" ;;
	esac
	ENVS+=(TB_ICOUNT=1) ;;
*) die "NTPROF_TB_ICOUNT=$ICOUNT: expected 0 or 1" ;;
esac
for e in "${ENVS[@]}"; do
	[[ "$e" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env '$e': expected NAME=VALUE"
done

if [ -z "$OUT" ]; then
	mkdir -p "$TB_DIR/out"
	OUT=$(mktemp -d "$TB_DIR/out/$(date +%Y%m%d-%H%M%S)-XXXXXX")
fi
mkdir -p "$OUT" || die "cannot create --out $OUT" 1
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/.tb" "$OUT/result.env" "$OUT/console.log"
mkdir -p "$OUT/.tb"

START=${EPOCHREALTIME/./}
elapsed() {
	local d=$((${EPOCHREALTIME/./} - START))
	printf '%d.%02d' $((d / 1000000)) $((d % 1000000 / 10000))
}

# stamp each console line with seconds since the start (host clock)
stamp() {
	local line d
	while IFS= read -r line || [ -n "$line" ]; do
		d=$((${EPOCHREALTIME/./} - START))
		printf '[%s %3d.%02d] %s\n' "$NAME" $((d / 1000000)) $((d % 1000000 / 10000)) "${line%$'\r'}"
	done
}

sink() {
	if [ "$VERBOSE" = 1 ]; then
		tee "$OUT/console.log"
	else
		cat > "$OUT/console.log"
	fi
}

finish() {
	local rc=$1 why=$2

	if [ "$rc" != 0 ]; then
		{
			echo "run.sh: FAILED ($why), console tail ($OUT/console.log):"
			tail -n 40 "$OUT/console.log" 2>/dev/null | sed 's/^/  | /'
		} >&2
	fi
	echo "run.sh: rc=$rc ($why) wall=$(elapsed)s out=$OUT" >&2
	exit "$rc"
}

# the job: environment, current directory, then the script with its arguments
write_job() {
	local tb_out=$1 e

	shift
	{
		echo '#!/bin/bash'
		[ "$NATIVE" = 1 ] || printf 'hostname %q\n' "$NAME"
		printf 'export TB_OUT=%q TB_KERNEL=%q TB_NAME=%q TB_NATIVE=%q\n' \
			"$tb_out" "$SERIES" "$NAME" "$NATIVE"
		printf 'export TB_REPO=%q TB_LIB=%q NTPROF_TB_DIR=%q\n' \
			"$REPO" "$HERE/guest/lib.sh" "$TB_DIR"
		for e in "${ENVS[@]}"; do
			printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
		done
		printf 'cd %q || exit 125\n' "$REPO"
		printf 'exec bash %q' "$SCRIPT"
		[ $# -eq 0 ] || printf ' %q' "$@"
		printf ' </dev/null\n'
	} > "$OUT/.tb/job.sh"
}

run_native() {
	local m rc

	for m in nvme-tcp nvmet-tcp null_blk; do
		modinfo -n "$m" >/dev/null 2>&1 ||
			die "--native: kernel $(uname -r) has no $m module; run without --native (QEMU)" 3
	done
	[ "$(id -u)" = 0 ] || die "--native needs root" 3
	write_job "$OUT" "$@"
	timeout -k 5 "$TIMEOUT" bash "$OUT/.tb/job.sh" 2>&1 | stamp | sink
	rc=${PIPESTATUS[0]}
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && finish 124 "timed out after ${TIMEOUT}s"
	finish "$rc" "native script exit status"
}

run_guest() {
	local kdir=$TB_DIR/kernels/$SERIES kver accel net=() extra=() qrc rc

	if [ ! -f "$kdir/kver" ] || [ ! -f "$kdir/initramfs.cpio.gz" ] ||
	   [ "$HERE/initramfs-init.sh" -nt "$kdir/initramfs.cpio.gz" ]; then
		"$HERE/setup.sh" --kernel "$SERIES" >&2 || die "setup.sh --kernel $SERIES failed" 125
	fi
	kver=$(cat "$kdir/kver")
	[ -f "$kdir/root/boot/vmlinuz-$kver" ] || die "no kernel image in $kdir; run setup.sh" 125
	# KVM only when a guest boots on it (accel.sh probes once and caches)
	case "$("$HERE/accel.sh" --image "$kdir/root/boot/vmlinuz-$kver" \
		--initrd "$kdir/initramfs.cpio.gz")" in
	kvm) accel=(-accel kvm -cpu host) ;;
	tcg)
		# one host thread for all vCPUs: with multi-threaded TCG, kernel text
		# patching (text_poke_bp: static keys, fentry attach) races with the
		# other vCPU and the guest dies with "Oops: int3"; not slower on 2 cores
		accel=(-accel "tcg,thread=${TB_TCG_THREAD:-single}" -cpu max) ;;
	*) die "no accelerator for the guest (tests/testbed/accel.sh above says why)" 3 ;;
	esac
	case "$NIC" in
	"") ;;
	server:*|client:*)
		net=(-netdev "stream,id=n0,server=$([ "${NIC%%:*}" = server ] && echo on || echo off),addr.type=unix,addr.path=${NIC#*:}"
		     -device "virtio-net-pci,netdev=n0,mac=$MAC,romfile=") ;;
	*) die "--nic $NIC: expected server:SOCKET or client:SOCKET" ;;
	esac
	if [ "$RTC_OFFSET" != 0 ]; then
		extra+=(-rtc "base=$(date -u -d "@$(($(date +%s) + RTC_OFFSET))" +%Y-%m-%dT%H:%M:%S)")
	fi
	if [ -n "$SYNC" ]; then
		extra+=(-virtfs "local,path=$(cd "$SYNC" && pwd),mount_tag=tbsync,security_model=none")
	fi
	write_job /tb-out "$@"
	# clocksource=hpet: under TCG the guest calibrates its TSC badly on a busy
	# machine (1 vCPU keeps the TSC) and its clock drifts by seconds a minute.
	# no_timer_check: on a busy machine the emulated timer's first ticks can
	# come later than the boot's IO-APIC check waits, which then panics ("IO-APIC
	# + timer doesn't work!"); the check proves nothing about QEMU's timer
	# shellcheck disable=SC2086 # TB_QEMU_EXTRA is a list of words
	timeout -k 5 "$TIMEOUT" "$QEMU" "${accel[@]}" -smp "$SMP" -m "$MEM" \
		-nodefaults -display none -serial stdio -no-reboot \
		-kernel "$kdir/root/boot/vmlinuz-$kver" -initrd "$kdir/initramfs.cpio.gz" \
		-append "console=ttyS0 loglevel=4 panic=-1 mitigations=off rdinit=/init clocksource=hpet no_timer_check tb.kroot=$kdir/root $APPEND" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$OUT,mount_tag=tbout,security_model=none" \
		"${net[@]}" "${extra[@]}" ${TB_QEMU_EXTRA:-} </dev/null 2>&1 | stamp | sink
	qrc=${PIPESTATUS[0]}
	[ "$qrc" = 124 ] || [ "$qrc" = 137 ] && finish 124 "timed out after ${TIMEOUT}s, QEMU killed"
	rc=$(cat "$OUT/.tb/rc" 2>/dev/null) ||
		finish 125 "the guest reported no exit status (QEMU rc=$qrc): boot failure or panic"
	finish "$rc" "guest script exit status"
}

if [ "$NATIVE" = 1 ]; then
	run_native "$@"
else
	run_guest "$@"
fi
