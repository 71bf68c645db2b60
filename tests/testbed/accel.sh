#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# accel.sh - choose QEMU's accelerator for a test bed guest: KVM only when a
# guest actually boots on it, else TCG.
#
#   tests/testbed/accel.sh --kernel 6.1|6.12
#   tests/testbed/accel.sh --image VMLINUZ --initrd INITRD
#
# Prints the verdict, `kvm` or `tcg`, on stdout and one line on stderr saying
# which and why. A writable /dev/kvm is not enough: a nested, paravirtual KVM
# may make QEMU abort ("failed to set MSR") or run the guest into a hang right
# after the decompressor. So in auto mode a short KVM boot of the test bed's
# own kernel and initramfs must reach the initramfs' init (which, given
# tb.probe=1, prints "probe ok" and powers off) within the probe timeout.
#
# The verdict is cached in $NTPROF_TB_DIR/accel/, keyed by the QEMU binary,
# the kernel image, the initramfs, the KVM device and this machine's boot (the
# device node and the kvm module are new at each boot), and this script itself:
# a change of any of them probes again.
#
# Env: NTPROF_TB_ACCEL   auto (default), kvm (fail, exit 3, when KVM cannot
#                        boot the guest) or tcg (never probe)
#      NTPROF_TB_QEMU    the QEMU binary (default qemu-system-x86_64)
#      NTPROF_TB_KVM_DEV the KVM device (default /dev/kvm)
#      NTPROF_TB_ACCEL_PROBE_TIMEOUT  seconds the probe boot may take (default 20)
#      TB_QEMU_EXTRA     extra QEMU words of the run: -icount needs TCG
#      NTPROF_TB_ICOUNT  1: the run is instruction-counted (run.sh --icount): TCG
# Exit status: 0 with a verdict; 2 on a usage error; 3 when KVM was forced
# and cannot be used.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TB_DIR=${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}
MODE=${NTPROF_TB_ACCEL:-auto}
QEMU=${NTPROF_TB_QEMU:-qemu-system-x86_64}
KVM_DEV=${NTPROF_TB_KVM_DEV:-/dev/kvm}
PROBE_TIMEOUT=${NTPROF_TB_ACCEL_PROBE_TIMEOUT:-20}
IMAGE=
INITRD=

usage() {
	sed -n 's/^#   tests/tests/p' "$0" >&2
	exit 2
}

die() {
	echo "accel.sh: error: $1" >&2
	exit "${2:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)
		kdir=$TB_DIR/kernels/${2:?}
		[ -f "$kdir/kver" ] || die "kernel ${2} is not set up in $kdir (tests/testbed/setup.sh --kernel ${2})"
		IMAGE=$kdir/root/boot/vmlinuz-$(cat "$kdir/kver")
		INITRD=$kdir/initramfs.cpio.gz
		shift 2 ;;
	--image) IMAGE=${2:?}; shift 2 ;;
	--initrd) INITRD=${2:?}; shift 2 ;;
	-h|--help) usage ;;
	*) echo "accel.sh: error: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$MODE" in
auto|kvm|tcg) ;;
*) die "NTPROF_TB_ACCEL=$MODE: expected auto, kvm or tcg" ;;
esac
[[ "$PROBE_TIMEOUT" =~ ^[1-9][0-9]*$ ]] ||
	die "NTPROF_TB_ACCEL_PROBE_TIMEOUT=$PROBE_TIMEOUT: expected whole seconds"

# the verdict and its reason, on stdout and stderr; a forced KVM that cannot
# be had fails instead
verdict() {
	local accel=$1 why=$2

	if [ "$MODE" = kvm ] && [ "$accel" != kvm ]; then
		echo "accel.sh: error: NTPROF_TB_ACCEL=kvm, but $why" >&2
		exit 3
	fi
	echo "test bed: accelerator $accel: $why" >&2
	echo "$accel"
	exit 0
}

[ "$MODE" = tcg ] && verdict tcg "NTPROF_TB_ACCEL=tcg"
case " ${TB_QEMU_EXTRA:-} " in
*" -icount "*) verdict tcg "TB_QEMU_EXTRA asks for -icount, which only TCG has" ;;
esac
[ "${NTPROF_TB_ICOUNT:-0}" = 1 ] && verdict tcg "NTPROF_TB_ICOUNT=1 (run.sh --icount): -icount is TCG only"
[ -e "$KVM_DEV" ] || verdict tcg "no $KVM_DEV on this machine"
[ -w "$KVM_DEV" ] || verdict tcg "$KVM_DEV is not writable by $(id -un)"
[ -n "$IMAGE" ] && [ -n "$INITRD" ] || usage
[ -f "$IMAGE" ] || die "no kernel image $IMAGE"
[ -f "$INITRD" ] || die "no initramfs $INITRD"
QEMU_PATH=$(command -v "$QEMU") || die "QEMU not found: $QEMU (apt-get install qemu-system-x86)" 3

# what the verdict depends on, one line each; their hash names the cache file
cache_inputs() {
	local f

	for f in "$QEMU_PATH" "$IMAGE" "$INITRD" "$0"; do
		f=$(readlink -f "$f")
		echo "$f $(stat -L -c '%s %.9Y' "$f")"
	done
	echo "$(readlink -f "$KVM_DEV") $(stat -L -c '%F %t:%T %.9Z' "$KVM_DEV")"
	echo "boot $(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"
}

# boot the guest on KVM until its init says "probe ok"; on failure print why
probe_kvm() {
	local log=$1 rc first

	timeout -k 2 "$PROBE_TIMEOUT" "$QEMU_PATH" -accel kvm -cpu host -smp 2 -m 512 \
		-nodefaults -display none -serial stdio -no-reboot \
		-kernel "$IMAGE" -initrd "$INITRD" \
		-append "console=ttyS0 loglevel=4 panic=-1 rdinit=/init tb.probe=1" \
		</dev/null >"$log" 2>&1
	rc=$?
	grep -q 'TBINIT.*probe ok' "$log" && return 0
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		first=$(grep -v '^\s*$' "$log" | tail -n 1 | tr -d '\r' | cut -c1-120)
		echo "the guest did not reach init within ${PROBE_TIMEOUT}s${first:+ (last console line: $first)}"
	else
		first=$(grep -m1 -i 'error\|fail\|assert' "$log" | tr -d '\r' | cut -c1-160)
		[ -n "$first" ] || first=$(grep -v '^\s*$' "$log" | tail -n 1 | tr -d '\r' | cut -c1-160)
		echo "QEMU exited with status $rc before init${first:+: $first}"
	fi
	return 1
}

CACHE_DIR=$TB_DIR/accel
mkdir -p "$CACHE_DIR" || die "cannot create $CACHE_DIR" 1
KEY=$(cache_inputs | sha256sum | cut -c1-16)
CACHE=$CACHE_DIR/verdict-$KEY
# one probe at a time (run-two.sh boots two guests at once): the second waits
# for the first one's verdict
exec 9>"$CACHE_DIR/.lock"
flock 9
if [ -f "$CACHE" ]; then
	read -r accel why < "$CACHE"
	verdict "$accel" "$why (verdict cached in $CACHE)"
fi
if why=$(probe_kvm "$CACHE_DIR/probe-$KEY.log"); then
	accel=kvm
	why="$KVM_DEV booted the guest (probe log $CACHE_DIR/probe-$KEY.log)"
else
	accel=tcg
	why="kvm present but could not boot the guest: $why"
fi
printf '%s %s\n' "$accel" "$why" > "$CACHE.tmp" && mv "$CACHE.tmp" "$CACHE"
verdict "$accel" "$why"
