# SPDX-License-Identifier: GPL-2.0
"""`ntprof top -s 1` live in tmux on the guest while fio reads a loopback
NVMe/TCP namespace (guest/top.sh): while fio runs the screen shows the
namespace's read 4KiB group with its commands and stage shares, the
whole-run view after fio counts every command fio issued; paused while fio
runs again it keeps that count and counts the intervals that end, and its
end shows the whole run with the paused run's commands at once; q gives the
shell its screen and its stty settings back, exit 0."""
import os
import re
from pathlib import Path

import pytest

from conftest import FULL, REPO

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
ROW = re.compile(r"^read 4KiB (nvme\d+n\d+)\s+(\d+)\s+\S+\s+\S+%\s+[\d.]+\s+\S+\s+(\d+)%\s+(\d+)%\s+"
                 r"(\d+)%\*")


def group_rows(text):
    return [m for m in map(ROW.match, text.splitlines()) if m]


@pytest.mark.parametrize("kernel", FULL)
def test_top_live(testbed, kernel):
    r = testbed.run("tests/testbed/guest/top.sh", kernel=kernel, timeout=600,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    res, out = r.result, r.out
    assert res["kernel"].startswith(kernel + "."), res["kernel"]
    ios = int(res["fio_ios"])
    assert ios == 2048
    ns = Path(res["dev"]).name
    # while fio ran: the group of its reads, with commands and shares of 100
    live = [m for p in sorted(out.glob("pane-[0-9]*.txt")) for m in group_rows(p.read_text())]
    assert live, "no pane showed the read 4KiB group while fio ran"
    for m in live:
        assert m.group(1) == ns and int(m.group(2)) > 0
        assert sum(int(m.group(i)) for i in (3, 4, 5)) == 100, m.group(0)
    # the whole run: every command fio issued (-s 1), in one group
    total = (out / "total.txt").read_text()
    assert "whole run" in total.splitlines()[0], total
    rows = group_rows(total)
    assert len(rows) == 1 and int(rows[0].group(2)) == ios, total
    # paused during a second fio: the whole run as it was, the intervals since counted
    more = int(res["fio_ios_paused"])
    assert more == 1024
    paused = (out / "paused.txt").read_text()
    m = re.search(r"\[paused\]  (\d+) new", paused.splitlines()[0])
    assert m and int(m.group(1)) >= 3, paused
    rows = group_rows(paused)
    assert len(rows) == 1 and int(rows[0].group(2)) == ios, paused
    # the end of the pause: the whole run with every command recorded meanwhile
    resumed = (out / "resumed.txt").read_text()
    head = resumed.splitlines()[0]
    assert "whole run" in head and "paused" not in head, resumed
    rows = group_rows(resumed)
    assert len(rows) == 1 and int(rows[0].group(2)) == ios + more, resumed
    # q: exit 0, the shell's screen and stty settings as they were
    assert res["top_rc"] == "0", (out / "top.err").read_text()
    after = (out / "after.txt").read_text()
    assert not re.search(r"^ntprof top  \d|^keys: ", after, re.M), after
    assert (out / "stty.before").read_text() == (out / "stty.after").read_text()
