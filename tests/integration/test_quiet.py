# SPDX-License-Identifier: GPL-2.0
"""-q/--quiet, report and compare: the tables without the header block
(ntprof-report(1), ntprof-compare(1))."""

import pytest

import ntpgen
from conftest import assert_ok


def ok(run, *args):
    r = run(*args)
    assert_ok(r)
    return r.stdout


@pytest.mark.parametrize("args", [["host.ntp"], ["ph.ntp", "pt.ntp"], ["pt.ntp"]])
def test_quiet_report_is_the_tables_alone(run, every_kind, args):
    paths = [every_kind / a for a in args]
    full = ok(run, "report", *paths)
    quiet = ok(run, "report", "-q", *paths)
    assert "file:" in full and "# ntprof report" in full and "# stages (summary):" in full
    for gone in ("# ntprof report", "file:", "# role:", "# hook:", "# clock pair:",
                 "# commands matched:", "# stages (summary):", "ntprof's own cost"):
        assert gone not in quiet, gone
    # every row and every table title stays, in order
    rows = [line for line in full.splitlines() if not line.startswith("#")]
    assert [line for line in quiet.splitlines() if not line.startswith("#")] == rows
    titles = [line for line in full.splitlines()
              if line.startswith(("# io_type", "# file io_type", "# stage ", "# sum check",
                                  "# stages of", "# warning", "# note"))]
    assert [line for line in quiet.splitlines() if line in titles] == titles
    assert len(quiet.splitlines()) < len(full.splitlines())


def test_quiet_keeps_the_warnings(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "lost.ntp", lost_map=4)
    assert "# warning: 4 sampled commands were lost" in ok(run, "report", "--quiet", rec.path)


@pytest.mark.parametrize("opt", ["-q", "--quiet"])
def test_quiet_compare_keeps_rows_and_verdict(run, every_kind, opt):
    args = ["--min-n", "2", "--threshold", "1000", every_kind / "host.ntp",
            every_kind / "new.ntp"]
    full = ok(run, "compare", *args)
    quiet = ok(run, "compare", opt, *args)
    for gone in ("# ntprof compare", "# baseline:", "# new:", "# statistics:",
                 "# stages (summary):"):
        assert gone in full and gone not in quiet, gone
    rows = [line for line in full.splitlines() if not line.startswith("#")]
    assert [line for line in quiet.splitlines() if not line.startswith("#")] == rows
    assert "# changed most:" in quiet and "# threshold: ok (0 groups over, 0 not tested)" in quiet
