# SPDX-License-Identifier: GPL-2.0
"""Large enough recordings that a join is shared among threads: the readers'
parts of each file, the merges and the matching by shares of the keys, the
summaries at once.  NTPROF_THREADS (ntprof(1), ENVIRONMENT) sets how many;
one thread and four give the same report, dump and host report, every
command matched, with rare keys and with keys repeated ten thousand times."""

import json
import subprocess
import sys

import pytest

from conftest import Exit, REPO

# shares are of at least 65536 host rows: four of them (join_pair.py makes whole copies
# of a base of 20000: 280000)
COMMANDS = 4 * 65536 + 1000


@pytest.fixture(scope="module", params=("rare", "heavy"))
def pair(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("threads-" + request.param)
    h, t = d / "h.ntp", d / "t.ntp"
    subprocess.run([sys.executable, str(REPO / "bench" / "join_pair.py"), str(h), str(t),
                    str(COMMANDS), "--reuse", request.param], check=True)
    return h, t


def out(run, threads, *args):
    r = run(*map(str, args), env={"NTPROF_THREADS": str(threads)})
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    return r.stdout


@pytest.mark.parametrize("args", (("report", "-j", "-"), ("dump",)),
                         ids=" ".join)
def test_one_thread_and_four__the_same_join(run, pair, args):
    one = out(run, 1, *args, *pair)
    assert out(run, 4, *args, *pair) == one
    if args[0] == "report" and "-j" in args:
        doc = json.loads(one)
        assert doc["join"]["matched"] == doc["join"]["host_commands"] >= COMMANDS
        assert doc["join"]["rejected"] == doc["join"]["unmatched_host"] == 0
        assert all(g["sum_check"]["ok"] for g in doc["groups"])


def test_one_thread_and_four__the_same_host_report(run, pair):
    assert out(run, 4, "report", "-j", "-", pair[0]) == out(run, 1, "report", "-j", "-", pair[0])


@pytest.mark.parametrize("value", ("0", "-2", "x", "", "16"))
def test_not_a_number_from_1__as_unset__more_than_8__as_8(run, pair, value):
    r = run("report", "-j", "-", str(pair[0]), env={"NTPROF_THREADS": value})
    assert r.returncode == Exit.OK, r.stderr
    assert r.stdout == out(run, 1, "report", "-j", "-", pair[0])
