# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for scripts that run inside a test bed guest (run.sh).
# Source it:  . "$TB_LIB"   (or . tests/testbed/guest/lib.sh: the cwd is the repo root)
#
# Results and logging
#   tb_log MSG                  a time-stamped line on the console
#   tb_res KEY VALUE            append KEY=VALUE to $TB_OUT/result.env
#   tb_fail MSG                 log, record fail_reason=MSG, exit 1
# NVMe-oF target (nvmet) and host
#   tb_target_tcp [--addr A] [--port P] [--backend null|file] [--delay-ns N] [--nqn NQN]
#                 [--transport tcp|rdma] [--size MiB] [--tls]
#       export a namespace on a port; null_blk backend (irqmode=2 completion_nsec=N
#       with --delay-ns) or a sparse file. Called again with the same --nqn it only
#       adds the port (one namespace behind several ports: multipath).
#       Sets TB_NQN, TB_ADDR, TB_PORT, TB_TRANSPORT (the defaults of tb_connect).
#   tb_connect [--transport tcp|rdma] [--addr A] [--port P] [--nqn NQN] [--tls]
#              [--nr-io-queues N] [--queue-size N]
#       nvme connect; sets TB_DEV (/dev/nvme0n1), TB_CTRL (nvme0), adds to TB_CTRLS
#   tb_loop_tcp [target opts]   target + connect on 127.0.0.1
#   tb_loop_tls [target opts]   the same with TLS 1.3 and a PSK (tb_target_tcp --tls,
#       tb_connect --tls): trixie's nvme-cli and tlshd (setup.sh --tls) in
#       $NTPROF_TB_DIR/tls/bin; tlshd runs from the first call on, its log in
#       $TB_OUT/tlshd.log; TB_TLS_KEY is the controller's tls_key
#   tb_loop_rdma [target opts]  the same over soft-RoCE (rdma_rxe on a dummy netdev)
#   tb_loop_multipath [target opts]  one namespace through two TCP ports: two
#       controllers, TB_PATHS="nvmeXcYnZ nvmeXcWnZ", TB_DEV = the head /dev/nvmeXnZ
#   tb_disconnect               disconnect every controller tb_connect made
#   tb_fio LABEL [FIO OPTS...]  fio on $TB_DEV (libaio, direct, json); result in
#       $TB_OUT/fio-LABEL.json; sets TB_FIO_IOS (read+write+trim I/Os issued)
# Two guests (run-two.sh): TB_ROLE=target|host, TB_MY_ADDR, TB_PEER_ADDR
#   tb_net_up                   eth0 up with $TB_MY_ADDR/24
#   tb_netem DELAY [DEV]        netem delay on DEV (default eth0), e.g. 5ms
#   tb_sync_signal NAME [TEXT]  create flag NAME (one line of TEXT) in /tb-sync
#   tb_sync_wait NAME [SEC]     wait for flag NAME (default 120 s); its text is
#                               then in TB_SYNC_TEXT
# ntprof record in the background ($NTPROF, default $TB_REPO/build/ntprof)
#   tb_workdir NAME             TB_WORK=a new folder /var/tmp/ntprof-NAME-XXXXXX to
#       record into: SQLite's WAL needs shared memory maps, which the 9p share
#       under $TB_OUT lacks (record there, then tb_collect)
#   tb_record_start NAME [RECORD OPTS...]  `ntprof record OPTS` in the background,
#       stdout/stderr in $TB_OUT/NAME.out/.err; returns once its programs are
#       attached (fails after 120 s, or if record exits first)
#   tb_record_stop NAME         SIGINT (like Ctrl-C), wait: result NAME_rc; its
#       stderr goes to the console
#   tb_collect NAME             copy $TB_WORK/NAME.ntp* to $TB_OUT
#   tb_bpf_progs                print how many BPF programs the kernel has loaded
# The record tests' workloads (fio, JSON output in $TB_OUT)
#   tb_fio_mix DEV NAME         TB_FIO_MIX=the fio command line of the mixed job
#       (4k randread and 4k randwrite at queue depth 4, 128k writes at 2, 4 s,
#       in DEV's first 200 MiB), its JSON in $TB_OUT/fio-NAME.json; to run
#       under `ntprof record -- "${TB_FIO_MIX[@]}"`
#   tb_fio_qd1 DEV NULLB        three runs of 4k reads at queue depth 1, each in
#       its own region above 384 MiB, with the backend's diskstats around each:
#       results qd1_<i>_dev_reads and qd1_<i>_dev_ms (the storage stage's oracle)
#   tb_record_sampled DEV TRANSPORT ONE_IN  the two-machine way at -s ONE_IN, on
#       one machine: `record -r target` in the background, `record -r host
#       -- fio` of fixed counts (1024 4k random reads at queue depth 8, 512
#       4k random writes, 64 128k writes, in DEV's first 200 MiB); files
#       samp_host.ntp and samp_target.ntp collected, fio-samp.json, results
#       samp_host_rc and samp_target_rc
#
# In native mode (run.sh --native) everything these helpers set up is undone
# when the script exits; in a guest the power-off does that.

TB_OUT=${TB_OUT:-/tb-out}
TB_NATIVE=${TB_NATIVE:-0}
TB_CTRLS=${TB_CTRLS:-}
TB__CFS=/sys/kernel/config
TB__SEQ=0
TB__NTGT=0
TB__UNDO=()
declare -gA TB__RECPID=()

tb_log() {
	local up _

	# builtins only: a fork costs tens of milliseconds under TCG
	read -r up _ < /proc/uptime
	echo "TB[$up] $*" >&2
}

tb_res() {
	echo "$1=$2" >> "$TB_OUT/result.env"
	tb_log "result $1=$2"
}

tb_fail() {
	tb_log "FAIL: $*"
	tb_res fail_reason "$*"
	exit 1
}

# remember how to undo a step (native mode only runs these, in reverse order)
tb__defer() {
	TB__UNDO+=("$*")
}

tb__undo_all() {
	local i

	for ((i = ${#TB__UNDO[@]} - 1; i >= 0; i--)); do
		eval "${TB__UNDO[i]}" >/dev/null 2>&1
	done
	TB__UNDO=()
}

tb__modprobe() {
	local m

	for m in "$@"; do
		modprobe "$m" || tb_fail "modprobe $m: $(dmesg | tail -n 3 | tr '\n' ' ')"
	done
}

# configfs is a module in the Debian kernels: mount it after loading its users
tb__configfs() {
	mountpoint -q "$TB__CFS" || mount -t configfs configfs "$TB__CFS" ||
		tb_fail "cannot mount configfs"
}

tb__write() {
	local file=$1 value=$2

	echo "$value" > "$file" 2>/dev/null ||
		tb_fail "write '$value' to $file: $(dmesg | tail -n 2 | tr '\n' ' ')"
}

# next unused TCP port from $1 on, for native mode (the host may use 4420)
tb__free_port() {
	local p=$1

	while ss -Htan "sport = :$p" 2>/dev/null | grep -q .; do
		p=$((p + 1))
	done
	echo "$p"
}

# null_blk device through configfs: sets TB__PATH=/dev/<name>
tb__nullb() {
	local delay=$1 size=$2 name d

	if [ ! -d /sys/module/null_blk ]; then
		modprobe null_blk nr_devices=0 || tb_fail "modprobe null_blk"
	fi
	tb__configfs
	TB__SEQ=$((TB__SEQ + 1))
	name=tbnull$$x$TB__SEQ
	d=$TB__CFS/nullb/$name
	mkdir "$d" || tb_fail "cannot create null_blk device $d"
	tb__defer "echo 0 > $d/power; rmdir $d"
	tb__write "$d/size" "$size"
	tb__write "$d/blocksize" 4096
	if [ -n "$delay" ]; then
		tb__write "$d/irqmode" 2
		tb__write "$d/completion_nsec" "$delay"
	fi
	tb__write "$d/power" 1
	# the disk is named after the configfs item, or nullb<index> on older kernels
	TB__PATH=/dev/$name
	[ -b "$TB__PATH" ] || TB__PATH=/dev/nullb$(cat "$d/index")
	[ -b "$TB__PATH" ] || tb_fail "null_blk $name: no block device"
}

tb__file_backend() {
	local size=$1 f

	local dir=${TB_FILE_DIR:-/var/tmp}

	# nvmet sees size 0 through overlayfs (the guest's root): use a plain tmpfs
	[ "$(stat -f -c %T "$dir")" = overlayfs ] && dir=/dev/shm
	f=$(mktemp "$dir/tb-ns-XXXXXX.img") || tb_fail "cannot create a backing file in $dir"
	truncate -s "${size}M" "$f"
	tb__defer "rm -f $f"
	TB__PATH=$f
}

tb_target_tcp() {
	local addr=127.0.0.1 port='' backend=null delay='' nqn='' trtype=tcp size=1024 tls=0
	local subsys path ns p d

	while [ $# -gt 0 ]; do
		case "$1" in
		--addr) addr=$2; shift 2 ;;
		--port) port=$2; shift 2 ;;
		--backend) backend=$2; shift 2 ;;
		--delay-ns) delay=$2; shift 2 ;;
		--nqn) nqn=$2; shift 2 ;;
		--transport) trtype=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--tls) tls=1; shift ;;
		*) tb_fail "tb_target_tcp: unknown option '$1'" ;;
		esac
	done
	case "$backend" in null|file) ;; *) tb_fail "tb_target_tcp: --backend $backend: null or file" ;; esac
	case "$trtype" in tcp|rdma) ;; *) tb_fail "tb_target_tcp: --transport $trtype: tcp or rdma" ;; esac
	if [ -z "$port" ]; then
		port=4420
		[ "$TB_NATIVE" = 1 ] && port=$(tb__free_port 4420)
	fi
	if [ -z "$nqn" ]; then
		TB__NTGT=$((TB__NTGT + 1))
		nqn=nqn.2024-01.io.ntprof:testbed-$$-$TB__NTGT
	fi
	tb__modprobe nvmet "nvmet-$trtype"
	tb__configfs

	subsys=$TB__CFS/nvmet/subsystems/$nqn
	if [ ! -d "$subsys" ]; then
		if [ "$backend" = null ]; then
			tb__nullb "$delay" "$size"
		else
			tb__file_backend "$size"
		fi
		path=$TB__PATH
		mkdir "$subsys" || tb_fail "cannot create nvmet subsystem $nqn"
		tb__defer "rmdir $subsys"
		tb__write "$subsys/attr_allow_any_host" 1
		ns=$subsys/namespaces/1
		mkdir "$ns"
		tb__defer "echo 0 > $ns/enable; rmdir $ns"
		tb__write "$ns/device_path" "$path"
		# tmpfs (the guest's overlay) has no O_DIRECT: the file backend is buffered
		[ "$backend" = file ] && tb__write "$ns/buffered_io" 1
		tb__write "$ns/enable" 1
		TB_NS_PATH=$path
	fi

	# several subsystems may share a port: reuse one with the same address
	p=''
	for d in "$TB__CFS"/nvmet/ports/*; do
		[ -d "$d" ] || continue
		[ "$(cat "$d/addr_trtype")" = "$trtype" ] && [ "$(cat "$d/addr_traddr")" = "$addr" ] &&
			[ "$(cat "$d/addr_trsvcid")" = "$port" ] && p=$d && break
	done
	if [ -z "$p" ]; then
		d=1
		while [ -d "$TB__CFS/nvmet/ports/$d" ]; do
			d=$((d + 1))
		done
		p=$TB__CFS/nvmet/ports/$d
		mkdir "$p" || tb_fail "cannot create nvmet port $d"
		tb__defer "rmdir $p"
		tb__write "$p/addr_trtype" "$trtype"
		tb__write "$p/addr_adrfam" ipv4
		tb__write "$p/addr_traddr" "$addr"
		tb__write "$p/addr_trsvcid" "$port"
		# TLS 1.3 required on the port: before a subsystem is linked to it
		if [ "$tls" = 1 ]; then
			tb__write "$p/addr_tsas" tls1.3
			tb__write "$p/addr_treq" required
		fi
	fi
	if [ ! -e "$p/subsystems/$nqn" ]; then
		ln -s "$subsys" "$p/subsystems/$nqn" ||
			tb_fail "cannot enable port $trtype $addr:$port: $(dmesg | tail -n 2 | tr '\n' ' ')"
		tb__defer "rm -f $p/subsystems/$nqn"
	fi
	TB_NQN=$nqn TB_ADDR=$addr TB_PORT=$port TB_TRANSPORT=$trtype TB_PORT_DIR=$p
	tb_log "target: $nqn ($backend${delay:+, completion ${delay} ns}) on $trtype $addr:$port"
}

# the block device of subsystem $1 that has a /dev node: the multipath head,
# or the namespace itself without multipath (hidden paths nvmeXcYnZ have none)
tb__ns_dev() {
	local nqn=$1 b

	for b in /sys/block/nvme*n*; do
		[ -b "/dev/${b##*/}" ] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$nqn" ] && echo "/dev/${b##*/}" && return 0
	done
	return 1
}

tb_connect() {
	local trtype=${TB_TRANSPORT:-tcp} addr=${TB_ADDR:-127.0.0.1} port=${TB_PORT:-4420}
	local nqn=${TB_NQN:-} before c ctrl='' i out nvme=nvme tls=() queues=()

	while [ $# -gt 0 ]; do
		case "$1" in
		--transport) trtype=$2; shift 2 ;;
		--addr) addr=$2; shift 2 ;;
		--port) port=$2; shift 2 ;;
		--nqn) nqn=$2; shift 2 ;;
		--tls) tls=(--tls); shift ;;
		--nr-io-queues) queues+=(--nr-io-queues="$2"); shift 2 ;;
		--queue-size) queues+=(--queue-size="$2"); shift 2 ;;
		--reconnect-delay) queues+=(--reconnect-delay="$2"); shift 2 ;;
		*) tb_fail "tb_connect: unknown option '$1'" ;;
		esac
	done
	[ -n "$nqn" ] || tb_fail "tb_connect: no --nqn and no target set up"
	tb__modprobe "nvme-$trtype"
	if [ ${#tls[@]} -gt 0 ]; then
		nvme=$TB__TLSBIN/nvme
		tb__tls_psk "$nqn"
	fi
	before=" $(cd /sys/class/nvme 2>/dev/null && echo *) "
	out=$("$nvme" connect -t "$trtype" -a "$addr" -s "$port" -n "$nqn" "${tls[@]}" \
		"${queues[@]}" 2>&1) ||
		tb_fail "$nvme connect -t $trtype -a $addr -s $port -n $nqn ${tls[*]} ${queues[*]}: $out $(dmesg | tail -n 3 | tr '\n' ' ')${tls:+; tlshd: $(tail -n 5 "$TB_OUT/tlshd.log" 2>/dev/null | tr '\n' ' ')}"
	for c in /sys/class/nvme/*; do
		c=${c##*/}
		case "$before" in *" $c "*) continue ;; esac
		[ "$(cat "/sys/class/nvme/$c/subsysnqn" 2>/dev/null)" = "$nqn" ] && ctrl=$c
	done
	[ -n "$ctrl" ] || tb_fail "nvme connect: no new controller for $nqn"
	tb__defer "nvme disconnect -d $ctrl"
	TB_CTRL=$ctrl
	TB_CTRLS="${TB_CTRLS:+$TB_CTRLS }$ctrl"
	# the namespace shows up asynchronously after the scan
	for i in $(seq 100); do
		TB_DEV=$(tb__ns_dev "$nqn") && break
		sleep 0.1
	done
	[ -n "$TB_DEV" ] || tb_fail "no block device for $nqn after connect ($(ls /sys/block | tr '\n' ' '))"
	tb_log "host: $ctrl ($(cat "/sys/class/nvme/$ctrl/transport") $addr:$port) -> $TB_DEV"
}

tb_loop_tcp() {
	tb_target_tcp --addr 127.0.0.1 "$@"
	tb_connect
}

# TLS: trixie's user space (setup.sh --tls), the kernel's TLS and keyring, and tlshd
TB__TLSBIN=${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}/tls/bin
tb__tls_up() {
	local conf=/run/tb-tlshd.conf i

	[ -n "${TB__TLSHD:-}" ] && return 0
	[ -x "$TB__TLSBIN/tlshd" ] && [ -x "$TB__TLSBIN/nvme" ] ||
		tb_fail "no TLS user space in $TB__TLSBIN (tests/testbed/setup.sh --tls makes it)"
	tb__modprobe tls nvme-tcp
	grep -q ' \.nvme: ' /proc/keys ||
		tb_fail "no .nvme keyring in /proc/keys: kernel $(uname -r) built without NVME_TCP_TLS?"
	printf '[debug]\nloglevel=1\ntls=0\nnl=0\n[authenticate]\nkeyrings=.nvme\n' > "$conf"
	"$TB__TLSBIN/tlshd" -c "$conf" -s > "$TB_OUT/tlshd.log" 2>&1 &
	TB__TLSHD=$!
	tb__defer "kill $TB__TLSHD"
	# it serves handshakes once it has linked the keyring
	for i in $(seq 50); do
		grep -q 'linked into our session keyring' "$TB_OUT/tlshd.log" && return 0
		kill -0 "$TB__TLSHD" 2>/dev/null ||
			tb_fail "tlshd exited: $(tail -n 5 "$TB_OUT/tlshd.log" | tr '\n' ' ')"
		sleep 0.1
	done
	tb_fail "tlshd did not link the .nvme keyring in 5 s: $(tail -n 5 "$TB_OUT/tlshd.log" | tr '\n' ' ')"
}

# a TLS PSK for this host and subsystem in the .nvme keyring (host and target share it on loopback)
tb__tls_psk() {
	local nqn=$1 out

	tb__tls_up
	out=$("$TB__TLSBIN/nvme" gen-tls-key --subsysnqn="$nqn" --hostnqn="$(cat /etc/nvme/hostnqn)" \
		--insert 2>&1) || tb_fail "nvme gen-tls-key --insert for $nqn: $out"
	tb_log "TLS PSK: $(echo "$out" | tail -n 1)"
}

tb_loop_tls() {
	tb__tls_up
	tb_target_tcp --addr 127.0.0.1 --tls "$@"
	tb_connect --tls
	TB_TLS_KEY=$(cat "/sys/class/nvme/$TB_CTRL/tls_key" 2>/dev/null) ||
		tb_fail "$TB_CTRL has no tls_key: connected without TLS"
	tb_log "TLS: $TB_CTRL tls_key $TB_TLS_KEY"
}

# soft-RoCE: rxe on "lo" cannot resolve routes (rdma_resolve_route -110), so it
# sits on a dummy netdev with a private address
tb__rxe_up() {
	local ifc=tbdummy$$

	[ -n "${TB_RDMA_ADDR:-}" ] && return 0
	tb__modprobe dummy rdma_rxe
	ip link add "$ifc" type dummy || tb_fail "ip link add $ifc type dummy"
	tb__defer "ip link del $ifc"
	ip addr add 10.99.0.1/24 dev "$ifc" && ip link set "$ifc" up || tb_fail "cannot configure $ifc"
	rdma link add "tbrxe$$" type rxe netdev "$ifc" || tb_fail "rdma link add tbrxe$$ netdev $ifc"
	tb__defer "rdma link delete tbrxe$$"
	TB_RDMA_ADDR=10.99.0.1
}

tb_loop_rdma() {
	tb__rxe_up
	tb_target_tcp --transport rdma --addr "$TB_RDMA_ADDR" "$@"
	tb_connect
}

tb_loop_multipath() {
	local port2 b

	[ "$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null)" = Y ] ||
		tb__modprobe nvme-core
	[ "$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null)" = Y ] ||
		tb_fail "nvme_core multipath is off in $(uname -r)"
	tb_target_tcp --addr 127.0.0.1 "$@"
	port2=$((TB_PORT + 1))
	[ "$TB_NATIVE" = 1 ] && port2=$(tb__free_port "$port2")
	tb_connect
	tb_target_tcp --addr 127.0.0.1 --nqn "$TB_NQN" --port "$port2"
	tb_connect
	TB_PATHS=
	for b in /sys/block/nvme*c*n*; do
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$TB_NQN" ] &&
			TB_PATHS="${TB_PATHS:+$TB_PATHS }${b##*/}"
	done
	tb_log "multipath: head $TB_DEV, paths $TB_PATHS"
}

tb_disconnect() {
	local c

	for c in $TB_CTRLS; do
		nvme disconnect -d "$c" >/dev/null || tb_fail "nvme disconnect -d $c"
	done
	TB_CTRLS=
	TB_DEV=
}

tb_fio() {
	local label=$1 json

	shift
	[ -n "${TB_DEV:-}" ] || tb_fail "tb_fio: no TB_DEV (connect first)"
	json=$TB_OUT/fio-$label.json
	fio --name="$label" --filename="$TB_DEV" --ioengine=libaio --direct=1 \
		--output-format=json --output="$json" "$@" >&2 || tb_fail "fio $label on $TB_DEV failed"
	TB_FIO_IOS=$(jq '[.jobs[] | .read.total_ios + .write.total_ios + .trim.total_ios] | add' "$json") ||
		tb_fail "fio $label: unreadable $json"
	tb_log "fio $label: $TB_FIO_IOS I/Os, $(jq '[.jobs[] | .read.iops + .write.iops] | add | floor' "$json") IOPS"
}

# the requests the request-based disks of controller $TB_CTRL (a path
# nvmeXcYnZ under multipath, nvmeXnY without) have completed: reads, writes,
# discards and flushes from their /sys/block/DEV/stat, whoever issued them
# tb_attached PID FILE PATTERN: true once FILE has a line matching PATTERN (the
# tool started in the background as PID says it is attached); false if PID
# ends first, or after two minutes
tb_attached() {
	local pid=$1 file=$2 pattern=$3

	for _ in $(seq 1 1200); do
		grep -q "$pattern" "$file" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

tb_disk_ios() {
	[ -n "${TB_CTRL:-}" ] || tb_fail "tb_disk_ios: no TB_CTRL (connect first)"
	cat /sys/class/nvme/"$TB_CTRL"/nvme*n*/stat |
		awk '{ n += $1 + $5 + ($12 == "" ? 0 : $12) + ($15 == "" ? 0 : $15) } END { print n + 0 }'
}

tb_net_up() {
	[ -n "${TB_MY_ADDR:-}" ] || tb_fail "tb_net_up: TB_MY_ADDR unset (run-two.sh sets it)"
	tb__modprobe virtio_net
	ip link set eth0 up && ip addr add "$TB_MY_ADDR/24" dev eth0 || tb_fail "cannot configure eth0"
}

tb_netem() {
	local delay=$1 dev=${2:-eth0}

	tb__modprobe sch_netem
	tc qdisc add dev "$dev" root netem delay "$delay" || tb_fail "tc netem delay $delay on $dev"
	tb__defer "tc qdisc del dev $dev root"
	tb_log "netem: $(tc qdisc show dev "$dev" | head -n 1)"
}

# Flags are polled by the other guest through 9p (cache=none). Only bash
# builtins here, no fork: under TCG a fork costs tens of milliseconds, which
# would blur clock comparisons made at a sync point.
tb_sync_signal() {
	[ -d /tb-sync ] || tb_fail "no /tb-sync (run-two.sh shares it)"
	# one write of one line; the reader waits for the newline
	printf '%s\n' "${2:-}" > "/tb-sync/$1"
}

tb__nap() {
	if [ -z "${TB__NAPFD:-}" ]; then
		mkfifo "/tmp/tb-nap-$$" && exec {TB__NAPFD}<>"/tmp/tb-nap-$$"
		rm -f "/tmp/tb-nap-$$"
	fi
	read -r -t "$1" -u "$TB__NAPFD"
}

tb_sync_wait() {
	local name=$1 limit=${2:-120} t0=$SECONDS

	TB_SYNC_TEXT=
	until [ -e "/tb-sync/$name" ] && IFS= read -r TB_SYNC_TEXT < "/tb-sync/$name"; do
		[ $((SECONDS - t0)) -ge "$limit" ] && tb_fail "no '$name' from the other guest in ${limit}s"
		tb__nap 0.01
	done
	return 0
}

tb_workdir() {
	TB_WORK=$(mktemp -d "/var/tmp/ntprof-$1-XXXXXX") || tb_fail "mktemp /var/tmp/ntprof-$1-XXXXXX"
	tb__defer "rm -rf $TB_WORK"
}

# native mode: a recorder a failed script left running is stopped at exit
tb__record_kill() {
	[ -n "${TB__RECPID[$1]:-}" ] || return 0
	kill -INT "${TB__RECPID[$1]}" && wait "${TB__RECPID[$1]}"
	unset "TB__RECPID[$1]"
}

tb_record_start() {
	local name=$1 i

	shift
	"${NTPROF:-$TB_REPO/build/ntprof}" record "$@" > "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err" &
	TB__RECPID[$name]=$!
	tb__defer "tb__record_kill $name"
	for i in $(seq 1 1200); do
		grep -q 'programs attached' "$TB_OUT/$name.err" && break
		kill -0 "${TB__RECPID[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'programs attached' "$TB_OUT/$name.err" || {
		cat "$TB_OUT/$name.err" >&2
		tb_fail "$name: ntprof record did not attach"
	}
}

tb_record_stop() {
	local name=$1 rc

	[ -n "${TB__RECPID[$name]:-}" ] || tb_fail "tb_record_stop: no recorder '$name' running"
	kill -INT "${TB__RECPID[$name]}"
	wait "${TB__RECPID[$name]}"
	rc=$?
	unset "TB__RECPID[$name]"
	tb_res "${name}_rc" "$rc"
	cat "$TB_OUT/$name.err" >&2
}

tb_collect() {
	local name=$1

	[ -n "${TB_WORK:-}" ] || tb_fail "tb_collect: no TB_WORK (tb_workdir first)"
	cp "$TB_WORK/$name".ntp* "$TB_OUT/" || tb_fail "$name: no recording $TB_WORK/$name.ntp"
}

tb_bpf_progs() {
	bpftool prog list 2>/dev/null | grep -c -E '^[0-9]+: '
}

tb_fio_mix() {
	local dev=$1 name=$2

	TB_FIO_MIX=(fio --output-format=json --output="$TB_OUT/fio-$name.json"
		--filename="$dev" --ioengine=libaio --direct=1 --time_based --runtime=4 --size=200M
		--name=r4k --rw=randread --bs=4k --iodepth=4
		--name=w4k --rw=randwrite --bs=4k --iodepth=4
		--name=w128k --rw=write --bs=128k --iodepth=2)
}

tb_fio_qd1() {
	local dev=$1 nullb=$2 i st0 st1

	# three tries in their own regions (a test takes the least disturbed: a
	# loaded build machine stretches the guest's timer interrupts)
	for i in 1 2 3; do
		read -r -a st0 < "/sys/block/$nullb/stat"
		fio --output-format=json --output="$TB_OUT/fio-qd1-$i.json" --filename="$dev" \
			--ioengine=libaio --direct=1 --name=qd1 --rw=randread --bs=4k --iodepth=1 \
			--offset=$((384 + 128 * i))M --size=1M >&2 || tb_fail "fio qd1 failed"
		read -r -a st1 < "/sys/block/$nullb/stat"
		# reads completed, and the milliseconds they took, summed from nanoseconds
		tb_res "qd1_${i}_dev_reads" $((st1[0] - st0[0]))
		tb_res "qd1_${i}_dev_ms" $((st1[3] - st0[3]))
	done
}

tb_record_sampled() {
	local dev=$1 transport=$2 one_in=$3

	tb_record_start samp_target -r target -t "$transport" -s "$one_in" \
		-o "$TB_WORK/samp_target.ntp"
	"${NTPROF:-$TB_REPO/build/ntprof}" record -r host -t "$transport" -s "$one_in" \
		-o "$TB_WORK/samp_host.ntp" -- \
		fio --output-format=json --output="$TB_OUT/fio-samp.json" --filename="$dev" \
		--ioengine=libaio --direct=1 \
		--name=r4k --rw=randread --bs=4k --size=4M --iodepth=8 \
		--name=w4k --offset=64M --rw=randwrite --bs=4k --size=2M --iodepth=4 \
		--name=w128k --offset=128M --rw=write --bs=128k --size=8M --iodepth=2 \
		> "$TB_OUT/samp_host.out" 2> "$TB_OUT/samp_host.err"
	tb_res samp_host_rc $?
	tb_record_stop samp_target
	tb_collect samp_host
	tb_collect samp_target
}

ip link set lo up 2>/dev/null
[ "$TB_NATIVE" = 1 ] && trap tb__undo_all EXIT
