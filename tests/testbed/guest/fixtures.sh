# SPDX-License-Identifier: GPL-2.0
# fixtures.sh - guest side of test_fixtures.py: the other target fixtures of
# lib.sh, one boot for all of them.
#   file       tb_loop_tcp --backend file: write + verify through NVMe/TCP
#   delay      tb_loop_tcp --delay-ns N: null_blk irqmode=2 completion_nsec=N
#   multipath  tb_loop_multipath: one namespace, two ports, two paths, one head;
#              round-robin I/O policy so both paths carry I/O
#
#   fixtures.sh [file] [delay] [multipath]        (default: all)
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

DELAY_NS=250000

# reads (field 1) + writes (field 5) completed on a block device
dev_ios() {
	awk '{ print $1 + $5 }' "/sys/block/$1/stat"
}

fix_file() {
	tb_loop_tcp --backend file --size 64
	tb_res file_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
	tb_res file_ns_path "$TB_NS_PATH"
	[ -f "$TB_NS_PATH" ] && tb_res file_ns_is_file 1
	# data must survive the round trip: null_blk would not store it
	tb_fio file --rw=write --bs=4k --size=2M --iodepth=4 --verify=crc32c --do_verify=1 --eta=never
	tb_res file_fio_ios "$TB_FIO_IOS"
	tb_res file_fio_errors "$(jq '[.jobs[].error] | add' "$TB_OUT/fio-file.json")"
	tb_disconnect
}

fix_delay() {
	local d

	tb_loop_tcp --delay-ns "$DELAY_NS"
	for d in /sys/kernel/config/nullb/*/; do
		[ "$(cat "$d/power")" = 1 ] || continue
		[ "/dev/$(basename "$d")" = "$TB_NS_PATH" ] || [ "/dev/nullb$(cat "$d/index")" = "$TB_NS_PATH" ] ||
			continue
		tb_res delay_irqmode "$(cat "$d/irqmode")"
		tb_res delay_completion_nsec "$(cat "$d/completion_nsec")"
	done
	tb_fio delay --rw=randread --bs=4k --size=1M --iodepth=4 --eta=never
	tb_res delay_fio_ios "$TB_FIO_IOS"
	tb_res delay_clat_mean_ns "$(jq '.jobs[0].read.clat_ns.mean | floor' "$TB_OUT/fio-delay.json")"
	tb_disconnect
}

fix_multipath() {
	local p head subsys before=0 after=0 n

	tb_loop_multipath
	head=${TB_DEV#/dev/}
	tb_res mp_head "$head"
	tb_res mp_paths "$TB_PATHS"
	tb_res mp_ctrls "$TB_CTRLS"
	for c in $TB_CTRLS; do
		tb_res "mp_${c}_transport" "$(cat "/sys/class/nvme/$c/transport")"
		tb_res "mp_${c}_state" "$(cat "/sys/class/nvme/$c/state")"
		tb_res "mp_${c}_trsvcid" "$(sed -n 's/.*trsvcid=\([0-9]*\).*/\1/p' "/sys/class/nvme/$c/address")"
	done
	subsys=$(ls -d /sys/class/nvme-subsystem/*/"$head" 2>/dev/null | head -n 1)
	subsys=${subsys%/*}
	[ -n "$subsys" ] || tb_fail "no nvme-subsystem holds $head"
	tb__write "$subsys/iopolicy" round-robin
	tb_res mp_iopolicy "$(cat "$subsys/iopolicy")"
	for p in $TB_PATHS; do
		eval "before_$p=$(dev_ios "$p")"
	done
	tb_fio multipath --rw=randread --bs=4k --size=4M --iodepth=8 --eta=never
	tb_res mp_fio_ios "$TB_FIO_IOS"
	n=0
	for p in $TB_PATHS; do
		eval "before=\$before_$p"
		after=$(dev_ios "$p")
		tb_res "mp_path_ios_$n" "$((after - before))"
		n=$((n + 1))
	done
	tb_disconnect
}

[ $# -gt 0 ] || set -- file delay multipath
tb_res kernel "$(uname -r)"
for f in "$@"; do
	case "$f" in
	file) fix_file ;;
	delay) fix_delay ;;
	multipath) fix_multipath ;;
	*) tb_fail "fixtures.sh: unknown fixture '$f'" ;;
	esac
done
tb_res fixtures "done"
