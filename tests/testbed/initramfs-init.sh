#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a test bed guest (built into the initramfs by setup.sh).
#
# Mounts the host root (9p tag "hostroot", read-only) under a tmpfs overlay so
# the guest runs the host's user space at the same paths, binds the unpacked
# guest kernel modules to /lib/modules/<release>, mounts the run's output folder
# (9p tag "tbout") at /tb-out, chroots and runs /tb-out/.tb/job.sh (written by
# run.sh), stores its exit status in /tb-out/.tb/rc and powers off.
# Kernel command line: tb.kroot=<host path of the unpacked kernel package>;
# tb.probe=1 powers off as soon as init runs (accel.sh's KVM probe).

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

say() {
	echo "TBINIT[$(cut -d' ' -f1 /proc/uptime)] $*"
}

halt() {
	say "$*"
	sync
	poweroff -f
}

# tb.probe=1: accel.sh only asks whether the kernel reaches init
case " $(cat /proc/cmdline) " in
*" tb.probe=1 "*) halt "probe ok" ;;
esac

for m in $(cat /lib/tbmods/order); do
	insmod "/lib/tbmods/$m" || say "insmod $m failed"
done

KROOT=
for x in $(cat /proc/cmdline); do
	case "$x" in
	tb.kroot=*) KROOT=${x#tb.kroot=} ;;
	esac
done
KVER=$(uname -r)

# the virtio device may still be probing: retry for a few seconds
i=0
until mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /lower; do
	i=$((i + 1))
	[ $i -gt 25 ] && halt "cannot mount the host root over 9p"
	sleep 0.2
done
mount -t tmpfs -o size=75% tmpfs /upper
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot ||
	halt "cannot mount the overlay root"

R=/newroot
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
# what udev would add: bash process substitution needs /dev/fd
ln -sf /proc/self/fd $R/dev/fd
ln -sf /proc/self/fd/0 $R/dev/stdin
ln -sf /proc/self/fd/1 $R/dev/stdout
ln -sf /proc/self/fd/2 $R/dev/stderr
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
# /run is private; /tmp stays on the overlay so host paths under /tmp stay visible
mount -t tmpfs tmpfs $R/run
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null
mkdir -p $R/lib/modules/$KVER
mount --bind /lower$KROOT/lib/modules/$KVER $R/lib/modules/$KVER ||
	halt "no modules for $KVER under $KROOT"

TAGS=$(cat /sys/bus/virtio/devices/*/mount_tag 2>/dev/null | tr '\0' ' ')
mkdir -p $R/tb-out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 tbout $R/tb-out ||
	halt "cannot mount the output folder (tbout)"
case " $TAGS " in
*" tbsync "*)
	# polled by two guests at once: no caching
	mkdir -p $R/tb-sync
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=none tbsync $R/tb-sync ;;
esac

# request_module() runs /proc/sys/kernel/modprobe in this (initramfs) root:
# forward it to the real modprobe inside the chroot
printf '#!/bin/busybox sh\nexec chroot /newroot /sbin/modprobe "$@"\n' > /sbin/modprobe-chroot
chmod +x /sbin/modprobe-chroot
echo /sbin/modprobe-chroot > /proc/sys/kernel/modprobe

say "start job"
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 /bin/bash /tb-out/.tb/job.sh
rc=$?
say "job rc=$rc"
echo $rc > $R/tb-out/.tb/rc
sync
umount $R/tb-out
poweroff -f
