# SPDX-License-Identifier: GPL-2.0
"""Strings from a recording reach a terminal made safe (lib/fmt/safe_text.h).

A .ntp file can come from anywhere: a host name that sets the terminal's
title, a hook reason that clears the screen, a kernel release that forges a
"# sum check: ok" line.  report and compare print them with every control
character but newline and tab, DEL and the C1 controls replaced by '?', and
meta and hooks fields that hold a line break are kept to one line; ntprof's
own output is unchanged (the other tests compare it exactly)."""
import re

import pytest

import ntpgen
from conftest import Exit

EVIL = {
    "hostname": "evil\x1b]0;pwned\x07host",
    "kernel_release": "6.1\n# sum check: ok (forged)",
    "ntprof_version": "v\x9b2J\u0085x",
}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


@pytest.fixture(scope="module")
def evil(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    hooks = [h if h[1] != "h_recv" else (h[0], h[1], h[2], h[3], "reason\x1b[2J\x1b[H") for h in
             ntpgen.DEFAULT_HOOKS]
    ntpgen.generate(d / "a.ntp", seed=5, meta=EVIL, hooks=hooks)
    ntpgen.generate(d / "b.ntp", seed=6, meta=EVIL, hooks=hooks)
    return d


@pytest.mark.parametrize("args", [["report", "--header", "a.ntp"], ["report", "--header", "-S", "detail", "a.ntp"],
                                  ["compare", "--header", "a.ntp", "b.ntp"]])
def test_no_control_sequence_reaches_the_terminal(run, evil, args):
    r = run(*[evil / a if a.endswith(".ntp") else a for a in args])
    assert r.returncode == Exit.OK, r.stderr
    assert not CONTROL.search(r.stdout), repr(CONTROL.search(r.stdout))
    assert "evil?]0;pwned?host" in r.stdout
    # the kernel release stays on its own line: no forged check line
    assert "6.1?# sum check: ok (forged)" in r.stdout
    assert not re.search(r"^# sum check: ok \(forged\)", r.stdout, re.M)
    assert "reason?[2J?[H" in r.stdout or args[0] == "compare"


def test_json_still_carries_the_strings_escaped(run, evil):
    r = run("report", "-j", "-", evil / "a.ntp")
    assert r.returncode == Exit.OK, r.stderr
    assert not CONTROL.search(r.stdout)


def test_error_messages_are_made_safe(run, tmp_path):
    """A message that quotes the file (the join naming an unknown role) prints it cleaned."""
    ntpgen.generate(tmp_path / "x.ntp", seed=7, meta={"role": "weird\x1b[2Jrole"})
    ntpgen.generate(tmp_path / "y.ntp", seed=8)
    r = run("report", tmp_path / "x.ntp", tmp_path / "y.ntp")
    assert r.returncode == Exit.MISMATCH, r.stderr
    assert "unknown role 'weird?[2Jrole'" in r.stderr, r.stderr
    assert not CONTROL.search(r.stderr), r.stderr
