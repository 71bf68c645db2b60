# SPDX-License-Identifier: GPL-2.0
# top.sh - guest side of test_top.py: `ntprof top -s 1` live, in a tmux
# (the build machine's, through the shared root) of 130 x 30, while fio
# reads a loopback NVMe/TCP namespace on null_blk (1 ms completion delay).
#
# top starts in the tmux window after the shell saved its stty settings;
# once its screen is up and its programs attached (a first refresh), fio
# runs a 4k randread job of a fixed count; the pane is captured while fio
# runs (pane-N.txt, every second) and once after it, the whole run shown
# (key t: pane-total.txt); paused (space), fio runs again (paused.txt),
# and space again (resumed.txt); then q, and the shell's screen and stty
# settings once more (pane-after.txt, stty.before, stty.after).
# Results: kernel, dev, fio_ios, fio_ios_paused, top_rc, panes.
. "${TB_LIB:-tests/testbed/guest/lib.sh}"

NTPROF=${NTPROF:-$TB_REPO/build/ntprof}
[ -x "$NTPROF" ] || tb_fail "$NTPROF missing: build it (make) before booting"
command -v tmux > /dev/null || tb_fail "no tmux on the build machine (make deps)"
tb_workdir top
SOCK=ntprof-tb-top
TMUX_CMD="tmux -L $SOCK -f /dev/null"
tb__defer "$TMUX_CMD kill-server"

tb_res kernel "$(uname -r)"
tb_loop_tcp --delay-ns 1000000
tb_res dev "$TB_DEV"

pane() {
	$TMUX_CMD capture-pane -p -t top > "$TB_OUT/$1.txt"
}

# wait up to $2 tenths of a second for the pane to match $1
pane_wait() {
	for _ in $(seq 1 "$2"); do
		$TMUX_CMD capture-pane -p -t top | grep -q -E "$1" && return 0
		sleep 0.1
	done
	return 1
}

TERM=xterm $TMUX_CMD new-session -d -s top -x 130 -y 30 -c "$TB_WORK" \
	"env PS1='$ ' bash --norc --noprofile"
pane_wait '\$' 100 || tb_fail "tmux: no shell prompt"
$TMUX_CMD send-keys -t top "stty -g > stty.before; $NTPROF top -s 1 2> top.err; echo rc=\$?" Enter
# the screen, then a refresh after the programs are attached (the recording runs)
pane_wait '^ntprof top  [0-9.]+s' 1200 || { pane start; tb_fail "no top screen"; }
pane_wait '^ntprof top  [1-9][0-9.]*s' 1200 || { pane start; tb_fail "top never refreshed"; }

(
	n=0
	while [ ! -e "$TB_WORK/pane-stop" ]; do
		pane "pane-$n"
		n=$((n + 1))
		sleep 1
	done
) &
CAPTURER=$!
tb_fio randread4k --rw=randread --bs=4k --size=8M --iodepth=4
tb_res fio_ios "$TB_FIO_IOS"
touch "$TB_WORK/pane-stop"
wait $CAPTURER
tb_res panes "$(find "$TB_OUT" -maxdepth 1 -name "pane-[0-9]*.txt" | wc -l)"

$TMUX_CMD send-keys -t top t
pane_wait 'whole run' 100 || tb_log "no whole-run view"
sleep 3         # refreshes after fio's last commands
pane total
# paused while fio reads again: the screen keeps the whole run as it was and
# counts the intervals that end; space shows at once the whole run with them
$TMUX_CMD send-keys -t top Space
pane_wait '^ntprof top .*\[paused\]' 100 || { pane nopause; tb_fail "space did not pause"; }
tb_fio paused4k --rw=randread --bs=4k --size=4M --iodepth=4
tb_res fio_ios_paused "$TB_FIO_IOS"
sleep 3         # intervals end after fio's last commands
pane paused
$TMUX_CMD send-keys -t top Space
for _ in $(seq 1 100); do
	$TMUX_CMD capture-pane -p -t top | grep -E '^ntprof top' | grep -q -v paused && break
	sleep 0.1
done
pane resumed
$TMUX_CMD send-keys -t top q
pane_wait '^rc=[0-9]+$' 600 || { pane after; tb_fail "top did not end on q"; }
$TMUX_CMD send-keys -t top "stty -g > stty.after; echo stty-saved" Enter
pane_wait '^stty-saved$' 100 || tb_fail "stty -g after top"
pane after
tb_res top_rc "$(sed -n 's/^rc=//p' "$TB_OUT/after.txt" | tail -1)"
cp "$TB_WORK/stty.before" "$TB_WORK/stty.after" "$TB_WORK/top.err" "$TB_OUT/"
tb_res done 1
