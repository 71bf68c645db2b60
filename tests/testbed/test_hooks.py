# SPDX-License-Identifier: GPL-2.0
"""What each hook gets on each test bed kernel, and what happens when one
cannot be had (guest/hooks.sh, one boot per kernel; ntprof-record(1),
ENVIRONMENT and "The cross-check"; ntprof-design(7), "Flavours and
fallbacks").  Every kernel runs check -j, the --kprobes recording, the
decision's programs refused and the kprobe program for the wrong prototype;
the newest (7.3) runs every step:

- check: both roles can be recorded; every row of every mode says why its
  hook is what it is; on 7.3 nvmet_req_init has its three-argument program;
  each role names its cross-check.  With NTPROF_FAIL_LOAD=nvmet_req_init,
  check lists the refused hook and t_recv's tracepoint, as record gets them.
- -r target -s 1 in AUTO, --fentry and --kprobes mode: every command fio
  sent is recorded (exactly; within 1% where the recording says the kernel
  skipped runs of its programs: 7.3 preempts them), with that mode's
  flavours; the cross-check's count is fio's; with kprobes the kernel's
  missed count is in the summary and the meta where the kernel tells it
  (6.7 and later), and said to be untold where it does not.
- NTPROF_FAIL_LOAD=nvmet_req_init: the kernel refuses the decision's
  programs; one warning names it, one says t_recv is now the nvmet_req_init
  tracepoint, every command is still recorded, the hooks table says why.
  NTPROF_FAIL_LOAD=nvme_complete_rq on the host: h_done at its tracepoint,
  every command's submitting CPU and its queue's io_cpu recorded.
- NTPROF_WRONG_PROTO=nvmet_req_init: the program for the other prototype.
  With --kprobes it attaches and decides nothing (the 7.3 failure of issue
  32 on any kernel): exit 13, one error line with the counts, the recording
  kept with no command and the cross-check's count in its meta.  With
  --fentry on 7.3 the verifier refuses it (it reads a fourth argument) and
  the tracepoint decides; on 6.x it loads (it reads fewer) and is blind:
  exit 13 again.
- NTPROF_FAIL_LOAD=tp_btf/nvme_setup_cmd: nothing stands in for the host's
  decision: exit 3 and one line saying so.
"""
import json
import os
import re
from pathlib import Path

import pytest

from conftest import KERNELS, REPO
from ntp_checks import count_fits, lossy, meta, open_db

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
EXIT = {m[0]: int(m[1]) for m in re.findall(r"NTP_EXIT_(\w+) = (\d+)",
                                             (REPO / "lib" / "cli" / "exit.h").read_text())}
TARGET_FUNC_POINTS = ("t_recv", "t_r2t", "t_submit", "t_cmpl", "t_sent")


def hooks(db, side):
    return {r["point"]: dict(r) for r in db.execute("SELECT * FROM hooks WHERE side = ?", (side,))}


def err_lines(out, name, kind):
    return [x for x in (out / f"{name}.err").read_text().splitlines() if f": {kind}: " in x]


def rows(db, table):
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def kprobe_missed_told(kernel):
    return kernel != "6.1"


def check_mode_run(r, kernel, name, flavours):
    """-r target -s 1 in one mode: fio's commands all recorded, the mode's flavours."""
    res, out = r.result, r.out
    assert res[f"{name}_rc"] == "0", (out / f"{name}.err").read_text()
    ios = int(res[f"{name}_ios"])
    assert ios == 512, res
    db = open_db(out / f"{name}.ntp")
    n = rows(db, "target_io")
    assert count_fits(n, ios, lossy(db)), f"{name}: {n} of {ios} commands"
    m = meta(db)
    assert int(m["target_fabric_commands"]) == ios, m
    h = hooks(db, "target")
    for p in TARGET_FUNC_POINTS:
        assert h[p]["flavour"] in flavours, (name, h[p])
    assert err_lines(out, name, "warning") == [], (out / f"{name}.err").read_text()
    return db, m


NEWEST = KERNELS[-1]


@pytest.mark.parametrize("kernel", KERNELS)
def test_hooks(testbed, kernel):
    every = kernel == NEWEST
    r = testbed.run("tests/testbed/guest/hooks.sh", args=("all",) if every else (), kernel=kernel,
                    timeout=480, env={"NTPROF": str(NTPROF)}).assert_ok()
    res, out = r.result, r.out
    print(f"kernel {kernel}: {res['kernel']} ({res['kpkg']})")
    assert res["kernel"].startswith(kernel + "."), res["kernel"]
    assert res["all"] == ("1" if every else "0")

    # check: both roles, every row with its why, the cross-check named
    assert res["check_json_rc"] == "0", (out / "check.err").read_text()
    doc = json.loads((out / "check.json").read_text())
    roles = {x["role"]: x for x in doc["roles"]}
    assert set(roles) == {"host", "target"}
    for role in roles.values():
        assert role["supported"] and role["why_not"] is None and role["refused"] == [], role
        assert role["cross_check"], role
        for mode in role["modes"]:
            for h in mode["hooks"] if mode["available"] else ():
                assert h["reason"], (role["role"], mode["mode"], h)
    fe = {h["point"]: h for h in {m["mode"]: m for m in roles["target"]["modes"]}["fentry"]["hooks"]}
    assert (fe["t_recv"]["hook"], fe["t_recv"]["flavour"]) == ("nvmet_req_init", "fentry")
    if kernel == "7.3":
        assert "nvmet_req_init(req, sq, ops) on this kernel" in fe["t_recv"]["reason"], fe
    else:
        assert "on this kernel" not in fe["t_recv"]["reason"], fe

    # kprobe mode records every command; the kprobes the kernel skipped, where it tells
    db, m = check_mode_run(r, kernel, "t_kprobes", {"kprobe", "kretprobe"})
    info = [x for x in (out / "t_kprobes.err").read_text().splitlines() if "kprobe hits" in x]
    if kprobe_missed_told(kernel):
        assert int(m["target_kprobe_missed"]) >= 0, m
        assert info == [f"ntprof record: target: {m['target_kprobe_missed']} kprobe hits skipped "
                        "by the kernel (a probe that fired while another ran on its CPU)"], info
    else:
        assert "target_kprobe_missed" not in m, m
        assert info == ["ntprof record: target: kprobe hits skipped by the kernel: not told by "
                        "this kernel (before 6.7)"], info

    # the decision's programs refused: the tracepoint decides, every command recorded
    assert res["failinit_rc"] == "0", (out / "failinit.err").read_text()
    assert err_lines(out, "failinit", "warning") == [
        "ntprof record: warning: target: nvmet_req_init: its fentry program failed to load: "
        "Invalid argument (NTPROF_FAIL_LOAD); loading the target programs again without it",
        "ntprof record: warning: target: t_recv now: nvmet_req_init (tp_btf)"]
    db = open_db(out / "failinit.ntp")
    assert int(res["failinit_ios"]) == 512 and count_fits(rows(db, "target_io"), 512, lossy(db))
    h = hooks(db, "target")
    assert (h["t_recv"]["hook"], h["t_recv"]["flavour"]) == ("nvmet_req_init", "tp_btf")
    assert "failed to load: Invalid argument (NTPROF_FAIL_LOAD)" in h["t_recv"]["reason"]
    assert h["t_cmpl"]["flavour"] == "fentry" and h["t_sent"]["flavour"] in ("fentry", "fexit")

    # a program for another prototype: blind under kprobes, exit 13, the file kept
    blind = ("ntprof record: error: target: the decision (nvmet_req_init) saw 0 of the 512 I/O "
             "commands the nvmet_req_complete tracepoint counted: this kernel's hooks do not fit "
             "what ntprof reads (ntprof check -r target says what each hook gets); the recording "
             "is kept")
    assert res["wrongkp_rc"] == str(EXIT["BLIND"]), (out / "wrongkp.err").read_text()
    assert err_lines(out, "wrongkp", "error") == [blind]
    db = open_db(out / "wrongkp.ntp")
    m = meta(db)
    assert rows(db, "target_io") == 0 and int(m["target_fabric_commands"]) == 512, m
    assert m["stop_reason"] == "workload"
    if every:
        check_every(r, kernel, blind)


def check_every(r, kernel, blind):
    """The steps of the newest kernel's boot."""
    res, out = r.result, r.out
    assert res["check_rc"] == "0", (out / "check.err").read_text()
    text = (out / "check.txt").read_text()
    assert text.count("  cross-check: the decision (") == 2, text
    assert res["check_failinit_rc"] == "0", (out / "check.err").read_text()
    doc = json.loads((out / "check-failinit.json").read_text())
    (t,) = doc["roles"]
    assert t["supported"] and t["refused"] == [
        "nvmet_req_init: its fentry program failed to load: Invalid argument (NTPROF_FAIL_LOAD)"], t
    fe = {h["point"]: h for h in {m["mode"]: m for m in t["modes"]}["fentry"]["hooks"]}
    assert (fe["t_recv"]["hook"], fe["t_recv"]["flavour"]) == ("nvmet_req_init", "tp_btf"), fe

    # AUTO and --fentry record every command too
    check_mode_run(r, kernel, "t_auto", {"fentry", "fexit"})
    check_mode_run(r, kernel, "t_fentry", {"fentry", "fexit"})

    # the host's completion refused: its tracepoint ends the records
    assert res["faildone_rc"] == "0", (out / "faildone.err").read_text()
    db = open_db(out / "faildone.ntp")
    assert int(res["faildone_ios"]) == 512 and count_fits(rows(db, "host_io"), 512, lossy(db))
    h = hooks(db, "host")
    assert (h["h_done"]["hook"], h["h_done"]["flavour"]) == ("nvme_complete_rq", "tp_btf")
    assert "h_done now: nvme_complete_rq (tp_btf)" in (out / "faildone.err").read_text()
    # where each command ran: the submitting CPU and the queue's io_cpu, read on this kernel
    assert rows(db, "host_io WHERE cpu IS NULL OR io_cpu IS NULL OR flags & 192 != 192") == 0

    # with fentry: refused by the verifier on 7.3 (a fourth argument), blind on 6.x
    if kernel == "7.3":
        assert res["wrongfe_rc"] == "0", (out / "wrongfe.err").read_text()
        w = err_lines(out, "wrongfe", "warning")
        assert w[0].startswith("ntprof record: warning: target: nvmet_req_init: its fentry program "
                               "failed to load: Permission denied;"), w
        db = open_db(out / "wrongfe.ntp")
        assert count_fits(rows(db, "target_io"), 512, lossy(db))
    else:
        assert res["wrongfe_rc"] == str(EXIT["BLIND"]), (out / "wrongfe.err").read_text()
        assert err_lines(out, "wrongfe", "error") == [blind]

    # nothing can stand in for the host's decision
    assert res["nodecide_rc"] == str(EXIT["UNSUPPORTED"]), (out / "nodecide.err").read_text()
    (line,) = (out / "nodecide.err").read_text().splitlines()[-1:]
    assert line.startswith("ntprof record: error: no hook for the sampling decision: the "
                           "tracepoint nvme_setup_cmd: its tp_btf program failed to load"), line
