# SPDX-License-Identifier: GPL-2.0
"""A read filter that matches nothing (a controller for a namespace, a device
node, a size or an I/O type the recording does not have) is an answer, not an
error: exit 0, and stderr says so and lists what the recordings hold that the
filters test (lib/model/model_filter_none.c), so the right name is at hand.

The list is checked against SQL over the recordings themselves."""

import sqlite3

import pytest

import ntpgen
from conftest import Exit
from report_text import size_str

RANK = {"read": 0, "write": 1, "other": 2}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("none")
    ntpgen.generate(d / "host.ntp", seed=3)
    db = sqlite3.connect(d / "host.ntp")
    # native multipath: a path disk beside its namespace's name
    db.execute("UPDATE host_io SET path = 'nvme0c1n1' WHERE namespace = 'nvme0n1' AND id % 3 = 0")
    db.commit()
    db.close()
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", seed=4,
                         target_meta=[{"start_ns": 1_000_000_000_000 + 3_600_000_123_457}])
    return d


def ranges(ids):
    """queue ids as --qid takes them: 1-4,7"""
    out, ids = [], sorted(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(out)


def held(path, target=False):
    """What the warning must say the recording holds, from SQL over it."""
    db = sqlite3.connect(path)
    start = db.execute("SELECT value FROM meta WHERE key = 'start_ns'").fetchone()[0]
    if target:
        rows = db.execute("SELECT io_type, bytes, qid, device, device, t_recv_ns"
                          " FROM target_stages").fetchall()
    else:
        rows = db.execute("SELECT io_type, bytes, qid, namespace, path, h_start_ns"
                          " FROM host_stages").fetchall()
    db.close()
    names = sorted({r[3] for r in rows})
    paths = sorted({r[4] for r in rows if r[4] != r[3]})
    line = f"{'devices' if target else 'namespaces'} {','.join(names)}"
    if paths:
        line += f"; paths {','.join(paths)}"
    line += "; I/O types " + ",".join(sorted({r[0] for r in rows}, key=RANK.get))
    line += "; sizes " + ",".join(size_str(b) for b in sorted({r[1] for r in rows}))
    line += "; queues " + ranges({r[2] for r in rows})
    t = [r[5] - start for r in rows]
    line += f"; commands started {min(t) / 1e9:.3f} to {max(t) / 1e9:.3f} s from the start"
    return line


FILTERS = [
    (["--session", "nvme0"], "--session nvme0"),
    (["--session", "/dev/nvme0n1"], "--session /dev/nvme0n1"),
    (["--io-type", "other", "--session", "nvme0n1"], "--session nvme0n1 --io-type other"),
    (["--size", "3K"], "--size 3072"),
    (["--qid", "9"], "--qid 9"),
    (["--time", "20,"], "--time 20,"),
]


@pytest.mark.parametrize("args,said", FILTERS, ids=[f[1] for f in FILTERS])
@pytest.mark.parametrize("cmd", ["report", "dump"])
def test_host_recording_lists_what_it_has(run, files, cmd, args, said):
    r = run(cmd, *args, files / "host.ntp")
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr.splitlines() == [
        f"ntprof {cmd}: warning: no commands pass the read filters ({said})",
        f"ntprof {cmd}: warning: the recording has {held(files / 'host.ntp')}"]
    assert "nvme0c1n1" in r.stderr


@pytest.mark.parametrize("cmd", ["report", "dump"])
def test_target_alone_lists_its_devices(run, files, cmd):
    r = run(cmd, "--session", "nvme0n1", files / "pt.ntp")
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr.splitlines() == [
        f"ntprof {cmd}: warning: no commands pass the read filters (--session nvme0n1)",
        f"ntprof {cmd}: warning: the recording has {held(files / 'pt.ntp', target=True)}"]
    assert "/dev/nullb0" in r.stderr


@pytest.mark.parametrize("cmd", ["report", "dump"])
def test_joined_recordings_list_their_hosts(run, files, cmd):
    """Joined commands are filtered by their host's columns: the host's are listed."""
    r = run(cmd, "--session", "nvme0", files / "ph.ntp", files / "pt.ntp")
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr.splitlines()[1:] == [
        f"ntprof {cmd}: warning: the recordings have {held(files / 'ph.ntp')}"]


def test_compare_lists_each_run_that_has_none(run, files):
    h = files / "host.ntp"
    r = run("compare", "--session", "nvme0", h, h)
    assert r.returncode == Exit.OK, r.stderr
    want = held(h)
    for run_name in ("the baseline", "the new run"):
        assert (f"ntprof compare: warning: {run_name}: no commands pass the read filters"
                " (--session nvme0)") in r.stderr.splitlines()
        assert (f"ntprof compare: warning: {run_name}: the recording has {want}"
                in r.stderr.splitlines())


def test_empty_recording_says_it_has_no_commands(run, tmp_path):
    ntpgen.generate(tmp_path / "e.ntp", groups=())
    r = run("report", "--size", "4K", tmp_path / "e.ntp")
    assert r.returncode == Exit.OK
    assert r.stderr.splitlines()[1] == "ntprof report: warning: the recording has no commands"


def test_a_filter_that_passes_says_nothing(run, files):
    r = run("report", "--session", "nvme0n1", files / "host.ntp")
    assert r.returncode == Exit.OK and r.stderr == ""
