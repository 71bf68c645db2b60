# SPDX-License-Identifier: GPL-2.0
"""ntprof dump on joined recordings: one CSV row per matched command, with
both sides' raw timestamps and the five stages, checked against the commands
ntpgen.py built."""

import csv
import io
import json

import pytest

import ntpgen
from conftest import Exit

# the column names are an interface: scripts index by them
COLUMNS = ["host_file", "target_file", "host_id", "target_id", "opcode", "io_type", "cid",
           "slba", "nlb", "bytes", "qid", "nsid", "cntlid", "controller", "namespace", "device",
           "status", "t_status",
           "h_start_ns", "h_queue_ns", "h_cmd_sent_ns", "h_r2t_ns", "h_data_sent_ns",
           "h_recv_ns", "h_done_ns",
           "t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns", "offset_ns",
           "e2e_ns", "block_ns", "driver_ns", "network_ns", "target_driver_ns", "storage_ns"]
HOST_TIMES = COLUMNS[18:25]
TARGET_TIMES = COLUMNS[25:30]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("dumpjoin")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31)


def dump(run, *args):
    r = run("dump", *map(str, args))
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    return r.stdout


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


def check_rows(rows, js, host_file=1, target_file=2):
    """Every matched command once, in host time order, equal to what was built."""
    want = sorted(js.matched(), key=lambda c: c.host["h_start_ns"])
    assert len(rows) == len(want)
    for row, c in zip(rows, want):
        assert (int(row["host_file"]), int(row["target_file"])) == (host_file, target_file)
        for k in HOST_TIMES:
            assert row[k] == ("" if c.host[k] is None else str(c.host[k])), k
        for k in TARGET_TIMES:
            assert row[k] == ("" if c.target[k] is None else str(c.target[k])), k
        for k in ("opcode", "cid", "slba", "nlb", "bytes", "qid", "nsid", "cntlid"):
            assert int(row[k]) == c.host[k] == c.target[k], k
        assert row["io_type"] == c.group.report_io_type
        assert (row["controller"], row["namespace"], row["device"]) == \
            (c.host["controller"], c.host["namespace"], c.target["device"])
        st = c.stages()
        for k in ntpgen.JOIN_STAGES + ("e2e",):
            assert int(row[f"{k}_ns"]) == st[k], k
        assert sum(int(row[f"{k}_ns"]) for k in ntpgen.JOIN_STAGES) == int(row["e2e_ns"])
        # the offset of the line at this command: inside its pair's bound
        o = int(row["offset_ns"])
        assert c.target["t_sent_ns"] - c.host["h_done_ns"] - 2000 <= o
        assert o <= c.target["t_recv_ns"] - c.host["h_queue_ns"] + 2000


def test_header_row_is_stable(run, pair):
    out = dump(run, pair.host_paths[0], pair.target_paths[0])
    assert out.splitlines()[0] == ",".join(COLUMNS)


def test_one_row_per_matched_command(run, pair):
    rows = rows_of(dump(run, pair.host_paths[0], pair.target_paths[0]))
    check_rows(rows, pair)
    assert any(r["h_r2t_ns"] and r["t_r2t_ns"] for r in rows)
    # the ids are the rows of each file
    assert len({r["host_id"] for r in rows}) == len({r["target_id"] for r in rows}) == len(rows)


def test_any_order_and_output_file(run, pair, tmp_path):
    a = dump(run, pair.host_paths[0], pair.target_paths[0])
    b = dump(run, pair.target_paths[0], pair.host_paths[0])
    check_rows(rows_of(b), pair, host_file=2, target_file=1)
    out = tmp_path / "j.csv"
    assert dump(run, "-o", out, pair.host_paths[0], pair.target_paths[0]) == ""
    assert out.read_text() == a


def test_both_file(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=9)
    rows = rows_of(dump(run, tmp_path / "both.ntp"))
    check_rows(rows, js, host_file=1, target_file=1)


def test_refusals(run, pair, tmp_path):
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=2,
                         target_meta=[{"sample_one_in": 10}])
    r = run("dump", tmp_path / "h.ntp", tmp_path / "t.ntp")
    assert r.returncode == Exit.MISMATCH and r.stdout == ""
    line, = r.stderr.splitlines()
    assert line.startswith("ntprof dump: error: ") and "sample rate" in line
    r = run("dump", pair.host_paths[0], tmp_path / "h.ntp")
    assert r.returncode == Exit.MISMATCH and len(r.stderr.splitlines()) == 1
    # no partial output file on a refusal, and never over an input
    out = tmp_path / "x.csv"
    r = run("dump", "-o", out, tmp_path / "h.ntp", tmp_path / "t.ntp")
    assert r.returncode == Exit.MISMATCH and not out.exists()
    r = run("dump", "-o", pair.target_paths[0], pair.host_paths[0], pair.target_paths[0])
    assert r.returncode == Exit.USAGE


def test_host_recording_alone_is_unchanged(run, pair):
    """One host file: its own commands, as before (test_dump.py has the rest)."""
    rows = rows_of(dump(run, pair.host_paths[0]))
    assert len(rows) == sum(1 for c in pair.commands if c.fate != "lost_host")
    assert "network_star_ns" in rows[0] and "target_id" not in rows[0]


# ---- reused keys, several initiators and targets ---------------------------------

def check_true_pairs(rows, js, files):
    """Every row is a command ntpgen built, joined with its own target record in
    the target file of its own link, and every matched command is there once.
    files: the paths in the order given to ntprof."""
    index = {str(p): i + 1 for i, p in enumerate(files)}
    want = {}
    for c in js.matched():
        hf = index[str(js.host_paths[c.link.host])]
        tf = index[str(js.target_paths[c.link.target])]
        want[(hf, c.host["h_start_ns"], c.host["h_queue_ns"], c.host["h_done_ns"])] = (tf, c)
    assert len(rows) == len(want)
    seen = set()
    for row in rows:
        key = (int(row["host_file"]), int(row["h_start_ns"]), int(row["h_queue_ns"]),
               int(row["h_done_ns"]))
        assert key in want and key not in seen, key
        seen.add(key)
        tf, c = want[key]
        assert int(row["target_file"]) == tf
        for k in TARGET_TIMES:
            assert row[k] == ("" if c.target[k] is None else str(c.target[k])), k
        for k in ("cid", "slba", "nlb", "qid", "nsid", "cntlid"):
            assert int(row[k]) == c.target[k], k
    # host file by host file, in host time order
    order = [(int(r["host_file"]), int(r["h_start_ns"]), int(r["host_id"])) for r in rows]
    assert order == sorted(order)


def joined_counts(run, *paths):
    r = run("report", "-j", "-", *map(str, paths))
    assert r.returncode == Exit.OK, r.stderr
    return json.loads(r.stdout)["join"]


def test_heavy_key_reuse_exact_pairs(run, tmp_path):
    """Thousands of occurrences of each key (cid = i % 8, three block
    addresses): still every command with its own target record."""
    groups = (ntpgen.JGroup("read", 4096, "nvme0n1", 8000),
              ntpgen.JGroup("write", 8192, "nvme0n1", 4000, r2t_share=0.3))
    paths = [tmp_path / "h.ntp", tmp_path / "t.ntp"]
    js = ntpgen.generate_pair(*paths, groups=groups, seed=32, duration_s=2, reject=10)
    assert {k: v for k, v in joined_counts(run, *paths).items() if k in js.counts()} == \
        js.counts()
    check_true_pairs(rows_of(dump(run, *paths)), js, paths)


def test_one_host_two_targets_same_keys(run, tmp_path):
    """Two controllers of one host talk to two targets that both call theirs
    cntlid 1, with the same block addresses and sizes at the same times: the
    keys are equal on both targets, and only the binding of each controller
    to its own target keeps the pairs apart."""
    g = (ntpgen.JGroup("read", 4096, "nvme0n1", 1500),)
    links = [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=5_000_000, drift=0.0, groups=g),
             ntpgen.Link(0, 1, "nvme1", 1, offset_ns=5_000_000, drift=0.0, groups=g)]
    paths = [tmp_path / "h.ntp", tmp_path / "t0.ntp", tmp_path / "t1.ntp"]
    js = ntpgen.generate_joined(paths[:1], paths[1:], links, seed=33, same_slbas=True)
    counts = joined_counts(run, *paths)
    assert {k: v for k, v in counts.items() if k in js.counts()} == js.counts()
    check_true_pairs(rows_of(dump(run, *paths)), js, paths)


def test_two_hosts_one_target_same_keys(run, tmp_path):
    """Two hosts on one target use the same block addresses, command ids and
    sizes at the same times: their keys differ by the target's cntlid alone."""
    g = (ntpgen.JGroup("write", 4096, "nvme0n1", 1500),)
    links = [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=-2_000_000_000, drift=10e-6, groups=g),
             ntpgen.Link(1, 0, "nvme0", 2, offset_ns=-2_000_000_000, drift=10e-6, groups=g)]
    paths = [tmp_path / "t.ntp", tmp_path / "h0.ntp", tmp_path / "h1.ntp"]
    js = ntpgen.generate_joined(paths[1:], paths[:1], links, seed=34, same_slbas=True)
    counts = joined_counts(run, *paths)
    assert {k: v for k, v in counts.items() if k in js.counts()} == js.counts()
    check_true_pairs(rows_of(dump(run, *paths)), js, paths)
