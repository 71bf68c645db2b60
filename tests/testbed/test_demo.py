# SPDX-License-Identifier: GPL-2.0
"""The README's first command, `sudo make deps demo`, runs tests/testbed/demo.sh,
which boots a guest running guest/demo.sh. This runs that guest script, over
NVMe/TCP (what `make demo` shows) and NVMe/RDMA over soft-RoCE (`make demo
DEMO_TRANSPORT=rdma`), on the 6.1 kernel (demo.sh's default), one boot each,
and checks what a newcomer sees on the console:

- the loopback controller has the transport asked for, and
  `ntprof record -r both -t T -s 1 -- fio` exited 0;
- record printed the report: its header, the transport, and a stage table
  with the five stages (-r both);
- the saved demo.ntp is a finished recording of that transport (role both,
  1 in 1, stopped by fio's exit) whose host records join target records
  (>= 99%, stages adding up: ntp_checks.check_pairs);
- the sqlite3 query printed rows, and they are the file's own;
- one line says how fio's lat relates to ntprof's end-to-end, with the file's
  own means of host_app_stages, its parts adding up.
"""
import os
import re
from pathlib import Path

import pytest

from conftest import REPO
from ntp_checks import check_pairs, joined, meta, open_db

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()

# run.sh stamps each console line: "[tbguest  12.34] "
STAMP = re.compile(r"^\[\S+\s+\d+\.\d+\] ")
NAMES = {"tcp": "NVMe/TCP", "rdma": "NVMe/RDMA"}
# the stage table rows of a -r both report of fio's commands, in order: the
# application's side around the fabric's five (ntprof-report(1))
STAGE_ROWS = ("submit", "block", "driver(h)", "network", "driver(t)", "storage", "complete",
              "reap")
QUERY = ("SELECT io_type, bytes, e2e_ns, block_ns, driver_ns, network_star_ns "
         "FROM host_stages LIMIT 5")


def console_lines(r):
    return [STAMP.sub("", line) for line in r.console.splitlines()]


def section(lines, start, end):
    """The lines after the first one starting with `start`, up to one starting with `end`.
    The console is shared with the kernel: a message it prints while ntprof writes a
    line can land in front of that line, so the first line is found where `start`
    begins, anywhere in it, and taken from there."""
    i = next((n for n, line in enumerate(lines) if start in line), None)
    assert i is not None, f"no {start!r} on the console:\n" + "\n".join(lines[-60:])
    j = next((n for n in range(i + 1, len(lines)) if lines[n].startswith(end)), len(lines))
    return [lines[i][lines[i].index(start):]] + lines[i + 1:j]


def check_report(lines, transport):
    rep = section(lines, "# ntprof report:", "==== sqlite3")
    text = "\n".join(rep)
    assert rep[0] == "# ntprof report: 1 recording joined", rep[0]
    assert re.search(r"^#\s+role:\s+both$", text, re.M), text[:1500]
    assert re.search(rf"^#\s+transport:\s+{transport}$", text, re.M), text[:1500]
    # each group's stage table: the five stage rows, in order, then end-to-end
    tables = 0
    for n, line in enumerate(rep):
        if not line.startswith("# stage "):
            continue
        rows = [r.split()[0] for r in rep[n + 1:n + 1 + len(STAGE_ROWS)]]
        assert tuple(rows) == STAGE_ROWS, f"stage table rows {rows}:\n" + "\n".join(rep[n:n + 12])
        tables += 1
    assert tables >= 1, f"no stage table in the report:\n{text[:3000]}"
    assert "# sum check: ok" in text and "# app sum check: ok" in text, text[:3000]
    return text


APP_LINE = "fio's lat is what ntprof calls the application's end-to-end: "


def check_app_line(lines, db):
    """The one line that says how fio's lat and ntprof's end-to-end relate, from the file."""
    hits = [line for line in lines if line.startswith(APP_LINE)]
    assert len(hits) == 1, f"{len(hits)} lines starting {APP_LINE!r}"
    m = re.match(r"(\d+) us mean = submit (\d+) \+ end-to-end \(the NVMe-oF window\) (\d+) "
                 r"\+ complete (\d+) \+ reap (\d+) ", hits[0][len(APP_LINE):])
    assert m, hits[0]
    app, e2e = db.execute("SELECT avg(app_e2e_ns) / 1e3, avg(e2e_ns) / 1e3 FROM host_app_stages "
                          "WHERE app_e2e_ns IS NOT NULL").fetchone()
    assert int(m.group(1)) == round(app) and int(m.group(3)) == round(e2e), (hits[0], app, e2e)
    # the parts add up to the whole, to the rounding of five numbers
    assert abs(sum(int(m.group(i)) for i in range(2, 6)) - int(m.group(1))) <= 3, hits[0]


def check_sqlite(lines, db):
    """sqlite3 -header -column: a header, a rule, then the rows of QUERY on the file."""
    out = section(lines, "==== sqlite3 demo.ntp", "(the recording is saved")[1:]
    out = [line for line in out if line.strip() and not line.startswith(("TB[", APP_LINE))]
    assert out and out[0].split() == ["io_type", "bytes", "e2e_ns", "block_ns", "driver_ns",
                                      "network_star_ns"], out[:3]
    assert set(out[1].replace(" ", "")) == {"-"}, out[:3]
    printed = [line.split() for line in out[2:]]
    want = [[str(v) for v in row] for row in db.execute(QUERY)]
    assert len(want) == 5, f"the recording has {len(want)} host_stages rows"
    assert printed == want, f"sqlite3 printed {printed}, the file holds {want}"
    return printed


def check_demo(r, transport):
    res = r.result
    assert res["kernel"].startswith("6.1."), res
    assert (res["transport"], res["ctrl_transport"]) == (transport, transport), res
    assert res["record_rc"] == "0" and res["sqlite_rc"] == "0" and res["demo"] == "done", res

    lines = console_lines(r)
    banner = {"tcp": "loopback NVMe/TCP (nvmet-tcp + nvme-tcp, null_blk)",
              "rdma": "loopback NVMe/RDMA over soft-RoCE (rdma_rxe)"}[transport]
    assert any(line.startswith("==== kernel ") and banner in line for line in lines), banner
    assert any(line.startswith(f"ntprof record: recording {NAMES[transport]} host and target")
               for line in lines), f"no 'recording {NAMES[transport]}' line"
    assert any(line.startswith("ntprof record: 'fio' exited with status 0") for line in lines)
    check_report(lines, transport)

    db = open_db(r.out / "demo.ntp")
    m = meta(db)
    assert (m["role"], m["transport"], int(m["sample_one_in"]), m["stop_reason"]) == \
        ("both", transport, 1, "workload"), m
    assert m["kernel_release"] == res["kernel"], m
    host_rows = db.execute("SELECT count(*) FROM host_io").fetchone()[0]
    target_rows = db.execute("SELECT count(*) FROM target_io").fetchone()[0]
    assert host_rows > 100, f"only {host_rows} host records in 5 s of fio"
    pairs = joined(db)
    check_pairs(pairs, host_rows, f"demo.ntp ({transport})")
    printed = check_sqlite(lines, db)
    check_app_line(lines, db)
    print(f"\ndemo {transport} {res['kernel']}: host_io {host_rows}, target_io {target_rows}, "
          f"joined {len(pairs)}/{host_rows} ({100 * len(pairs) / host_rows:.2f}%); "
          f"sqlite3 printed {len(printed)} rows; boot {r.wall_s:.0f} s")


@pytest.mark.parametrize("transport", ("tcp", "rdma"))
def test_demo(testbed, transport):
    if not NTPROF.is_file():
        pytest.fail(f"{NTPROF} missing: build ntprof (make) first", pytrace=False)
    r = testbed.run("tests/testbed/guest/demo.sh", args=(transport,), kernel="6.1", timeout=300,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    check_demo(r, transport)
