# SPDX-License-Identifier: GPL-2.0
"""ntprof dump: the sampled commands as CSV, checked row by row against the
commands ntpgen.py wrote and the stage latencies it built them from."""

import csv
import io
import sqlite3

import pytest

import ntpgen
from conftest import Exit, REPO

RAW = ["id", "h_start_ns", "h_queue_ns", "h_cmd_sent_ns", "h_r2t_ns", "h_data_sent_ns",
       "h_recv_ns", "h_done_ns", "opcode", "io_type", "cid", "slba", "nlb", "bytes", "qid",
       "nsid", "cntlid", "controller", "namespace", "path", "status", "flags"]
DERIVED = ["e2e_ns", "block_ns", "driver_ns", "network_star_ns"]
APP = ["h_app_submit_ns", "h_app_done_ns", "h_app_reap_ns", "app_kind", "pid", "tid", "comm",
       "cgroup_id", "submit_ns", "complete_ns", "reap_ns", "app_e2e_ns"]
# the column names are an interface: scripts index by them
COLUMNS = RAW + DERIVED + APP
# a target recording alone: target_io's columns, then target_stages' stages
TARGET = ["id", "t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns", "opcode",
          "io_type", "cid", "slba", "nlb", "bytes", "qid", "nsid", "cntlid", "device", "status",
          "flags", "residence_ns", "target_driver_ns", "storage_ns"]


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("dump") / "host.ntp", seed=11)


def dump(run, *args):
    r = run("dump", *args)
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    return r.stdout


def test_header_row_is_stable(run, rec):
    out = dump(run, str(rec.path))
    assert out.splitlines()[0] == ",".join(COLUMNS)


def test_rows_equal_what_was_recorded(run, rec):
    rows = list(csv.DictReader(io.StringIO(dump(run, str(rec.path)))))
    assert len(rows) == len(rec.commands)
    io_type = {1: "write", 2: "read"}
    for row, c in zip(rows, rec.commands):
        for k, v in c.row.items():
            # a point this kernel had no hook for is an empty field
            assert row[k] == ("" if v is None else str(v)), k
        assert row["io_type"] == io_type.get(c.row["opcode"], "other")
        assert int(row["e2e_ns"]) == c.e2e
        assert int(row["block_ns"]) == c.stages["block"]
        assert int(row["driver_ns"]) == c.stages["driver"]
        assert int(row["network_star_ns"]) == c.stages["network_star"]
    # R2T writes are among them, with both round trips' times filled in
    assert any(r["h_r2t_ns"] and r["h_data_sent_ns"] for r in rows)


def test_application_columns(run, tmp_path):
    """The application's side: raw points and the stages around the window."""
    rec = ntpgen.generate(tmp_path / "a.ntp", groups=(ntpgen.Group("read", 4096, "nvme0n1", 4),))
    db = sqlite3.connect(rec.path)
    # row 1 libaio with a reap, 2 io_uring without, 3 from a kworker (no submitter), 4 untold
    db.execute("""UPDATE host_io SET h_app_submit_ns = h_start_ns - 100,
                  h_app_done_ns = h_done_ns + 20, h_app_reap_ns = h_done_ns + 520,
                  app_kind = 'libaio', pid = 7, tid = 8, comm = 'fio', cgroup_id = 9 WHERE id = 1""")
    db.execute("""UPDATE host_io SET h_app_submit_ns = h_start_ns - 30,
                  h_app_done_ns = h_done_ns + 40, app_kind = 'io_uring', pid = 7, tid = 7,
                  comm = 'a,b', cgroup_id = 9 WHERE id = 2""")
    db.execute("UPDATE host_io SET h_app_done_ns = h_done_ns + 5, app_kind = 'sync', "
               "cgroup_id = 10 WHERE id = 3")
    db.commit()
    db.close()
    rows = list(csv.DictReader(io.StringIO(dump(run, str(rec.path)))))
    e2e = [c.e2e for c in rec.commands]
    r = rows[0]
    assert (r["app_kind"], r["pid"], r["tid"], r["comm"], r["cgroup_id"]) == \
        ("libaio", "7", "8", "fio", "9")
    assert (int(r["submit_ns"]), int(r["complete_ns"]), int(r["reap_ns"])) == (100, 20, 500)
    assert int(r["app_e2e_ns"]) == 100 + e2e[0] + 520
    r = rows[1]
    assert r["comm"] == "a,b" and r["h_app_reap_ns"] == "" and r["reap_ns"] == ""
    assert int(r["app_e2e_ns"]) == 30 + e2e[1] + 40
    r = rows[2]
    assert r["pid"] == r["comm"] == r["submit_ns"] == r["app_e2e_ns"] == ""
    assert int(r["complete_ns"]) == 5 and r["cgroup_id"] == "10"
    assert all(rows[3][k] == "" for k in APP)


def test_recording_without_application_columns(run, tmp_path):
    """A file from before the application's columns (host_io as version 1 had it,
    STRICT and NOT NULL as ever, no host_app_stages): the same header, those
    fields empty, and report reads it too."""
    rec = ntpgen.generate(tmp_path / "old.ntp", groups=(ntpgen.Group("read", 4096, "nvme0n1", 2),))
    ntpgen.without_app_columns(rec.path)
    out = dump(run, str(rec.path))
    assert out.splitlines()[0] == ",".join(COLUMNS)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2 and all(r[k] == "" for r in rows for k in APP)
    assert [int(r["e2e_ns"]) for r in rows] == [c.e2e for c in rec.commands]
    r = run("report", str(rec.path))
    assert r.returncode == Exit.OK and r.stderr == "", r.stderr


def test_output_file_equals_stdout(run, rec, tmp_path):
    out = tmp_path / "x.csv"
    assert dump(run, "-o", str(out), str(rec.path)) == ""
    assert out.read_text() == dump(run, str(rec.path))
    out2 = tmp_path / "y.csv"
    dump(run, "--output", str(out2), str(rec.path))
    assert out2.read_text() == out.read_text()


def test_output_over_the_recording_is_refused(run, rec):
    before = rec.path.read_bytes()
    r = run("dump", "-o", str(rec.path), str(rec.path))
    assert r.returncode == Exit.USAGE
    assert len(r.stderr.splitlines()) == 1 and str(rec.path) in r.stderr
    assert rec.path.read_bytes() == before


def test_text_fields_are_quoted(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "q.ntp", groups=(ntpgen.Group("read", 4096, "nvme0n1", 3),))
    db = sqlite3.connect(rec.path)
    db.execute("UPDATE host_io SET controller = 'a,\"b' WHERE id = 1")
    db.commit()
    db.close()
    rows = list(csv.DictReader(io.StringIO(dump(run, str(rec.path)))))
    assert rows[0]["controller"] == 'a,"b'
    assert len(rows) == 3 and all(len(r) == len(COLUMNS) for r in rows)


def test_empty_recording_gives_the_header_only(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "e.ntp", groups=())
    assert dump(run, str(rec.path)) == ",".join(COLUMNS) + "\n"


def test_target_alone_rows_equal_what_was_recorded(run, tmp_path):
    """A target recording alone: each target command as recorded, in id order,
    with the target's stages as the generator built them."""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5)
    out = dump(run, tmp_path / "t.ntp")
    assert out.splitlines()[0] == ",".join(TARGET)
    rows = list(csv.DictReader(io.StringIO(out)))
    # ntpgen writes a target's rows in t_recv order: ids 1, 2, ...
    cmds = sorted((c for c in js.commands if c.fate != "lost_target"),
                  key=lambda c: c.target["t_recv_ns"])
    assert len(rows) == len(cmds) > 0
    for i, (row, c) in enumerate(zip(rows, cmds), 1):
        t = c.target
        assert int(row["id"]) == i
        for k, v in t.items():
            assert row[k] == ("" if v is None else str(v)), k
        wait = t["t_submit_ns"] - t["t_r2t_ns"] if t["t_r2t_ns"] is not None else 0
        assert int(row["storage_ns"]) == t["t_cmpl_ns"] - t["t_submit_ns"]
        assert int(row["residence_ns"]) == t["t_sent_ns"] - t["t_recv_ns"] - wait
        assert int(row["target_driver_ns"]) == int(row["residence_ns"]) - int(row["storage_ns"])
        assert row["io_type"] == c.group.report_io_type
    assert any(r["t_r2t_ns"] for r in rows)
    # to a file, the same
    assert dump(run, "-o", tmp_path / "t.csv", tmp_path / "t.ntp") == ""
    assert (tmp_path / "t.csv").read_text() == out


def test_every_column_is_documented(run):
    man = (REPO / "Documentation" / "ntprof-dump.rst").read_text()
    output = man.split("OUTPUT", 1)[1].split("EXIT STATUS", 1)[0]
    for col in COLUMNS + TARGET:
        assert f"``{col}``" in output, col
