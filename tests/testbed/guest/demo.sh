# SPDX-License-Identifier: GPL-2.0
# demo.sh (guest side) - a loopback NVMe/TCP namespace (or, with "rdma", a
# loopback NVMe/RDMA one over soft-RoCE), fio on it, and when ntprof is built,
# the same fio under `ntprof record -r both` followed by its report and a
# sqlite3 query on the saved recording.
#
#   tests/testbed/guest/demo.sh [tcp|rdma]      (default tcp)
#
#   NTPROF   the ntprof binary (default: $TB_REPO/build/ntprof)
#   DEMO_FIO_SECONDS  fio run time (default 5)
# Results (result.env, for test_demo.py): kernel, transport, ctrl_transport,
# record_rc, sqlite_rc, demo.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

TRANSPORT=${1:-tcp}
NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
SECS=${DEMO_FIO_SECONDS:-5}
FIO=(fio --name=demo --filename=DEV --ioengine=libaio --direct=1 --rw=randread --bs=4k
     --iodepth=8 --runtime="$SECS" --time_based --eta=never)

banner() {
	printf '\n==== %s ====\n' "$*"
}

tb_res kernel "$(uname -r)"
tb_res transport "$TRANSPORT"
case "$TRANSPORT" in
tcp)
	banner "kernel $(uname -r): loopback NVMe/TCP (nvmet-tcp + nvme-tcp, null_blk)"
	tb_loop_tcp
	;;
rdma)
	banner "kernel $(uname -r): loopback NVMe/RDMA over soft-RoCE (rdma_rxe) (nvmet-rdma + nvme-rdma, null_blk)"
	tb_loop_rdma
	;;
*)
	tb_fail "demo.sh: transport '$TRANSPORT': tcp or rdma"
	;;
esac
nvme list 2>/dev/null
tb_res ctrl_transport "$(cat "/sys/class/nvme/$TB_CTRL/transport")"
echo "controller $TB_CTRL: transport $(cat "/sys/class/nvme/$TB_CTRL/transport"), $(cat "/sys/class/nvme/$TB_CTRL/address")"
FIO[2]=--filename=$TB_DEV

if [ -x "$NTPROF" ] && "$NTPROF" record --help >/dev/null 2>&1; then
	# the recording lives on the guest's own file system (SQLite cannot
	# lock files on the 9p share $TB_OUT); it is copied out at the end
	WORK=$(mktemp -d /var/tmp/ntprof-demo-XXXXXX) || tb_fail "mktemp"
	NTP=$WORK/demo.ntp
	banner "ntprof record -r both -t $TRANSPORT -s 1 -o $NTP -- ${FIO[*]}"
	"$NTPROF" record -r both -t "$TRANSPORT" -s 1 -o "$NTP" -- "${FIO[@]}"
	rc=$?
	tb_res record_rc "$rc"
	[ "$rc" = 0 ] || tb_fail "ntprof record exited $rc"
	cp "$NTP" "$TB_OUT/demo.ntp" || tb_fail "cannot copy $NTP to $TB_OUT"
	# record printed the report; show that the file is plain SQLite too
	banner "sqlite3 demo.ntp: the first sampled commands, stage by stage (ns)"
	sqlite3 -header -column "$NTP" \
		'SELECT io_type, bytes, e2e_ns, block_ns, driver_ns, network_star_ns FROM host_stages LIMIT 5'
	rc=$?
	tb_res sqlite_rc "$rc"
	[ "$rc" = 0 ] || tb_fail "sqlite3 on the recording failed"
	# fio's lat runs from its system call to its taking the completion;
	# ntprof's end-to-end is the block layer to nvme_complete_rq inside it
	echo
	sqlite3 "$NTP" "SELECT printf('fio''s lat is what ntprof calls the application''s end-to-end: ' ||
		'%.0f us mean = submit %.0f + end-to-end (the NVMe-oF window) %.0f + complete %.0f' ||
		' + reap %.0f (ntprof-design(7), \"The application''s side\")',
		avg(app_e2e_ns) / 1e3, avg(submit_ns) / 1e3, avg(e2e_ns) / 1e3, avg(complete_ns) / 1e3,
		avg(COALESCE(reap_ns, 0)) / 1e3)
		FROM host_app_stages WHERE app_e2e_ns IS NOT NULL"
	echo
	echo "(the recording is saved as $TB_OUT/demo.ntp: on the build machine, see --out)"
else
	banner "${FIO[*]} ($NTPROF not built: fio only)"
	"${FIO[@]}" || tb_fail "fio failed"
fi
tb_disconnect
tb_res demo done
