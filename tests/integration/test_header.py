# SPDX-License-Identifier: GPL-2.0
"""report's header (ntprof-report(1), OUTPUT, Text): short by default, what
the numbers depend on; --header gives every line, as perf report --header
does.  The short header is the full one's lines, fewer of them, in order."""

import re

import pytest

import ntpgen
from conftest import assert_ok

FULL_ONLY = ("host:", "start time:", "hash version:", "recorded by:", "hook:",
             "commands seen:", "commands sampled:", "commands lost:", "clock pair:",
             "unmatched host:", "unmatched target:", "rejected:", "host seen:", "target seen:")


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("header")
    rec = ntpgen.generate(d / "host.ntp")
    ntpgen.generate_pair(d / "jh.ntp", d / "jt.ntp")
    return d, rec


def header(text):
    """The lines before the first table's title, less the blank '#'."""
    out = []
    for line in text.splitlines():
        if line.startswith("# end-to-end latency") or line.startswith("# residence"):
            break
        if line != "#":
            out.append(line)
    return out


def label(line):
    m = re.match(r"#\s+([a-z' ]+:)", line)
    return m[1] if m else None


@pytest.mark.parametrize("files", [["host.ntp"], ["jh.ntp", "jt.ntp"]])
def test_short_header__the_full_ones_lines_less_the_details(run, recs, files):
    d, _ = recs
    paths = [d / f for f in files]
    short, full = run("report", *paths), run("report", "--header", *paths)
    assert_ok(short)
    assert_ok(full)
    s, f = header(short.stdout), header(full.stdout)
    assert len(s) < len(f) / 2
    assert not [l for l in s if label(l) in FULL_ONLY]
    assert {label(l) for l in f} >= {"hook:", "start time:", "recorded by:"}
    # every other line of the short header is the full one's, in its order
    kept = [l for l in s if label(l) != "hooks:"]
    it = iter(f)
    assert all(any(l == g for g in it) for l in kept), (kept, f)
    # the tables are the same
    assert short.stdout[short.stdout.index("# end-to-end"):] == \
        full.stdout[full.stdout.index("# end-to-end"):]


def test_short_header__counts_the_hooks_the_full_one_lists(run, recs):
    d, rec = recs
    short = run("report", d / "host.ntp").stdout
    full = run("report", "--header", d / "host.ntp").stdout
    assert re.search(r"^# hooks:\s+(\d+) \(listed with --header\)$", short, re.M)[1] == \
        str(len(rec.hooks))
    assert len(re.findall(r"^# hook:", full, re.M)) == len(rec.hooks)


def test_short_header__what_the_numbers_depend_on(run, recs):
    d, _ = recs
    # "# ntprof report", then one line each
    s = [label(l) for l in header(run("report", d / "host.ntp").stdout)]
    assert s == [None, "file:", "role:", "transport:", "kernel release:", "duration:", "sample rate:",
                 "filters:", "hooks:", "commands in file:", "ntprof's own cost:"]


def test_short_header__a_joined_report_keeps_its_match_and_warnings(run, recs):
    d, _ = recs
    out = run("report", d / "jh.ntp", d / "jt.ntp").stdout
    assert re.search(r"^# commands matched:\s+\d+", out, re.M)
    assert "# warning: only" in out and "clock pair" not in out


def test_compare_short_header__hooks_counted_differences_still_named(run, tmp_path):
    hooks = list(ntpgen.DEFAULT_HOOKS)
    hooks[5] = ("host", "h_recv", "nvme_tcp_process_nvme_cqe", "fentry", "")
    a = ntpgen.generate(tmp_path / "a.ntp", seed=5)
    b = ntpgen.generate(tmp_path / "b.ntp", seed=6, hooks=hooks, meta={"hostname": "otherhost"})
    short = run("compare", a.path, b.path)
    full = run("compare", "--header", a.path, b.path)
    assert_ok(short)
    assert_ok(full)
    lines = short.stdout.splitlines()
    assert not [l for l in lines if label(l) in ("hook:", "host:", "start time:", "recorded by:")]
    assert [l for l in lines if label(l) == "hooks:"] == \
        [f"#   hooks:           {len(hooks)} (listed with --header)"] * 2
    differs = [l for l in lines if l.startswith("# differs:")]
    assert differs == [l for l in full.stdout.splitlines() if l.startswith("# differs:")]
    assert any("host" in l for l in differs) and any("h_recv" in l for l in differs)
    assert len(re.findall(r"^#\s+hook:", full.stdout, re.M)) == 2 * len(hooks)
    # the tables are the same
    assert short.stdout[short.stdout.index("# groups:"):] == \
        full.stdout[full.stdout.index("# groups:"):]
