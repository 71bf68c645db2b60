# SPDX-License-Identifier: GPL-2.0
"""ntprof's own cost in the report: record keeps the kernel's BPF run-time
statistics of its programs over the first seconds of a recording (meta
bpf_runs, bpf_run_ns, bpf_commands, bpf_window_ns, ntprof-ntp(5)); report
prints them as ns per command and a share of one CPU at the recording's
rate of commands, and -j carries them as "own_cost"."""

import json
import re

import pytest

import ntpgen
from conftest import run_ok

COST = {"bpf_runs": 5200, "bpf_run_ns": 650_000, "bpf_commands": 1000, "bpf_window_ns": 2_000_000_000}


def cost_lines(text):
    return re.findall(r"^# ntprof's own cost: (.*)$", text, re.M)


def test_cost_from_the_statistics_at_the_recordings_rate(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "h.ntp", meta=COST)
    out = run_ok(run, "report", rec.path).stdout
    seen = sum(iv[2] for iv in rec.intervals if iv[1] == "host")
    rate = seen / 10.0                       # ntpgen's 10 s recording
    ns = 650_000 / 1000
    line, = cost_lines(out)
    assert line == (f"{ns:.0f} ns per command, {ns * rate / 1e9 * 100:.2f}% of one CPU at "
                    f"{rate:.0f} commands/s (its BPF programs: 5200 runs, 650000 ns over 1000 "
                    f"commands in the first 2.0 s)")
    # in the header, before the tables
    assert out.index("# ntprof's own cost:") < out.index("# end-to-end latency per group")
    f, = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)["files"]
    c = f["own_cost"]
    assert (c["bpf_runs"], c["bpf_run_ns"], c["commands"], c["window_ns"]) == (5200, 650_000, 1000, 2_000_000_000)
    assert c["ns_per_command"] == pytest.approx(ns)
    assert c["commands_per_s"] == pytest.approx(rate)
    assert c["cpu_percent"] == pytest.approx(ns * rate / 1e9 * 100)


def test_without_the_statistics_the_cost_is_unknown(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "h.ntp")
    out = run_ok(run, "report", rec.path).stdout
    assert cost_lines(out) == ["unknown (recorded without the kernel's BPF statistics)"]
    f, = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)["files"]
    assert f["own_cost"] is None


def test_no_command_while_measured_is_unknown_not_infinite(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "h.ntp", meta=dict(COST, bpf_commands=0, bpf_run_ns=120))
    assert cost_lines(run_ok(run, "report", rec.path).stdout) == [
        "unknown (no command seen while it was measured)"]
    f, = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)["files"]
    assert f["own_cost"] is None
