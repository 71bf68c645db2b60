# SPDX-License-Identifier: GPL-2.0
# tls.sh - guest side of test_tls.py: NVMe/TCP without and with TLS on the
# same kernel, recorded alike, to see where TLS moves the time.
#
# Two loopback targets on one null_blk each (100 us completions): plain TCP
# on port 4420, TLS 1.3 with a PSK on 4421 (tb_loop_tls: trixie's nvme-cli
# and tlshd, tests/testbed/setup.sh --tls).  On each, `ntprof record -r both
# -s 1 -- fio` of 512 4k random reads at queue depth 1, then `ntprof report
# -j` of the recording.  Files in $TB_OUT: plain.ntp, tls.ntp, their
# .out/.err and .json, fio-*.json, tlshd.log.  Results (result.env): kernel,
# kpkg, tls_versions (nvme-cli and ktls-utils), tls_key, <name>_rc,
# <name>_report_rc, <name>_ios.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
tb_workdir tls
tb_res kernel "$(uname -r)"
tb_res kpkg "$(cat "$NTPROF_TB_DIR/kernels/$TB_KERNEL/kpkg" 2>/dev/null)"
tb_res tls_versions "$(grep -E '^(nvme-cli|ktls-utils) ' "$NTPROF_TB_DIR/tls/versions" | paste -sd, )"

run() {
	local name=$1 ios

	"$NTPROF" record -r both -s 1 -o "$TB_WORK/$name.ntp" -- \
		fio --name="$name" --filename="$TB_DEV" --ioengine=libaio --direct=1 --rw=randread \
		--bs=4k --size=2M --iodepth=1 --output-format=json --output="$TB_OUT/fio-$name.json" \
		> "$TB_OUT/$name.out" 2> "$TB_OUT/$name.err"
	tb_res "${name}_rc" $?
	cat "$TB_OUT/$name.err" >&2
	ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$TB_OUT/fio-$name.json")
	tb_res "${name}_ios" "${ios:-none}"
	tb_collect "$name"
	"$NTPROF" report -j "$TB_OUT/$name.json" "$TB_WORK/$name.ntp" > /dev/null 2> "$TB_OUT/$name.report.err"
	tb_res "${name}_report_rc" $?
}

tb_loop_tcp --delay-ns 100000 --port 4420
run plain
tb_disconnect
tb_loop_tls --delay-ns 100000 --port 4421
tb_res tls_key "$TB_TLS_KEY"
run tls
tb_disconnect
tb_res tls_done 1
