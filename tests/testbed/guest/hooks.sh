# SPDX-License-Identifier: GPL-2.0
# hooks.sh - guest side of test_hooks.py: what each hook gets on this kernel
# and what happens when one cannot be had, in one boot, on a loopback
# NVMe/TCP target (null_blk, 100 us completions).  Every run records -s 1
# while fio issues a fixed number of 4k reads (every block once), so each
# count is exact.
#
#   hooks.sh [all]     check -j, t_kprobes, failinit and wrongkp; with "all"
#                      every step below (the newest kernel's full set)
#
#   check      `ntprof check` as text and JSON (check.txt, check.json), and
#              -r target with NTPROF_FAIL_LOAD=nvmet_req_init (check-failinit.json)
#   t_<mode>   `record -r target` in AUTO, --fentry and --kprobes mode
#   failinit   NTPROF_FAIL_LOAD=nvmet_req_init, AUTO: the kernel refuses the
#              decision's programs; the tracepoint takes the decision
#   faildone   NTPROF_FAIL_LOAD=nvme_complete_rq, -r host: h_done at its tracepoint
#   wrongfe    NTPROF_WRONG_PROTO=nvmet_req_init --fentry: the program for the
#              other prototype: on 7.3 the verifier refuses it and the
#              tracepoint decides; on 6.x it loads and decides nothing, exit 13
#   wrongkp    NTPROF_WRONG_PROTO=nvmet_req_init --kprobes: it attaches and
#              decides nothing; the cross-check says so, exit 13
#   nodecide   NTPROF_FAIL_LOAD=tp_btf/nvme_setup_cmd, -r host: nothing stands in, exit 3
# Files in $TB_OUT: <name>.ntp, <name>.out/.err, fio-<name>.json.  Results
# (result.env): kernel, kpkg, reads (fio's I/O count per run), <name>_rc,
# <name>_ios.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
tb_workdir hooks

tb_res kernel "$(uname -r)"
tb_res kpkg "$(cat "$NTPROF_TB_DIR/kernels/$TB_KERNEL/kpkg" 2>/dev/null)"
tb_loop_tcp --delay-ns 100000
READS=512

# `ntprof record OPTS -s 1 -o NAME.ntp -- fio` (512 4k reads), environment ENV...
# before the name: NAME_rc, NAME_ios (fio's I/O count)
rec() {
	local name=$1 ios
	shift
	local envs=()

	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$NTPROF" record "$@" -s 1 -o "$TB_WORK/$name.ntp" -- \
		fio --name="$name" --filename="$TB_DEV" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --size=$((READS * 4))k --iodepth=4 --output-format=json \
		--output="$TB_OUT/fio-$name.json" > "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err"
	tb_res "${name}_rc" $?
	cat "$TB_OUT/$name.err" >&2
	ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$TB_OUT/fio-$name.json" \
		2>/dev/null)
	tb_res "${name}_ios" "${ios:-none}"
	tb_collect "$name"
}

ALL=0
[ "${1:-}" = all ] && ALL=1
tb_res all "$ALL"

"$NTPROF" check -j "$TB_OUT/check.json" 2> "$TB_OUT/check.err"
tb_res check_json_rc $?
rec t_kprobes -- -r target --kprobes
rec failinit NTPROF_FAIL_LOAD=nvmet_req_init -- -r target
rec wrongkp NTPROF_WRONG_PROTO=nvmet_req_init -- -r target --kprobes
if [ "$ALL" = 1 ]; then
	"$NTPROF" check > "$TB_OUT/check.txt" 2>> "$TB_OUT/check.err"
	tb_res check_rc $?
	NTPROF_FAIL_LOAD=nvmet_req_init "$NTPROF" check -r target -j "$TB_OUT/check-failinit.json" \
		2>> "$TB_OUT/check.err"
	tb_res check_failinit_rc $?
	rec t_auto -- -r target
	rec t_fentry -- -r target --fentry
	rec faildone NTPROF_FAIL_LOAD=nvme_complete_rq -- -r host
	rec wrongfe NTPROF_WRONG_PROTO=nvmet_req_init -- -r target --fentry
	NTPROF_FAIL_LOAD=tp_btf/nvme_setup_cmd "$NTPROF" record -r host -d 1 \
		-o "$TB_WORK/nodecide.ntp" > "$TB_OUT/nodecide.out" 2> "$TB_OUT/nodecide.err"
	tb_res nodecide_rc $?
fi
tb_disconnect
tb_res hooks_done 1
