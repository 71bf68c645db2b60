# SPDX-License-Identifier: GPL-2.0
"""Shared by every integration test: where ntprof is, how to run it, and its
exit codes.

    from conftest import Exit, REPO

    def test_x(run):
        r = run("version", "--json")
        assert r.returncode == Exit.OK and r.stderr == ""

Success in these tests means exit status 0 *and* an empty stderr.
Every JSON document of report -j and compare -j that run() makes ntprof
write is validated against schema/*.schema.json (json_schema.py).
The binary is --ntprof PATH, else $NTPROF, else <repo>/build/ntprof.
"""

import enum
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# this file is also loaded by path (tests/bpf/conftest.py): its neighbours may not be on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import json_schema  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXIT_H = REPO / "lib" / "cli" / "exit.h"


def _parse_exit_codes(path):
    """The NTP_EXIT_* enumerators of lib/cli/exit.h, so no test hard-codes a number."""
    codes = {}
    for name, value in re.findall(r"^\s*NTP_EXIT_([A-Z0-9_]+)\s*=\s*(\d+)\s*,",
                                  path.read_text(), re.M):
        codes[name] = int(value)
    if not codes:
        raise RuntimeError(f"no NTP_EXIT_* codes found in {path}")
    return codes


Exit = enum.IntEnum("Exit", _parse_exit_codes(EXIT_H))


def pytest_addoption(parser):
    parser.addoption("--ntprof", metavar="PATH", default=None,
                     help="the ntprof binary to test (default: $NTPROF or <repo>/build/ntprof)")


def pytest_configure(config):
    config.addinivalue_line("markers", "bpf: loads BPF programs into the running kernel")
    config.addinivalue_line("markers", "root: needs root (skipped otherwise)")
    config.addinivalue_line("markers", "plain_only: run in the plain integration pass only, "
                            "deselected by make check-asan (its C code is run there by others)")


def pytest_runtest_setup(item):
    if item.get_closest_marker("root") and os.geteuid() != 0:
        pytest.skip("needs root")


def ntprof_path(config):
    path = config.getoption("--ntprof") or os.environ.get("NTPROF") or str(REPO / "build" / "ntprof")
    return Path(path).resolve()


@pytest.fixture(scope="session")
def ntprof(pytestconfig):
    """The path of the ntprof binary under test."""
    path = ntprof_path(pytestconfig)
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"ntprof binary not found or not executable: {path} "
                    "(build it with `make`, or pass --ntprof PATH / set NTPROF)", pytrace=False)
    return path


@pytest.fixture(scope="session")
def run(ntprof):
    """run(*args, timeout=60, input=None, env=None) -> CompletedProcess (text).

    Runs ntprof with args, never through a shell; env entries are added to
    (not substituted for) the current environment, with COLUMNS=10000: the
    tests read text tables whole, as a script that sets COLUMNS or passes
    --wide does (ntprof(1), THE TERMINAL); env={"COLUMNS": ""} gives the
    default of a pipe, tables folded to 100 columns.  Output is decoded as
    UTF-8 with errors replaced, so binary garbage fails an assertion rather
    than the helper.
    """
    def _run(*args, timeout=60, input=None, env=None):
        full_env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        full_env["COLUMNS"] = "10000"
        full_env.update(env or {})
        before = json_schema.before_run(args)
        r = subprocess.run([str(ntprof), *map(str, args)], input=input, env=full_env,
                           capture_output=True, text=True, encoding="utf-8",
                           errors="replace", timeout=timeout)
        # every report -j / compare -j document is held to its schema (json_schema.py)
        json_schema.check_run(args, r.returncode, r.stdout, before)
        return r
    return _run


def assert_ok(r):
    """Success as these tests define it: exit 0 and nothing on stderr."""
    assert r.returncode == Exit.OK, f"exit {r.returncode}, stderr: {r.stderr}"
    assert r.stderr == "", f"unexpected stderr: {r.stderr}"


def run_ok(run, *args, **kw):
    """run(ARGS), each made a str, that must succeed (assert_ok)"""
    r = run(*map(str, args), **kw)
    assert_ok(r)
    return r


@pytest.fixture(scope="session")
def every_kind(tmp_path_factory):
    """A recording of each kind, for the tests of the output forms: two host
    recordings, a host and target pair, and a "-r both" file."""
    import ntpgen
    d = tmp_path_factory.mktemp("kinds")
    ntpgen.generate(d / "host.ntp")
    ntpgen.generate(d / "new.ntp", seed=2)
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", lose_host=0, lose_target=0)
    ntpgen.generate_both(d / "both.ntp", lose_host=0, lose_target=0)
    return d


def usage_error(run, *args, says):
    """A bad command line: exit 2 and one line on stderr that says `says`."""
    r = run(*args)
    assert r.returncode == Exit.USAGE, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr
    return r


def sanitized(ntprof):
    """An ASan build: slower, and its allocator keeps freed memory in quarantine."""
    with open(ntprof, "rb") as f:
        return b"__asan_init" in f.read()
