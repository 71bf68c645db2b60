#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - `make demo`: from a fresh Debian 12 machine, prepare the test bed,
# boot a guest, create a loopback NVMe/TCP namespace (or, with --transport
# rdma, a loopback NVMe/RDMA one over soft-RoCE, rdma_rxe), run fio on it, and
# when ntprof is built run that fio under `ntprof record` and print
# `ntprof report`.
#
#   tests/testbed/demo.sh [--transport tcp|rdma] [--kernel 6.1|6.12] [--out DIR] [--native]
#
# Env: DEMO_TRANSPORT, DEMO_KERNEL (the defaults of --transport, --kernel:
# `sudo make demo DEMO_TRANSPORT=rdma`), NTPROF (the ntprof binary the guest
# runs, built already; `make demo` passes its own; default: build it here and
# use build/ntprof).
# Needs root and network access to the Debian mirror on the first run (packages,
# the kernel package); later runs use the cache (tests/testbed/README.md).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TRANSPORT=${DEMO_TRANSPORT:-tcp}
KERNEL=${DEMO_KERNEL:-6.1}
OUT=
NATIVE=()

usage() {
	sed -n 's/^#   tests/tests/p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--transport) TRANSPORT=${2:?}; shift 2 ;;
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--native) NATIVE=(--native); shift ;;
	*) usage ;;
	esac
done
case "$TRANSPORT" in
tcp|rdma) ;;
*) echo "demo.sh: error: transport '$TRANSPORT' (--transport, DEMO_TRANSPORT): tcp or rdma" >&2; usage ;;
esac

t0=$SECONDS
[ ${#NATIVE[@]} -gt 0 ] || "$HERE/setup.sh" --kernel "$KERNEL"
# `make demo` has built everything already (and says where: NTPROF); run
# directly without NTPROF, build here
[ -n "${MAKELEVEL:-}" ] || [ -n "${NTPROF:-}" ] || make -C "$REPO" -s
ENV=()
[ -z "${NTPROF:-}" ] || ENV=(--env "NTPROF=$NTPROF")
t1=$SECONDS
echo "demo: setup and build took $((t1 - t0)) s; booting the $KERNEL guest for NVMe/${TRANSPORT^^} (under TCG this is slow: timings are not performance data)"
"$HERE/run.sh" -v --kernel "$KERNEL" --timeout 300 ${OUT:+--out "$OUT"} "${NATIVE[@]}" "${ENV[@]}" \
	"$HERE/guest/demo.sh" "$TRANSPORT"
echo "demo: done in $((SECONDS - t0)) s"
