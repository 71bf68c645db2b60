#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-two.sh - two test bed guests, a target and a host, on one emulated network.
#
#   tests/testbed/run-two.sh [--kernel 6.1|6.12] [--timeout SEC] [--out DIR]
#                            [--skew SEC] [--env NAME=VALUE]... SCRIPT [ARGS...]
#
# Both guests run `bash SCRIPT ARGS` (see run.sh) with TB_ROLE=target or host,
# TB_MY_ADDR and TB_PEER_ADDR (target 10.0.0.1, host 10.0.0.2 on eth0, which
# lib.sh's tb_net_up configures). Their NICs are joined by a QEMU stream socket
# (a Unix socket in DIR: no TCP port on this machine). Each guest has its own
# kernel and clock; --skew starts the target's wall clock SEC seconds off this
# machine's (whole seconds, e.g. -30). The folder DIR/sync is shared by both at
# /tb-sync for flags (tb_sync_signal / tb_sync_wait). Results: DIR/target/ and
# DIR/host/, each with console.log and result.env. Exit status: 0 when both
# scripts exit 0, else the first failure's (a failing guest stops the other).
# Each guest gets 1 vCPU and 1536 MiB (TB_TWO_SMP, TB_TWO_MEM).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TB_DIR=${NTPROF_TB_DIR:-/var/tmp/ntprof-testbed}
SERIES=6.1
TIMEOUT=300
OUT=
SKEW=0
ENVS=()

usage() {
	sed -n 's/^#   tests/tests/p; s/^#                            /                            /p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) SERIES=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--skew) SKEW=${2:?}; shift 2 ;;
	--env) ENVS+=(--env "${2:?}"); shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "run-two.sh: error: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
[[ "$SKEW" =~ ^-?[0-9]+$ ]] || { echo "run-two.sh: error: --skew takes whole seconds" >&2; exit 2; }
if [ -z "$OUT" ]; then
	mkdir -p "$TB_DIR/out"
	OUT=$(mktemp -d "$TB_DIR/out/two-$(date +%Y%m%d-%H%M%S)-XXXXXX")
fi
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
rm -rf "$OUT/sync" "$OUT/target" "$OUT/host"
mkdir -p "$OUT/sync" "$OUT/target" "$OUT/host"
SOCK=$OUT/net.sock
rm -f "$SOCK"
if [ ${#SOCK} -ge 100 ]; then
	# sun_path holds 108 bytes
	SOCK=$(mktemp -u /tmp/tb-net-XXXXXX.sock)
fi

START=$SECONDS
PIDS=()
common=(--kernel "$SERIES" --timeout "$TIMEOUT" --smp "${TB_TWO_SMP:-1}"
	--mem "${TB_TWO_MEM:-1536}" --sync "$OUT/sync" "${ENVS[@]}")

# each run.sh in its own process group, so a failure can stop the other guest
setsid "$HERE/run.sh" "${common[@]}" --name target --out "$OUT/target" \
	--nic "server:$SOCK" --mac 52:54:00:00:00:01 --rtc-offset "$SKEW" \
	--env TB_ROLE=target --env TB_MY_ADDR=10.0.0.1 --env TB_PEER_ADDR=10.0.0.2 \
	-- "$@" > "$OUT/target.log" 2>&1 &
PIDS+=($!)
# the host's QEMU connects to the target's socket: wait until it listens
for _ in $(seq 150); do
	[ -S "$SOCK" ] && break
	kill -0 "${PIDS[0]}" 2>/dev/null || break
	sleep 0.2
done
setsid "$HERE/run.sh" "${common[@]}" --name host --out "$OUT/host" \
	--nic "client:$SOCK" --mac 52:54:00:00:00:02 \
	--env TB_ROLE=host --env TB_MY_ADDR=10.0.0.2 --env TB_PEER_ADDR=10.0.0.1 \
	-- "$@" > "$OUT/host.log" 2>&1 &
PIDS+=($!)

rc=0
while [ ${#PIDS[@]} -gt 0 ]; do
	wait -n -p finished "${PIDS[@]}"
	r=$?
	left=()
	for p in "${PIDS[@]}"; do
		[ "$p" = "$finished" ] || left+=("$p")
	done
	PIDS=("${left[@]}")
	if [ "$r" != 0 ] && [ "$rc" = 0 ]; then
		rc=$r
		for p in "${PIDS[@]}"; do
			kill -TERM -- "-$p" 2>/dev/null
		done
	fi
done
rm -f "$SOCK"

for role in target host; do
	echo "== $role: $(tail -n 1 "$OUT/$role.log")"
	[ "$rc" = 0 ] || grep -v '^run.sh: rc=' "$OUT/$role.log" | tail -n 25 | sed "s/^/[$role] /"
done >&2
echo "run-two.sh: rc=$rc wall=$((SECONDS - START))s out=$OUT" >&2
exit "$rc"
