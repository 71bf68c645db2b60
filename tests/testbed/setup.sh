#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup.sh - prepare the NVMe-oF test bed cache for one guest kernel.
#
#   tests/testbed/setup.sh [--kernel 6.1|6.12|7.3|5.10] [--refresh]
#   tests/testbed/setup.sh --tls [--refresh]
#
# Idempotent: installs the Debian packages the test bed needs (only the missing
# ones), fetches the Debian kernel package with `apt-get download` and unpacks
# it with `dpkg -x` (nothing is installed into /boot or /lib/modules), runs
# depmod on the unpacked tree and builds a small busybox initramfs for it.
# A second run downloads nothing.
#
#   6.1   what the machine's `linux-image-amd64` metapackage points to
#   6.12  the same metapackage from the bookworm-backports suite
#   7.3   the same metapackage from trixie-backports, whose image is split in
#         three packages (linux-base-*, linux-binary-*, linux-modules-*, with
#         vmlinuz under /usr/lib/modules/RELEASE/); all are fetched and laid
#         out as the others are.  When the metapackage points to another
#         series than 7.3, setup fails and says so: the test bed's third
#         kernel moved, and KERNELS (conftest.py) must follow it
#   5.10  the same metapackage from bullseye-security (Debian 11), for the
#         smoke tier's one boot of an older kernel
# The suites other than the machine's own are read through a private apt
# configuration per suite whose one source reuses the mirror URI of the
# machine's own Debian entry (the machine's apt setup is not touched); its
# lists are read again with --refresh or when older than 7 days.
#
# Cache: ${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}/kernels/<series>/
#   root/             the unpacked kernel package (boot/vmlinuz-*, lib/modules/*)
#   kver              the kernel release, e.g. 6.1.0-57-amd64
#   kpkg              the package it came from and its version (printed by the tests)
#   initramfs.cpio.gz busybox + the modules needed to mount the 9p root
#
# --tls: the user space NVMe/TCP with TLS needs, which Debian 12 lacks (its
# nvme-cli 2.3 has no --tls; no ktls-utils): trixie's nvme-cli and tlshd
# (ktls-utils) with the libraries they link, trixie's C library among them,
# unpacked with `dpkg -x` into tls/root/ and run through trixie's own
# dynamic loader by the wrappers tls/bin/nvme and tls/bin/tlshd.  Every
# library the two need must come from tls/root: setup fails naming any that
# does not.  About 13 MB; nothing is installed.
#   tls/root/  tls/bin/{nvme,tlshd}  tls/versions (the packages and versions)
#
# Env: TB_KPKG pins the kernel package (e.g. linux-image-6.1.0-57-amd64).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TB_DIR=${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}
SERIES=6.1
REFRESH=0
TLS=0
# trixie's user space for TLS, the binaries first; the libraries they link follow
TLS_PKGS="ktls-utils nvme-cli libnvme1t64"

# Packages the test bed needs on the host; the guest runs the host's user space.
PKGS="qemu-system-x86 busybox-static kmod cpio nvme-cli fio jq iproute2 rdma-core
      ibverbs-utils bpftool clang llvm gcc libc6-dev libbpf-dev blktrace bpftrace sqlite3
      prometheus curl tmux"

usage() {
	sed -n 's/^#   tests/tests/p' "$0"
	exit 2
}

die() {
	echo "setup.sh: error: $*" >&2
	exit 1
}

log() {
	echo "setup.sh: $*"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) SERIES=${2:?}; shift 2 ;;
	--kernel=*) SERIES=${1#*=}; shift ;;
	--refresh) REFRESH=1; shift ;;
	--tls) TLS=1; SERIES=tls; shift ;;
	-h|--help) usage ;;
	*) echo "setup.sh: error: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$SERIES" in
6.1) SUITE= ;;
tls) SUITE=trixie ;;
6.12) SUITE=bookworm-backports ;;
7.3) SUITE=trixie-backports ;;
5.10) SUITE=bullseye-security ;;
*) die "--kernel $SERIES: supported: 6.1, 6.12, 7.3, 5.10" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (apt-get, and QEMU exports the whole root file system)"

install_packages() {
	local p missing=""

	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$missing >/dev/null
}

# Print "URI SIGNED-BY" of the machine's own entry for the release suite
# (e.g. bookworm), from deb822 *.sources or one-line *.list files.
machine_mirror() {
	local codename=$1 f

	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uri != "")
					{ print uri, (signed == "" ? "-" : signed); found = 1; exit }
				types = suites = uri = signed = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:"     { $1 = ""; types = substr($0, 2) }
			tolower($1) == "suites:"    { $1 = ""; suites = substr($0, 2) }
			tolower($1) == "uris:"      { uri = $2 }
			tolower($1) == "signed-by:" { signed = $2 }
			END { if (!found) flush() }
		' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opts] URI SUITE COMPONENTS...
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk -v suite="$codename" '$1 == "deb" && $3 == suite { print $2, "-"; exit }'
	done
}

# apt-get/apt-cache with a private configuration: only $SUITE, own lists and
# cache, the machine's configuration and state untouched.  Without a SUITE
# (6.1), the machine's own apt.
SUITE_DIR=
suite_apt() {
	local tool=$1
	shift
	if [ -z "$SUITE" ]; then
		"$tool" "$@"
		return
	fi
	"$tool" -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$SUITE_DIR/sources.list.d" \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts="$SUITE_DIR/preferences.d" \
		-o Dir::State::Lists="$SUITE_DIR/lists" \
		-o Dir::Cache="$SUITE_DIR/cache" \
		-o Debug::NoLocking=1 "$@"
}

# the mirror of the suite: debian-security for *-security, else the machine's Debian mirror
suite_setup() {
	local codename uri signed age

	[ -n "$SUITE" ] || return 0
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "cannot read VERSION_CODENAME from /etc/os-release"
	case "$SUITE" in
	*-security) read -r uri signed < <(machine_mirror "$codename-security" | head -1) ||
			die "no 'deb' entry for suite $codename-security in /etc/apt/sources.list{,.d}" ;;
	*) read -r uri signed < <(machine_mirror "$codename" | head -1) ||
			die "no 'deb' entry for suite $codename in /etc/apt/sources.list{,.d}" ;;
	esac
	# the bookworm-backports folder keeps its name: caches made before stay valid
	SUITE_DIR=$TB_DIR/apt-${SUITE#bookworm-}
	mkdir -p "$SUITE_DIR/sources.list.d" "$SUITE_DIR/preferences.d" \
		"$SUITE_DIR/lists/partial" "$SUITE_DIR/cache/archives/partial"
	{
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: $SUITE"
		echo "Components: main"
		[ "$signed" != - ] && echo "Signed-By: $signed"
	} > "$SUITE_DIR/sources.list.d/suite.sources"
	rm -f "$SUITE_DIR/sources.list.d/backports.sources"
	# apt keeps the server's dates on the lists: the stamp says when we read them
	age=$(find "$SUITE_DIR/updated" -mtime -7 2>/dev/null) || age=
	if [ "$REFRESH" = 1 ] || [ -z "$age" ] || ! ls "$SUITE_DIR"/lists/*_InRelease >/dev/null 2>&1; then
		log "apt update of $SUITE from $uri (private lists in $SUITE_DIR)"
		suite_apt apt-get update -qq || die "apt-get update of $SUITE failed"
		touch "$SUITE_DIR/updated"
	fi
}

# the version of package $1 the suite has
pkg_version() {
	suite_apt apt-cache show "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}

# the image package linux-image-amd64 points to: linux-image-<release> (not -dbg, not -unsigned)
resolve_kpkg() {
	local pkg

	if [ -n "${TB_KPKG:-}" ]; then
		echo "$TB_KPKG"
		return
	fi
	pkg=$(suite_apt apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || die "cannot resolve the $SERIES kernel package (linux-image-amd64${SUITE:+ in $SUITE}); try --refresh"
	case "${pkg#linux-image-}" in
	"$SERIES".*|"$SERIES"-*) ;;
	*) die "linux-image-amd64${SUITE:+ in $SUITE} $(pkg_version linux-image-amd64) now points to $pkg," \
	       "not a $SERIES kernel: the series of this test bed kernel changed under it." \
	       "Move the test bed to the new series (setup.sh, run.sh and KERNELS in tests/testbed/conftest.py)," \
	       "or pin the old one with TB_KPKG if the archive still has it" ;;
	esac
	echo "$pkg"
}

# the packages that make up the kernel: the image, and the parts it depends on where it is split (7.x)
kernel_pkgs() {
	local kpkg=$1 kver=${1#linux-image-}

	echo "$kpkg"
	suite_apt apt-cache depends "$kpkg" 2>/dev/null |
		awk -v v="$kver" '$1 == "Depends:" && ($2 == "linux-base-" v || $2 == "linux-binary-" v ||
						    $2 == "linux-modules-" v) { print $2 }'
}

fetch_kernel() {
	local kpkg=$1 kver=$2 kdir=$3 tmp pkgs p

	if [ -f "$kdir/root/boot/vmlinuz-$kver" ] && [ -f "$kdir/root/lib/modules/$kver/modules.dep" ]; then
		return 0
	fi
	tmp=$(mktemp -d "$TB_DIR/dl.XXXXXX")
	pkgs=$(kernel_pkgs "$kpkg" | sort -u | tr '\n' ' ')
	log "downloading $pkgs"
	# shellcheck disable=SC2086 # a list of package names
	(cd "$tmp" && suite_apt apt-get download -q=2 -o APT::Sandbox::User=root $pkgs) ||
		die "apt-get download $pkgs failed"
	rm -rf "$kdir/root"
	mkdir -p "$kdir/root"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$kdir/root"
	done
	rm -rf "$tmp"
	# 7.x: the image beside the modules under /usr/lib/modules; laid out as 6.x's
	if [ -d "$kdir/root/usr/lib/modules/$kver" ] && [ ! -d "$kdir/root/lib/modules/$kver" ]; then
		mkdir -p "$kdir/root/lib/modules" "$kdir/root/boot"
		mv "$kdir/root/usr/lib/modules/$kver" "$kdir/root/lib/modules/$kver"
		[ -f "$kdir/root/lib/modules/$kver/vmlinuz" ] &&
			mv "$kdir/root/lib/modules/$kver/vmlinuz" "$kdir/root/boot/vmlinuz-$kver"
	fi
	[ -f "$kdir/root/boot/vmlinuz-$kver" ] || die "$pkgs: no kernel image for $kver after unpacking"
	depmod -b "$kdir/root" "$kver"
}

# busybox + the modules needed before the 9p root is mounted (in load order)
build_initramfs() {
	local kver=$1 kdir=$2 ir m ko

	if [ -f "$kdir/initramfs.cpio.gz" ] && [ "$kdir/initramfs.cpio.gz" -nt "$HERE/initramfs-init.sh" ] &&
	   [ "$(cat "$kdir/kver" 2>/dev/null)" = "$kver" ]; then
		return 0
	fi
	ir=$(mktemp -d "$TB_DIR/initramfs.XXXXXX")
	mkdir -p "$ir"/{bin,sbin,dev,proc,sys,lower,upper,newroot,lib/tbmods}
	cp /bin/busybox "$ir/bin/busybox"
	: > "$ir/lib/tbmods/order"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$kdir/root" -S "$kver" --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		# busybox insmod wants plain ELF; 6.12 ships .ko.xz
		m=$(basename "$ko")
		case "$ko" in
		*.xz) xz -dc "$ko" > "$ir/lib/tbmods/${m%.xz}"; m=${m%.xz} ;;
		*.zst) zstd -qdc "$ko" > "$ir/lib/tbmods/${m%.zst}"; m=${m%.zst} ;;
		*.gz) gzip -dc "$ko" > "$ir/lib/tbmods/${m%.gz}"; m=${m%.gz} ;;
		*) cp "$ko" "$ir/lib/tbmods/" ;;
		esac
		echo "$m" >> "$ir/lib/tbmods/order"
	done
	install -m 0755 "$HERE/initramfs-init.sh" "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) > "$kdir/initramfs.cpio.gz.tmp"
	mv "$kdir/initramfs.cpio.gz.tmp" "$kdir/initramfs.cpio.gz"
	rm -rf "$ir"
}

# the package and its Depends that are libraries, recursively (libc6 included)
tls_closure() {
	local todo="$*" seen=" " p d

	while [ -n "$todo" ]; do
		set -- $todo
		p=$1
		shift
		todo="$*"
		case "$seen" in *" $p "*) continue ;; esac
		seen="$seen$p "
		for d in $(suite_apt apt-cache depends --no-recommends --no-suggests --no-conflicts \
				--no-breaks --no-replaces --no-enhances "$p" 2>/dev/null |
			   awk '$1 == "Depends:" || $1 == "PreDepends:" { print $2 }' |
			   grep -E '^(lib|zlib)' | grep -v '^<'); do
			todo="$todo $d"
		done
	done
	echo $seen
}

tls_wrapper() {
	local name=$1 bin=$2 dir=$TB_DIR/tls

	cat > "$dir/bin/$name" <<-EOF
	#!/bin/sh
	# $name of Debian 13 (trixie) on this machine's user space: its own loader and libraries
	exec $dir/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \\
		--library-path $dir/root/usr/lib/x86_64-linux-gnu $dir/root$bin "\$@"
	EOF
	chmod +x "$dir/bin/$name"
}

tls_main() {
	local t0=$SECONDS dir=$TB_DIR/tls tmp pkgs p lib missing=""

	if [ -x "$dir/bin/tlshd" ] && [ -x "$dir/bin/nvme" ] && [ -f "$dir/versions" ] && [ "$REFRESH" = 0 ]; then
		log "TLS user space ready in $dir"
		return 0
	fi
	pkgs=$(tls_closure $TLS_PKGS)
	tmp=$(mktemp -d "$TB_DIR/dl.XXXXXX")
	log "downloading $pkgs"
	# shellcheck disable=SC2086 # a list of package names
	(cd "$tmp" && suite_apt apt-get download -q=2 -o APT::Sandbox::User=root $pkgs) ||
		die "apt-get download $pkgs failed"
	rm -rf "$dir"
	mkdir -p "$dir/root" "$dir/bin"
	: > "$dir/versions"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$dir/root"
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$p" >> "$dir/versions"
	done
	rm -rf "$tmp"
	tls_wrapper nvme /usr/sbin/nvme
	tls_wrapper tlshd /usr/sbin/tlshd
	# every library the two link must be trixie's: a Debian 12 one would not fit its libc
	for p in usr/sbin/nvme usr/sbin/tlshd; do
		for lib in $(readelf -d "$dir/root/$p" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }'); do
			[ -e "$dir/root/usr/lib/x86_64-linux-gnu/$lib" ] || missing="$missing $lib ($p)"
		done
	done
	[ -z "$missing" ] || die "TLS user space: not in trixie's packages fetched:$missing"
	"$dir/bin/nvme" version >/dev/null 2>&1 ||
		die "TLS user space: $dir/bin/nvme does not run: $("$dir/bin/nvme" version 2>&1 | head -n 2)"
	log "TLS user space ($(grep -E '^(nvme-cli|ktls-utils) ' "$dir/versions" | paste -sd, )) ready in $dir ($((SECONDS - t0)) s)"
}

main() {
	local t0=$SECONDS kpkg kver kdir

	mkdir -p "$TB_DIR"
	# one setup at a time: other engineers' runs share the cache
	exec 9>"$TB_DIR/.setup.lock"
	flock 9
	install_packages
	suite_setup
	if [ "$TLS" = 1 ]; then
		tls_main
		return
	fi
	kpkg=$(resolve_kpkg)
	kver=${kpkg#linux-image-}
	kdir=$TB_DIR/kernels/$SERIES
	mkdir -p "$kdir"
	fetch_kernel "$kpkg" "$kver" "$kdir"
	build_initramfs "$kver" "$kdir"
	echo "$kver" > "$kdir/kver.tmp"
	mv "$kdir/kver.tmp" "$kdir/kver"
	echo "$kpkg $(pkg_version "$kpkg")" > "$kdir/kpkg"
	log "kernel $SERIES = $kver ($(cat "$kdir/kpkg")) ready in $kdir ($((SECONDS - t0)) s)"
}

main
