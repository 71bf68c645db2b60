# SPDX-License-Identifier: GPL-2.0
# old_kernel.sh - guest side of test_old_kernel.py: on a kernel ntprof cannot
# record (Debian 11's 5.10: no BTF for modules), `ntprof check` and `ntprof
# record` each say what is missing in one line, with the nvme modules loaded.
# Files in $TB_OUT: check.out/.err, record.out/.err.  Results (result.env):
# kernel, kpkg, check_rc, record_rc, module_btf (whether /sys/kernel/btf/nvme_tcp
# exists), vmlinux_btf.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"

tb_res kernel "$(uname -r)"
tb_res kpkg "$(cat "$NTPROF_TB_DIR/kernels/$TB_KERNEL/kpkg" 2>/dev/null)"
tb__modprobe nvme-tcp nvmet nvmet-tcp
tb_res vmlinux_btf "$([ -e /sys/kernel/btf/vmlinux ] && echo 1 || echo 0)"
tb_res module_btf "$([ -e /sys/kernel/btf/nvme_tcp ] && echo 1 || echo 0)"
"$NTPROF" check > "$TB_OUT/check.out" 2> "$TB_OUT/check.err"
tb_res check_rc $?
tb_workdir old
"$NTPROF" record -d 1 -o "$TB_WORK/old.ntp" > "$TB_OUT/record.out" 2> "$TB_OUT/record.err"
tb_res record_rc $?
tb_res record_file "$([ -e "$TB_WORK/old.ntp" ] && echo 1 || echo 0)"
cat "$TB_OUT/check.out" "$TB_OUT/check.err" "$TB_OUT/record.err" >&2
tb_res old_done 1
