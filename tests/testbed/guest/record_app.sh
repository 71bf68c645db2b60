# SPDX-License-Identifier: GPL-2.0
# record_app.sh - guest side of test_record_app.py: fio with io_uring, libaio
# and psync at queue depth 1 and 16 (psync: 1) on a loopback NVMe/TCP
# namespace, each run under its own `ntprof record -s 1`, so that every
# command has the application's columns (h_app_submit_ns, h_app_done_ns, ...)
# to set beside fio's own latency.
#
#   record_app.sh [RUN...]   (default: every run below)
#   RUN: uring_qd1 uring_qd16 libaio_qd1 libaio_qd16 psync_qd1 psync_qd16 (psync
#        is synchronous: queue depth 16 is 16 jobs, one I/O each), and the same
#        with _kp after the engine (libaio_kp_qd16): record --kprobes, or
#        _noapp (libaio_noapp_qd16): record --no-app
#   APP_SECONDS  fio run time per run (default 3)
# Results (result.env): kernel, runs, <run>_rc, <run>_pid (fio's job
# process, from fio's JSON); $TB_OUT gets <run>.ntp and fio-<run>.json.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
SECS=${APP_SECONDS:-3}
RUNS=("$@")
[ ${#RUNS[@]} -gt 0 ] || RUNS=(uring_qd1 uring_qd16 libaio_qd1 libaio_qd16 psync_qd1 psync_qd16
				uring_kp_qd16 libaio_kp_qd16 psync_kp_qd1 libaio_noapp_qd16)
tb_workdir app
tb_res kernel "$(uname -r)"
tb_loop_tcp

for run in "${RUNS[@]}"; do
	case "$run" in
	uring_*) engine=io_uring ;;
	libaio_*) engine=libaio ;;
	psync_*) engine=psync ;;
	*) tb_fail "record_app.sh: unknown run '$run'" ;;
	esac
	qd=${run##*_qd}
	jobs=()
	[ "$engine" = psync ] && [ "$qd" -gt 1 ] && jobs=(--numjobs="$qd" --group_reporting) && qd=1
	flavour=()
	case "$run" in *_kp_*) flavour=(--kprobes) ;; *_noapp_*) flavour=(--no-app) ;; esac
	"$NTPROF" record -r host -s 1 "${flavour[@]}" -o "$TB_WORK/$run.ntp" -- \
		fio --name="$run" --filename="$TB_DEV" --ioengine="$engine" --iodepth="$qd" "${jobs[@]}" \
		--direct=1 --rw=randread --bs=4k --size=256M --runtime="$SECS" --time_based \
		--eta=never --output-format=json --output="$TB_WORK/fio-$run.json" \
		> "$TB_OUT/$run.out" 2> "$TB_OUT/$run.err"
	tb_res "${run}_rc" "$?"
	cp "$TB_WORK/fio-$run.json" "$TB_OUT/" || tb_fail "$run: no fio JSON"
	tb_collect "$run"
done
tb_res runs "${RUNS[*]}"
tb_disconnect
