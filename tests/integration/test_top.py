# SPDX-License-Identifier: GPL-2.0
"""ntprof top in a real terminal: tmux (Debian's), its keys sent with
send-keys and its screen read with capture-pane, replaying synthetic
recordings (--input).  The whole-run view at the end of a recording holds
report's numbers; the keys change the order; space pauses; q, Ctrl-C and
SIGTERM give the terminal back as it was (its screen and its stty settings).
"""

import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import time
import uuid
from decimal import ROUND_HALF_UP, Decimal

import pytest

import ntpgen
from conftest import Exit, usage_error

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="needs tmux (make deps)")

COLS, ROWS = 130, 30
ROW = re.compile(r"^(read|write|other) (\S+) (\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
SIZES = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def size_bytes(s):
    m = re.fullmatch(r"(\d+)(B|KiB|MiB|GiB)", s)
    assert m, s
    return int(m.group(1)) * SIZES[m.group(2)]


class Term:
    """A tmux server of its own, one window running bash."""

    def __init__(self, cwd):
        self.sock = f"ntprof-top-{uuid.uuid4().hex[:8]}"
        self.cwd = cwd
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}
        env["TERM"] = "xterm"
        self.env = env
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
                  "-c", str(cwd), "env PS1='$ ' bash --norc --noprofile")

    def tmux(self, *args):
        return subprocess.run([TMUX, "-L", self.sock, *args], env=self.env, check=True,
                              capture_output=True, text=True, timeout=20).stdout

    def type(self, line):
        self.tmux("send-keys", "-l", line)
        self.tmux("send-keys", "Enter")

    def key(self, k):
        self.tmux("send-keys", k)

    def screen(self):
        return self.tmux("capture-pane", "-p")

    def wait_for(self, pred, what, timeout=20):
        """The screen once pred(screen) holds; fails naming what after timeout."""
        end = time.monotonic() + timeout
        while True:
            s = self.screen()
            if pred(s):
                return s
            if time.monotonic() > end:
                pytest.fail(f"{what} not on the screen:\n{s}")
            time.sleep(0.05)

    def close(self):
        subprocess.run([TMUX, "-L", self.sock, "kill-server"], env=self.env,
                       capture_output=True, timeout=20)


@pytest.fixture
def term(tmp_path):
    t = Term(tmp_path)
    t.wait_for(lambda s: "$" in s, "the shell's prompt")
    yield t
    t.close()


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    path = tmp_path_factory.mktemp("top") / "run.ntp"
    ntpgen.generate(path, duration_s=5)
    return path


def rows(screen):
    """The group rows on a screen: dicts of the columns, in screen order."""
    out = []
    for line in screen.splitlines():
        m = ROW.match(line)
        if m:
            out.append({"io_type": m.group(1), "bytes": size_bytes(m.group(2)),
                        "ns": m.group(3), "n": int(m.group(4)), "share": m.group(6),
                        "mean": m.group(7), "p99": m.group(8)})
    return out


def header(screen):
    return screen.splitlines()[0]


def start(term, ntprof, *args):
    """Mark the shell's screen and its terminal settings, then start top."""
    term.type("echo before-top; stty -g > stty.before")
    term.wait_for(lambda s: "before-top" in s.splitlines(), "the marker")
    term.type(" ".join(shlex.quote(str(a)) for a in (ntprof, "top", *args)) + "; echo rc=$?")
    return term.wait_for(lambda s: re.match(r"ntprof top  \d", s), "top's screen")


def assert_given_back(term, rc):
    """After top: the shell's screen as it was, top's exit code, the same stty settings."""
    s = term.wait_for(lambda s: re.search(r"^rc=\d+$", s, re.M), "top's exit")
    lines = s.splitlines()
    assert not any(re.match(r"ntprof top  \d|keys: ", l) for l in lines), s
    assert "before-top" in lines, s
    assert f"rc={rc}" in s, s
    term.type("stty -g > stty.after; echo stty-saved")
    term.wait_for(lambda s: "stty-saved" in s.splitlines(), "stty's settings")
    before = (term.cwd / "stty.before").read_text()
    assert before and before == (term.cwd / "stty.after").read_text()


def report_groups(run, path):
    r = run("report", "--json", "-", path)
    assert r.returncode == Exit.OK, r.stderr
    return {(g["io_type"], g["bytes"], g["namespace"]): g for g in json.loads(r.stdout)["groups"]}


def us(ns):
    """Integer ns in us as ntprof writes them: two decimals, half away from zero."""
    if ns is None:
        return "-"
    return str((Decimal(ns) / 1000).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def test_whole_run_at_the_end__equals_report__keys_sort__q_gives_back(term, ntprof, run,
                                                                       recording):
    start(term, ntprof, "--input", recording, "--speed", "1000", "-i", "0.5")
    term.wait_for(lambda s: "[end of recording]" in s, "the end of the replay")
    term.key("t")
    s = term.wait_for(lambda s: "whole run" in header(s), "the whole-run view")
    got = rows(s)
    want = report_groups(run, recording)
    assert len(got) == len(want) >= 4
    for g in got:
        w = want[(g["io_type"], g["bytes"], g["ns"])]
        assert g["n"] == w["n"], (g, w)
        assert g["mean"] == us(w["e2e"]["mean_ns"]), (g, w)
        assert g["p99"] == us(w["e2e"]["p99_ns"]), (g, w)
    # each key orders the rows by its column, largest first; g by the report's order
    for k, name, col in (("p", "p99", "p99"), ("m", "mean", "mean"), ("n", "commands", "n")):
        term.key(k)
        s = term.wait_for(lambda s, name=name: f"sort: {name}" in header(s), f"sort {name}")
        # too few commands for a p99 ("-"): last
        vals = [-1.0 if r[col] == "-" else float(r[col]) for r in rows(s)]
        assert vals == sorted(vals, reverse=True) and len(set(vals)) > 1, (k, vals)
    term.key("s")
    s = term.wait_for(lambda s: "sort: share" in header(s), "sort share")
    shares = [float(r["share"].rstrip("%")) for r in rows(s)]
    assert shares == sorted(shares, reverse=True) and abs(sum(shares) - 100) < 0.5, shares
    # from an order that is not the report's, g gives the report's
    term.key("p")
    s = term.wait_for(lambda s: "sort: p99" in header(s), "sort p99 again")
    by_p99 = [(r["io_type"], r["bytes"], r["ns"]) for r in rows(s)]
    assert by_p99 != list(want), by_p99
    term.key("g")
    s = term.wait_for(lambda s: "sort: group" in header(s), "sort group")
    order = [(r["io_type"], r["bytes"], r["ns"]) for r in rows(s)]
    assert order == list(want), order
    # a key top does not know changes nothing
    term.key("x")
    term.key("Z")
    time.sleep(0.2)
    assert term.screen() == s
    term.key("q")
    assert_given_back(term, Exit.OK)


def test_space__pauses_the_replay__space_again_goes_on(term, ntprof, recording):
    start(term, ntprof, "--input", recording, "-i", "0.5", "--sort", "p99")
    s = term.wait_for(lambda s: rows(s), "the first interval's rows")
    assert "sort: p99" in header(s), s
    term.key("Space")
    s = term.wait_for(lambda s: "[paused]" in header(s), "the pause")
    elapsed = header(s).split()[2]
    time.sleep(1.2)     # more than two intervals of the replay's clock, had it gone on
    again = term.screen()
    assert header(again).split()[2] == elapsed and "[paused]" in header(again), again
    assert rows(again) == rows(s)
    term.key("Space")
    term.wait_for(lambda s: "[paused]" not in header(s) and header(s).split()[2] != elapsed,
                  "the replay going on")
    term.key("q")
    assert_given_back(term, Exit.OK)


def rate_str(r):
    """A rate as top and record's lines write it (ntp_live__rate_str)."""
    if r < 9.95:
        return f"{r:.1f}"
    if r < 999.5:
        return f"{r:.0f}"
    if r < 999950.0:
        return f"{r / 1e3:.1f}k"
    return f"{r / 1e6:.1f}M"


def whole_percents(shares):
    """Shares as whole percents adding up to 100, by the largest remainder (ties: the earlier)."""
    floors = [int(p // 1) for p in shares]
    order = sorted(range(len(shares)), key=lambda i: (-(shares[i] - floors[i]), i))
    for i in order[:100 - sum(floors)]:
        floors[i] += 1
    return floors


def assert_rows_are_report(s, report_json):
    """Every group row of screen s holds report's numbers for the same commands:
    n, cmds/s, time%, mean, p99 and the stages' whole percents."""
    want = {(g["io_type"], g["bytes"], g["namespace"]): g for g in report_json["groups"]}
    got = rows(s)
    assert len(got) == len(want) >= 2, (s, sorted(want))
    all_e2e = sum(g["sum_check"]["e2e_sum_ns"] for g in want.values())
    lines = {(r["io_type"], r["bytes"], r["ns"]): l for r, l in
             zip(got, [l for l in s.splitlines() if ROW.match(l)])}
    for g in got:
        w = want[(g["io_type"], g["bytes"], g["ns"])]
        cols = lines[(g["io_type"], g["bytes"], g["ns"])].split()
        assert g["n"] == w["n"], (g, w)
        assert cols[4] == rate_str(w["est_cmds_per_s"]), (cols, w["est_cmds_per_s"])
        assert g["share"] == f"{100 * w['sum_check']['e2e_sum_ns'] / all_e2e:.1f}%", (g, w)
        assert g["mean"] == us(w["e2e"]["mean_ns"]), (g, w)
        assert g["p99"] == us(w["e2e"]["p99_ns"]), (g, w)
        pcts = [int(c.rstrip("%*")) for c in cols[8:11]]
        assert pcts == whole_percents([st["share_pct"] for st in w["stages"]]), (cols, w)


@pytest.fixture(scope="module")
def slow_recording(tmp_path_factory):
    """One command in three 200 ms slower on the network: many complete in the
    interval after the one they started in."""
    path = tmp_path_factory.mktemp("top_slow") / "slow.ntp"
    ntpgen.generate(path, duration_s=5)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE host_io SET h_recv_ns = h_recv_ns + 200000000,"
                   " h_done_ns = h_done_ns + 200000000 WHERE id % 3 = 0")
    return path


def test_one_interval__paused__equals_report_of_its_window(term, ntprof, run, slow_recording):
    """Paused on an interval, the screen holds report --time START,END's numbers
    for the window its header names (the commands that started in it); its
    whole run those of report --time ,END."""
    recording = slow_recording
    start(term, ntprof, "--input", recording, "-i", "0.5")
    window = re.compile(r"  interval (\d+\.\d+),(\d+\.\d+)  ")
    # an interval inside the recording, not the first
    term.wait_for(lambda s: (m := window.search(header(s))) and float(m.group(1)) >= 1.0,
                  "an interval after the first second")
    term.key("Space")
    s = term.wait_for(lambda s: "[paused]" in header(s), "the pause")
    m = window.search(header(s))
    assert m, header(s)
    begin, end = m.group(1), m.group(2)
    assert float(end) - float(begin) == 0.5 and header(s).split()[2] == end + "s", header(s)
    r = run("report", "--json", "-", "--time", f"{begin},{end}", recording)
    assert r.returncode == Exit.OK, r.stderr
    assert_rows_are_report(s, json.loads(r.stdout))
    term.key("t")
    s = term.wait_for(lambda s: "whole run" in header(s), "the whole-run view")
    assert "[paused]" in header(s) and header(s).split()[2] == end + "s", header(s)
    r = run("report", "--json", "-", "--time", f",{end}", recording)
    assert r.returncode == Exit.OK, r.stderr
    assert_rows_are_report(s, json.loads(r.stdout))
    term.key("q")
    assert_given_back(term, Exit.OK)


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_signal__gives_the_terminal_back(term, ntprof, recording, how):
    start(term, ntprof, "--input", recording)
    if how == "ctrl-c":
        term.key("C-c")
    else:
        shell = int(term.tmux("display-message", "-p", "#{pane_pid}").strip())
        pid = int(subprocess.run(["ps", "-o", "pid=", "--ppid", str(shell)], capture_output=True,
                                 text=True, check=True).stdout.split()[0])
        os.kill(pid, signal.SIGTERM)
    assert_given_back(term, Exit.OK)


@pytest.fixture(scope="module")
def app_recording(tmp_path_factory):
    path = tmp_path_factory.mktemp("top_app") / "app.ntp"
    # the CPUs too (one in four commands off its queue's io_cpu), for --by cpu and io_cpu
    ntpgen.generate(path, duration_s=5, app=ntpgen.App(), cpus=ntpgen.Cpus(off=0.25))
    return path


@pytest.mark.parametrize("key", ["queue", "process", "cpu", "io_cpu"])
def test_by__rows_of_report_by(term, ntprof, run, app_recording, key):
    """--by: a row per queue, process or CPU, named, counted and timed as report --by's."""
    start(term, ntprof, "--input", app_recording, "--by", key, "--speed", "1000")
    term.wait_for(lambda s: "[end of recording]" in s, "the end of the replay")
    term.key("t")
    s = term.wait_for(lambda s: "whole run" in header(s), "the whole-run view")
    r = run("report", "--by", key, "--json", "-", app_recording)
    assert r.returncode == Exit.OK, r.stderr
    want = json.loads(r.stdout)["by"]["rows"]
    assert want and (key != "process") == (len(want) > 1)
    lines = s.splitlines()
    assert re.match(rf"^{key}\s+n\s", lines[4]), lines[4]
    for w in want:
        got = [l[len(w["name"]):].split() for l in lines if l.startswith(w["name"] + " ")]
        assert len(got) == 1, (w["name"], s)
        n, _rate, _share, mean, p99 = got[0][:5]
        assert int(n) == w["n"]
        # top shows the mean of whole ns to 0.01 us: half a ns and half of 0.01 us off
        assert abs(float(mean) - w["mean_ns"] / 1000) <= 0.0055 + 1e-9, (mean, w)
        assert p99 == us(w["tail_ns"]), (p99, w)
    term.key("q")
    assert_given_back(term, Exit.OK)


def test_by_target_recording__usage_error(run, every_kind):
    r = run("top", "--input", every_kind / "pt.ntp", "--by", "queue")
    assert r.returncode == Exit.USAGE, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "--by" in r.stderr, r.stderr


def test_both_recording__five_stages_of_the_pairs(term, ntprof, run, every_kind):
    path = every_kind / "both.ntp"
    start(term, ntprof, "--input", path, "--speed", "1000")
    term.wait_for(lambda s: "[end of recording]" in s, "the end of the replay")
    term.key("t")
    s = term.wait_for(lambda s: "whole run" in header(s), "the whole-run view")
    got = rows(s)
    want = report_groups(run, path)
    assert got and sum(g["n"] for g in got) == sum(w["n"] for w in want.values())
    for line in s.splitlines():
        if ROW.match(line):
            # block, driver, network, target driver, storage: five shares of 100
            pcts = [int(t.rstrip("%")) for t in line.split()[8:13]]
            assert len(pcts) == 5 and sum(pcts) == 100, line
    term.key("q")
    assert_given_back(term, Exit.OK)


def test_target_recording__residence_and_the_target_stages(term, ntprof, run, every_kind):
    """A target recording: its groups by backend device, the residence's mean
    and p99 as report's e2e, the target driver and storage shares."""
    path = every_kind / "pt.ntp"
    start(term, ntprof, "--input", path, "--speed", "1000")
    term.wait_for(lambda s: "[end of recording]" in s, "the end of the replay")
    term.key("t")
    s = term.wait_for(lambda s: "whole run" in header(s), "the whole-run view")
    assert "residence" in s.splitlines()[3], s
    want = {(g["io_type"], g["bytes"], g["device"]): g for g in
            json.loads(run("report", "--json", "-", path).stdout)["groups"]}
    got = rows(s)
    assert len(got) == len(want) >= 2
    for g in got:
        w = want[(g["io_type"], g["bytes"], g["ns"])]
        assert (g["n"], g["mean"], g["p99"]) == (w["n"], us(w["e2e"]["mean_ns"]),
                                                 us(w["e2e"]["p99_ns"])), (g, w)
    for line in s.splitlines():
        if ROW.match(line):
            pcts = [int(t.rstrip("%")) for t in line.split()[8:]]
            assert len(pcts) == 2 and sum(pcts) == 100, line
    term.key("q")
    assert_given_back(term, Exit.OK)


def test_hostile_names__control_characters_shown_as_question_marks(term, ntprof, tmp_path):
    """A name from the recording reaches the terminal without its escapes."""
    path = tmp_path / "hostile.ntp"
    ntpgen.generate(path, duration_s=2)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE host_io SET namespace = 'nv\x1b[2Jme' WHERE namespace = 'nvme1n1'")
    start(term, ntprof, "--input", path, "--speed", "1000")
    s = term.wait_for(lambda s: "[end of recording]" in s, "the end of the replay")
    assert any(line.startswith(("read 128KiB nv?[2Jme ", "other 0B nv?[2Jme "))
               for line in s.splitlines()), s
    term.key("q")
    assert_given_back(term, Exit.OK)


def test_joined_recording__usage_error(run, every_kind, tmp_path):
    joined = tmp_path / "joined.ntp"
    r = run("join", "-o", joined, every_kind / "ph.ntp", every_kind / "pt.ntp")
    assert r.returncode == Exit.OK, r.stderr
    r = run("top", "--input", joined)
    assert r.returncode == Exit.USAGE, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "joined" in r.stderr, r.stderr


def test_not_a_terminal__one_line_exit_notty(run, recording):
    r = run("top", "--input", recording)
    assert r.returncode == Exit.NOTTY, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "not a terminal" in r.stderr, r.stderr
    assert r.stdout == ""


def test_not_a_terminal_live__one_line_exit_notty(run):
    r = run("top")
    assert r.returncode == Exit.NOTTY, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "not a terminal" in r.stderr, r.stderr


def test_missing_recording__said_before_the_terminal(run, tmp_path):
    r = run("top", "--input", tmp_path / "nope.ntp")
    assert r.returncode == Exit.NOFILE, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and "nope.ntp" in r.stderr, r.stderr


@pytest.mark.parametrize("args, says", [
    (("-i", "0"), "--interval"),
    (("-i", "0.05"), "--interval"),
    (("-i", "3601"), "--interval"),
    (("-i", "soon"), "-i"),
    (("--speed", "0"), "--speed"),
    (("--speed", "-2"), "--speed"),
    (("--speed", "fast"), "--speed"),
    (("--sort", "latency"), "--sort"),
    (("--by", "disk"), "--by"),
])
def test_bad_option__usage_error(run, recording, args, says):
    usage_error(run, "top", "--input", recording, *args, says=says)


@pytest.mark.parametrize("args, says", [
    (("-r", "target", "--by", "queue"), "--by"),
    (("-r", "target", "--session", "nvme0n1"), "--session"),
    (("-r", "host2",), "-r"),
    (("-t", "ib"), "-t"),
    (("-s", "0"), "-s"),
    (("--io-type", "bogus"), "--io-type"),
    (("--size", "3x"), "--size"),
    (("--kprobes", "--fentry"), "--fentry"),
])
def test_live_bad_option__usage_error_before_the_terminal(run, args, says):
    usage_error(run, "top", *args, says=says)


def test_live_options__accepted_then_not_a_terminal(run):
    """Every live option well formed: parsed and checked, then the terminal refused."""
    for args in (("-r", "both", "-t", "rdma", "-s", "10", "--io-type", "read", "--size", "4K",
                  "--fentry", "--no-app", "-v", "--by", "process", "-i", "2", "--sort", "mean"),
                 ("--kprobes", "--by", "queue")):
        r = run("top", *args)
        assert r.returncode == Exit.NOTTY, (args, r.returncode, r.stderr)
        assert len(r.stderr.splitlines()) == 1 and "not a terminal" in r.stderr, r.stderr


def test_speed_without_input__usage_error(run):
    usage_error(run, "top", "--speed", "2", says="--speed needs --input")


def test_operand__usage_error(run, recording):
    usage_error(run, "top", str(recording), says="--input")
