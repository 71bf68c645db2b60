# SPDX-License-Identifier: GPL-2.0
# demo.sh (guest side) - loopback NVMe/TCP namespace, fio on it, and when
# ntprof is built, the same fio under `ntprof record` followed by its report.
#   NTPROF   the ntprof binary (default: $TB_REPO/build/ntprof)
#   DEMO_FIO_SECONDS  fio run time (default 5)
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
SECS=${DEMO_FIO_SECONDS:-5}
FIO=(fio --name=demo --filename=DEV --ioengine=libaio --direct=1 --rw=randread --bs=4k
     --iodepth=8 --runtime="$SECS" --time_based --eta=never)

banner() {
	printf '\n==== %s ====\n' "$*"
}

banner "kernel $(uname -r): loopback NVMe/TCP (nvmet-tcp + nvme-tcp, null_blk)"
tb_loop_tcp
nvme list 2>/dev/null
echo "controller $TB_CTRL: transport $(cat "/sys/class/nvme/$TB_CTRL/transport"), $(cat "/sys/class/nvme/$TB_CTRL/address")"
FIO[2]=--filename=$TB_DEV

if [ -x "$NTPROF" ] && "$NTPROF" record --help >/dev/null 2>&1; then
	# the recording lives on the guest's tmpfs (SQLite cannot lock files on 9p)
	banner "ntprof record -r both -s 1 -o /tmp/demo.ntp -- ${FIO[*]}"
	"$NTPROF" record -r both -s 1 -o /tmp/demo.ntp -- "${FIO[@]}"
	rc=$?
	tb_res record_rc "$rc"
	[ "$rc" = 0 ] || tb_fail "ntprof record exited $rc"
	cp /tmp/demo.ntp "$TB_OUT/demo.ntp"
	# record printed the report; show that the file is plain SQLite too
	banner "sqlite3 demo.ntp: the first sampled commands, stage by stage (ns)"
	sqlite3 -header -column /tmp/demo.ntp \
		'SELECT io_type, bytes, e2e_ns, block_ns, driver_ns, network_star_ns FROM host_stages LIMIT 5' ||
		tb_fail "sqlite3 on the recording failed"
	echo
	echo "(the recording is saved as $TB_OUT/demo.ntp: on the build machine, see --out)"
else
	banner "${FIO[*]} ($NTPROF not built: fio only)"
	"${FIO[@]}" || tb_fail "fio failed"
fi
tb_disconnect
tb_res demo done
