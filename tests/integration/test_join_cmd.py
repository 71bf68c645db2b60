# SPDX-License-Identifier: GPL-2.0
"""ntprof join: a host and a target recording (or one "-r both") written as
one joined recording, ntprof-join(1).  On ntpgen pairs with a clock offset
and drift, reused command ids and lost samples: the joined file holds both
sides as recorded, the pairing and the clock estimate; `report` and `dump`
on it give what they give on the pair; the worked queries of ntprof-ntp(5),
read from the man page and run through Python's sqlite3, give the report's
numbers; every option, and every refusal with its one line and exit code."""

import json
import os
import re
import sqlite3

import pytest

import ntpgen
from conftest import Exit, REPO
from test_report_join import assert_groups_equal

NTP_DOC = REPO / "Documentation" / "ntprof-ntp.rst"
JOIN_DOC = REPO / "Documentation" / "ntprof-join.rst"
FIVE = ("block", "driver", "network", "target_driver", "storage")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("joincmd")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=31)


@pytest.fixture(scope="module")
def joined(run, pair, tmp_path_factory):
    out = tmp_path_factory.mktemp("joined") / "joined.ntp"
    r = run("join", "-o", out, pair.host_paths[0], pair.target_paths[0])
    assert r.returncode == Exit.OK and r.stderr == "", r.stderr
    return out, r.stdout


def ok(r):
    assert r.returncode == Exit.OK, r.stderr
    assert r.stderr == ""
    return r


def one_error_line(r, code):
    assert r.returncode == code, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ntprof join: error: "), r.stderr
    assert r.stdout == ""
    return lines[0]


def report_json(run, *paths):
    return json.loads(ok(run("report", "-j", "-", *paths)).stdout)


def stage_tables(text):
    """The report text from the group table on: what the data, not the file names, decide."""
    lines = text.splitlines()
    k = next(i for i, l in enumerate(lines) if l.startswith("# end-to-end latency per group"))
    return lines[k:]


def rows(db, sql):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return c.execute(sql).fetchall()
    finally:
        c.close()


# ---- what the file holds ------------------------------------------------------

def test_summary_line_names_counts_and_clock(run, pair, joined):
    out, stdout = joined
    doc = report_json(run, pair.host_paths[0], pair.target_paths[0])
    p, c = doc["clock_pairs"][0], doc["join"]
    assert stdout == (f"{out}: {c['matched']} of {c['host_commands']} host commands joined with "
                      f"{c['target_commands']} target commands; clock offset "
                      f"{p['offset_ns']:+d} ns, drift {p['drift_ppm']:+.3f} ppm\n")


def test_file_is_a_recording_with_both_sides_as_recorded(pair, joined):
    out, _ = joined
    h, t = pair.host_paths[0], pair.target_paths[0]
    assert rows(out, "PRAGMA application_id") == rows(h, "PRAGMA application_id")
    assert rows(out, "PRAGMA user_version") == rows(h, "PRAGMA user_version")
    for table, src in (("host_io", h), ("target_io", t)):
        assert rows(out, f"SELECT * FROM {table} ORDER BY id") == \
            rows(src, f"SELECT * FROM {table} ORDER BY id")
    for table in ("hooks", "intervals"):
        want = sorted(rows(h, f"SELECT * FROM {table} WHERE side = 'host'") +
                      rows(t, f"SELECT * FROM {table} WHERE side = 'target'"))
        assert sorted(rows(out, f"SELECT * FROM {table}")) == want
    # meta is the host's with role joined; join_meta both metas as they were
    hm = dict(rows(h, "SELECT key, value FROM meta"))
    assert dict(rows(out, "SELECT key, value FROM meta")) == {**hm, "role": "joined"}
    for side, src in (("host", h), ("target", t)):
        assert dict(rows(out, f"SELECT key, value FROM join_meta WHERE side = '{side}'")) == \
            dict(rows(src, "SELECT key, value FROM meta"))


def test_pairs_are_the_true_pairs(pair, joined):
    out, _ = joined
    got = rows(out, "SELECT host_id, target_id FROM join_pairs ORDER BY host_id")
    # ntpgen writes each side's rows in time order: map its commands to their ids
    hid = {id(c): i + 1 for i, c in enumerate(sorted(
        (c for c in pair.commands if c.fate != "lost_host"), key=lambda c: c.host["h_start_ns"]))}
    tid = {id(c): i + 1 for i, c in enumerate(sorted(
        (c for c in pair.commands if c.fate != "lost_target"),
        key=lambda c: c.target["t_recv_ns"]))}
    assert got == sorted((hid[id(c)], tid[id(c)]) for c in pair.matched())


def test_clock_table_equals_report(run, pair, joined):
    out, _ = joined
    doc = report_json(run, pair.host_paths[0], pair.target_paths[0])
    p, c = doc["clock_pairs"][0], doc["join"]
    (row,) = rows(out, "SELECT clock, estimated, t0_ns, offset_ns, drift, tolerance_ns,"
                       " candidates, support, matched, unmatched_host, unmatched_target,"
                       " rejected, host_file, target_file FROM join_clock")
    assert row[:3] == ("two clocks", 1, p["t0_ns"])
    assert round(row[3]) == p["offset_ns"] and row[4] * 1e6 == pytest.approx(p["drift_ppm"])
    assert (row[5], row[6], row[7]) == (p["tolerance_ns"], p["candidates"], p["support"])
    assert row[8:12] == (c["matched"], c["unmatched_host"], c["unmatched_target"], c["rejected"])
    assert row[12:] == (str(pair.host_paths[0]), str(pair.target_paths[0]))
    assert c == pair.counts() | {"matched_pct": c["matched_pct"]}


# ---- read back: report and dump --------------------------------------------------

def test_report_of_joined_file_equals_report_of_pair(run, pair, joined):
    out, _ = joined
    h, t = pair.host_paths[0], pair.target_paths[0]
    # text: the group and stage tables byte for byte
    assert stage_tables(ok(run("report", out)).stdout) == \
        stage_tables(ok(run("report", h, t)).stdout)
    a, b = report_json(run, h, t), report_json(run, out)
    assert b["groups"] == a["groups"] and b["join"] == a["join"]
    assert b["clock_pairs"] == [dict(a["clock_pairs"][0], target_file=1)]
    assert b["files"][0]["role"] == "joined" and len(b["files"]) == 1
    # and the numbers are the generator's
    assert_groups_equal(b, ntpgen.expected_joined_groups(pair), FIVE)


def test_detail_of_joined_file_equals_pair(run, pair, joined):
    out, _ = joined
    a = json.loads(ok(run("report", "-S", "detail", "-j", "-", pair.host_paths[0],
                          pair.target_paths[0])).stdout)
    b = json.loads(ok(run("report", "-S", "detail", "-j", "-", out)).stdout)
    assert b["groups"] == a["groups"]


def test_dump_of_joined_file_equals_dump_of_pair(run, pair, joined):
    out, _ = joined
    a = ok(run("dump", pair.host_paths[0], pair.target_paths[0])).stdout.splitlines()
    b = ok(run("dump", out)).stdout.splitlines()
    assert b[0] == a[0] and a[0].startswith("host_file,target_file,")
    # one file holds both sides: its host and target file are 1 and 1
    assert [l.split(",", 2)[2] for l in b[1:]] == [l.split(",", 2)[2] for l in a[1:]]
    assert {tuple(l.split(",", 2)[:2]) for l in b[1:]} == {("1", "1")}


def test_joined_file_is_not_joined_again(run, pair, joined, tmp_path):
    out, _ = joined
    line = one_error_line(run("join", "-o", tmp_path / "x.ntp", out), Exit.MISMATCH)
    assert "joined recording" in line and not (tmp_path / "x.ntp").exists()
    r = run("report", out, pair.target_paths[0])
    assert r.returncode == Exit.MISMATCH and "joined recording" in r.stderr


def test_damaged_pairing_is_corrupt(run, joined, tmp_path):
    out, _ = joined
    for name, sql, words in (
            ("noclock", "DELETE FROM join_clock", "join_clock has no row"),
            ("twoclocks", "INSERT INTO join_clock SELECT * FROM join_clock", "more than one row"),
            ("badclock", "UPDATE join_clock SET clock = 'three clocks'", "none of"),
            ("badid", "UPDATE join_pairs SET target_id = 999999 WHERE host_id ="
                      " (SELECT min(host_id) FROM join_pairs)", "target command 999999"),
            ("notables", "DROP VIEW joined_stages; DROP TABLE join_pairs", "without the join_pairs")):
        f = tmp_path / f"{name}.ntp"
        f.write_bytes(out.read_bytes())
        c = sqlite3.connect(f)
        c.executescript(sql)
        c.close()
        for cmd in ("report", "dump"):
            r = run(cmd, f)
            assert r.returncode == Exit.CORRUPT, (name, r.stderr)
            line, = r.stderr.splitlines()
            assert "damaged joined recording" in line and words in line, line


# ---- the worked queries of ntprof-ntp(5) -------------------------------------------

def doc_queries():
    """The SQL of the EXAMPLES literal blocks that query joined.ntp, by what they answer."""
    text = NTP_DOC.read_text().split("\nEXAMPLES\n", 1)[1].split("\nFILES\n", 1)[0]
    found = {}
    for sql in re.findall(r'sqlite3 [^"\n]*joined\.ntp "(.*?)"', text, re.S):
        key = ("storage_mean" if "storage_mean_us" in sql else
               "five_means" if "avg(block_ns)" in sql else
               "p99" if "row_number()" in sql else
               "clock" if "FROM join_clock" in sql else
               "slowest" if "ORDER BY e2e_ns DESC" in sql else None)
        assert key and key not in found, sql
        found[key] = sql
    assert set(found) == {"storage_mean", "five_means", "p99", "clock", "slowest"}
    return found


def dict_rows(db, sql):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    c.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in c.execute(sql)]
    finally:
        c.close()


def check_queries(run, db, *report_args):
    q = doc_queries()
    doc = report_json(run, *report_args)
    groups = {(g["io_type"], g["bytes"], g["namespace"]): g for g in doc["groups"]}
    stage = lambda g, s: next(x for x in g["stages"] if x["stage"] == s)

    got = dict_rows(db, q["storage_mean"])
    assert [r["n"] for r in got] == sorted((r["n"] for r in got), reverse=True)
    assert {(r["io_type"], r["bytes"], r["namespace"]) for r in got} == set(groups)
    for r in got:
        g = groups[(r["io_type"], r["bytes"], r["namespace"])]
        assert r["n"] == g["n"]
        assert abs(r["storage_mean_us"] - stage(g, "storage")["mean_ns"] / 1000) <= 0.0051

    for r in dict_rows(db, q["five_means"]):
        g = groups[(r["io_type"], r["bytes"], r["namespace"])]
        assert r["n"] == g["n"]
        for col, s in (("block", "block"), ("driver_h", "driver"), ("network", "network"),
                       ("driver_t", "target_driver"), ("storage", "storage")):
            assert abs(r[col] - stage(g, s)["mean_ns"]) <= 0.5 + 1e-6, (col, r[col])
        assert abs(r["e2e"] - g["e2e"]["mean_ns"]) <= 0.5 + 1e-6

    got = dict_rows(db, q["p99"])
    assert len(got) == len(groups)
    for r in got:
        g = groups[(r["io_type"], r["bytes"], r["namespace"])]
        # the report shows no p99 of fewer than 100 commands; the query computes one anyway
        want = stage(g, "storage")["p99_ns"]
        assert r["storage_p99_ns"] == want or (want is None and g["n"] < 100)

    (c,) = dict_rows(db, q["clock"])
    p, j = doc["clock_pairs"][0], doc["join"]
    assert round(c["offset_ns"]) == (p["offset_ns"] or 0)
    assert c["drift_ppm"] == pytest.approx(p["drift_ppm"] or 0.0, abs=1e-9)
    assert (c["support"], c["candidates"], c["matched"]) == \
        (p["support"], p["candidates"], j["matched"])
    assert c["matched_pct"] == pytest.approx(j["matched_pct"])

    (s,) = dict_rows(db, q["slowest"])
    assert max(g["e2e"]["max_ns"] for g in doc["groups"]) == \
        s["h_done_ns"] - s["h_start_ns"]
    # on the host's clock the target had the command while the host did (within the tolerance)
    tol = p["tolerance_ns"]
    assert s["h_start_ns"] - tol <= s["t_recv_host_ns"] <= s["t_sent_host_ns"] <= s["h_done_ns"] + tol
    return doc


def test_worked_queries_equal_report_of_pair(run, pair, joined):
    out, _ = joined
    doc = check_queries(run, out, pair.host_paths[0], pair.target_paths[0])
    assert doc["join"]["matched"] == len(pair.matched())


def test_worked_queries_equal_report_of_both_file(run, tmp_path):
    both = tmp_path / "both.ntp"
    ntpgen.generate_both(both, seed=32)
    out = tmp_path / "joined.ntp"
    r = ok(run("join", "-o", out, both))
    assert r.stdout.endswith("; same clock (one recording)\n")
    assert rows(out, "SELECT clock, offset_ns, drift FROM join_clock") == \
        [("one recording", 0.0, 0.0)]
    check_queries(run, out, both)
    a, b = report_json(run, both), report_json(run, out)
    assert b["groups"] == a["groups"] and b["join"] == a["join"]
    assert dict(rows(out, "SELECT key, value FROM join_meta WHERE side = 'both'")) == \
        dict(rows(both, "SELECT key, value FROM meta"))


def test_joined_stages_view_equals_dump(run, joined):
    """The view and the join's temp.joined (dump) agree on every command."""
    out, _ = joined
    lines = ok(run("dump", out)).stdout.splitlines()
    head = lines[0].split(",")
    cols = ("host_id", "target_id", "e2e_ns", "block_ns", "driver_ns", "network_ns",
            "target_driver_ns", "storage_ns", "offset_ns")
    want = sorted(tuple(int(f[head.index(c)]) for c in cols)
                  for f in (l.split(",") for l in lines[1:]))
    assert want and rows(out, f"SELECT {', '.join(cols)} FROM joined_stages ORDER BY host_id") \
        == want


def test_recording_of_an_older_writer_joins(run, tmp_path):
    """Inputs without the join tables (as every file before them) still join."""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=33)
    for p in js.host_paths + js.target_paths:
        c = sqlite3.connect(p)
        c.executescript("DROP VIEW joined_stages; DROP TABLE join_pairs; DROP TABLE join_clock;"
                        " DROP TABLE join_meta;")
        c.close()
    out = tmp_path / "j.ntp"
    ok(run("join", "-q", "-o", out, *js.host_paths, *js.target_paths))
    assert report_json(run, out)["groups"] == report_json(run, *js.host_paths,
                                                          *js.target_paths)["groups"]


# ---- options ---------------------------------------------------------------------

def test_options_equal_man_page(run):
    h = ok(run("join", "--help")).stdout
    page = JOIN_DOC.read_text().split("\nOPTIONS\n", 1)[1].split("\nEXIT STATUS\n", 1)[0]
    documented = set(re.findall(r"^(-\w)(?: [A-Z]+)?, (--[\w-]+)", page, re.M))
    assert documented == set(re.findall(r"^ {4,}(-\w), (--[\w-]+)", h, re.M))
    assert documented == {("-o", "--output"), ("-q", "--quiet"), ("-h", "--help")}


def test_long_output_quiet_and_any_order(run, pair, tmp_path):
    out = tmp_path / "j.ntp"
    r = ok(run("join", "--quiet", "--output", out, pair.target_paths[0], pair.host_paths[0]))
    assert r.stdout == ""
    r2 = ok(run("join", "-q", "-o", tmp_path / "k.ntp", pair.host_paths[0], pair.target_paths[0]))
    assert r2.stdout == ""
    assert rows(out, "SELECT * FROM join_pairs ORDER BY host_id") == \
        rows(tmp_path / "k.ntp", "SELECT * FROM join_pairs ORDER BY host_id")


def test_existing_output_becomes_old(run, pair, tmp_path):
    out = tmp_path / "j.ntp"
    out.write_text("the previous one\n")
    ok(run("join", "-o", out, pair.host_paths[0], pair.target_paths[0]))
    assert (tmp_path / "j.ntp.old").read_text() == "the previous one\n"
    assert rows(out, "SELECT value FROM meta WHERE key = 'role'") == [("joined",)]
    # a failure leaves the existing file as it was, and nothing beside it
    before = out.read_bytes()
    one_error_line(run("join", "-o", out, pair.host_paths[0]), Exit.MISMATCH)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.ntp", "j.ntp.old"]


def test_recordings_are_not_modified(run, pair, tmp_path):
    paths = (pair.host_paths[0], pair.target_paths[0])
    before = [p.read_bytes() for p in paths]
    ok(run("join", "-q", "-o", tmp_path / "j.ntp", *paths))
    assert [p.read_bytes() for p in paths] == before


# ---- refusals --------------------------------------------------------------------

def test_unrelated_recordings_are_refused(run, pair, tmp_path):
    other = ntpgen.generate_pair(tmp_path / "h2.ntp", tmp_path / "t2.ntp", seed=99)
    out = tmp_path / "j.ntp"
    line = one_error_line(run("join", "-o", out, pair.host_paths[0], other.target_paths[0]),
                          Exit.MISMATCH)
    assert "no clock offset pairs their commands" in line
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == \
        ["h2.ntp", "t2.ntp"]


def test_two_of_one_role_are_refused(run, tmp_path):
    links = [ntpgen.Link(0, 0, groups=ntpgen.DEFAULT_JGROUPS[:1]),
             ntpgen.Link(1, 1, "nvme1", 2, groups=ntpgen.DEFAULT_JGROUPS[:1])]
    p = [tmp_path / n for n in ("h1.ntp", "h2.ntp", "t1.ntp", "t2.ntp")]
    ntpgen.generate_joined(p[:2], p[2:], links, seed=6)
    out = tmp_path / "j.ntp"
    assert "target recordings" in one_error_line(run("join", "-o", out, p[2], p[3]),
                                                 Exit.MISMATCH)
    assert "host recordings" in one_error_line(run("join", "-o", out, p[0], p[1]), Exit.MISMATCH)
    assert "host recording" in one_error_line(run("join", "-o", out, p[0]), Exit.MISMATCH)
    assert "target recording" in one_error_line(run("join", "-o", out, p[2]), Exit.MISMATCH)
    assert not out.exists()


def test_two_both_recordings_are_refused(run, tmp_path):
    a, b = tmp_path / "a.ntp", tmp_path / "b.ntp"
    ntpgen.generate_both(a, seed=4)
    ntpgen.generate_both(b, seed=5)
    line = one_error_line(run("join", "-o", tmp_path / "j.ntp", a, b), Exit.MISMATCH)
    assert "combinations" in line


def test_settings_that_differ_are_refused(run, tmp_path):
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=2,
                              target_meta=[{"sample_one_in": 10}])
    line = one_error_line(run("join", "-o", tmp_path / "j.ntp", *js.host_paths,
                              *js.target_paths), Exit.MISMATCH)
    assert "sample rate" in line


def test_command_line_mistakes(run, pair, tmp_path):
    h, t = pair.host_paths[0], pair.target_paths[0]
    out = tmp_path / "j.ntp"
    assert "no output given" in one_error_line(run("join", h, t), Exit.USAGE)
    assert "no recording given" in one_error_line(run("join", "-o", out), Exit.USAGE)
    assert "more than two" in one_error_line(run("join", "-o", out, h, t, h), Exit.USAGE)
    assert "twice" in one_error_line(run("join", "-o", out, h, h), Exit.USAGE)
    assert "being joined" in one_error_line(run("join", "-o", h, h, t), Exit.USAGE)
    assert "standard output" in one_error_line(run("join", "-o", "-", h, t), Exit.USAGE)
    assert "it is a directory" in one_error_line(run("join", "-o", tmp_path, h, t), Exit.FAILURE)
    assert "not a regular file" in one_error_line(run("join", "-o", "/dev/null", h, t),
                                                  Exit.USAGE)
    r = run("join", "--bogus", h, t)
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert not out.exists()


def test_unwritable_output(run, pair, tmp_path):
    h, t = pair.host_paths[0], pair.target_paths[0]
    line = one_error_line(run("join", "-o", tmp_path / "nodir" / "j.ntp", h, t), Exit.FAILURE)
    assert "nodir" in line and "No such file or directory" in line
    plain = tmp_path / "plain"
    plain.write_text("")
    line = one_error_line(run("join", "-o", plain / "j.ntp", h, t), Exit.FAILURE)
    assert "Not a directory" in line


def test_bad_input_files(run, pair, tmp_path):
    h = pair.host_paths[0]
    out = tmp_path / "j.ntp"
    assert "missing.ntp" in one_error_line(run("join", "-o", out, h, tmp_path / "missing.ntp"),
                                           Exit.NOFILE)
    junk = tmp_path / "junk.ntp"
    junk.write_text("not a database\n" * 100)
    one_error_line(run("join", "-o", out, h, junk), Exit.NOTSQLITE)
    plain = tmp_path / "plain.db"
    c = sqlite3.connect(plain)
    c.execute("CREATE TABLE x (a)")
    c.close()
    one_error_line(run("join", "-o", out, h, plain), Exit.NOTNTP)
    assert not out.exists()


def test_fuzz_seed_writer_agrees_with_join(run, pair, joined, tmp_path):
    """ntpgen.write_joined_file (the fuzzer's joined seed) writes from the
    truth what ntprof join writes from the recordings."""
    out, _ = joined
    seed = tmp_path / "seed.ntp"
    ntpgen.write_joined_file(seed, pair)
    a, b = report_json(run, out), report_json(run, seed)
    assert b["groups"] == a["groups"] and b["join"] == a["join"]
    q = "SELECT host_id, target_id, offset_ns FROM join_pairs ORDER BY host_id"
    assert [r[:2] for r in rows(seed, q)] == [r[:2] for r in rows(out, q)]
    # the true and the estimated offset both lie in every pair's causal bound
    # (ntprof-design(7), JOINING), which is as far as the data fix the offset
    for db in (seed, out):
        assert rows(db, "SELECT count(*) FROM join_pairs p"
                        " JOIN host_io h ON h.id = p.host_id JOIN target_io t ON t.id = p.target_id"
                        " JOIN join_clock c WHERE p.offset_ns < t.t_sent_ns - h.h_done_ns"
                        " - c.tolerance_ns OR p.offset_ns > t.t_recv_ns - h.h_queue_ns"
                        " + c.tolerance_ns") == [(0,)]


def test_both_recording_with_its_pairing_reads_it(run, tmp_path):
    """A "-r both" recording that record paired when it closed it (its
    join_pairs and join_clock filled, as ntp_join__store fills them): report,
    dump and join give what they give without the pairing."""
    both, paired, out = tmp_path / "both.ntp", tmp_path / "paired.ntp", tmp_path / "j.ntp"
    ntpgen.generate_both(both, seed=34)
    ok(run("join", "-q", "-o", out, both))
    paired.write_bytes(both.read_bytes())
    c = sqlite3.connect(paired)
    c.execute("ATTACH ? AS j", (str(out),))
    c.executescript("INSERT INTO join_pairs SELECT * FROM j.join_pairs;"
                    " INSERT INTO join_clock SELECT * FROM j.join_clock;")
    c.commit()
    c.close()
    assert stage_tables(ok(run("report", paired)).stdout) == \
        stage_tables(ok(run("report", both)).stdout)
    a, b = report_json(run, both), report_json(run, paired)
    for k in ("groups", "join", "clock_pairs"):
        assert b[k] == a[k], k
    assert ok(run("dump", paired)).stdout == ok(run("dump", both)).stdout
    check_queries(run, paired, both)
    # ntprof join pairs it anew, whatever it holds
    c = sqlite3.connect(paired)
    c.execute("DELETE FROM join_pairs WHERE host_id % 2 = 0")
    c.commit()
    c.close()
    # (report reads the pairing: half of it is half the joined commands)
    assert report_json(run, paired)["join"]["matched"] == \
        rows(paired, "SELECT count(*) FROM join_pairs")[0][0] < a["join"]["matched"]
    ok(run("join", "-q", "-o", tmp_path / "k.ntp", paired))
    q = "SELECT * FROM join_pairs ORDER BY host_id"
    assert rows(tmp_path / "k.ntp", q) == rows(out, q)


def test_man_page_example_is_real_output(run, tmp_path):
    """ntprof-join(1)'s EXAMPLES show what the test suite's default pair
    (ntpgen.generate_pair, seed 21) gives."""
    text = JOIN_DOC.read_text().split("\nEXAMPLES\n", 1)[1]
    js = ntpgen.generate_pair(tmp_path / "host.ntp", tmp_path / "target.ntp", seed=21)
    out = tmp_path / "joined.ntp"
    r = ok(run("join", "-o", out, *js.host_paths, *js.target_paths))
    summary = re.search(r"^    (joined\.ntp: .*)$", text, re.M).group(1)
    assert r.stdout == summary.replace("joined.ntp", str(out), 1) + "\n"
    shown = re.findall(r"^    (\w+\|\d+\|\w+\|\d+\|[\d.]+)$", text, re.M)
    got = rows(out, "SELECT io_type, bytes, namespace, count(*), avg(storage_ns)"
                    " FROM joined_stages GROUP BY 1, 2, 3")
    assert len(shown) == len(got) == 4
    for line, g in zip(shown, got):
        f = line.split("|")
        assert (f[0], int(f[1]), f[2], int(f[3])) == g[:4]
        assert float(f[4]) == pytest.approx(g[4], rel=1e-12)
    clock = dict(re.findall(r"^ +(\w+) = (.*)$", text, re.M))
    (row,) = dict_rows(out, "SELECT * FROM join_clock")
    assert set(clock) == set(row)
    for k, v in row.items():
        if isinstance(v, float):
            assert float(clock[k]) == pytest.approx(v, rel=1e-12), k
        elif k.endswith("_file"):
            assert str(tmp_path / clock[k]) == v
        else:
            assert clock[k] == str(v), k


def test_compare_of_joined_recordings__the_five_stages_of_the_pair(run, pair, joined):
    """A joined file is a joined run to compare, as the pair it was made of."""
    out, _ = joined
    run_of_pair = f"{pair.host_paths[0]},{pair.target_paths[0]}"
    a = json.loads(ok(run("compare", "-j", "-", out, out)).stdout)
    b = json.loads(ok(run("compare", "-j", "-", run_of_pair, run_of_pair)).stdout)
    assert a["kind"] == b["kind"] == "joined"
    assert a["groups"] == b["groups"] and a["groups"]
    assert [s["stage"] for s in a["groups"][0]["stages"]] == list(FIVE) + ["e2e"]
    r = run("compare", out, pair.host_paths[0])
    assert r.returncode == Exit.MISMATCH
    assert "joined recordings (baseline) vs host recordings (new)" in r.stderr


def test_one_boot_pair_keeps_its_clock(run, tmp_path):
    """A host and a target recording of one boot (one clock, two files, in
    either order): the joined file says so, and reads back the same."""
    boot = {"boot_id": "6d1c3a52-1f0e-4b7e-9a55-0c2d4e8f7a19"}
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=5, offset_ns=0,
                              drift=0.0, host_meta=[boot], target_meta=[boot])
    out = tmp_path / "j.ntp"
    r = ok(run("join", "-o", out, tmp_path / "t.ntp", tmp_path / "h.ntp"))
    assert r.stdout.endswith("; same clock (one boot)\n")
    assert rows(out, "SELECT clock, offset_ns, drift, host_file, target_file FROM join_clock") == \
        [("one boot", 0.0, 0.0, str(tmp_path / "h.ntp"), str(tmp_path / "t.ntp"))]
    assert rows(out, "SELECT count(*) FROM join_pairs WHERE offset_ns != 0") == [(0,)]
    a, b = report_json(run, tmp_path / "h.ntp", tmp_path / "t.ntp"), report_json(run, out)
    assert b["groups"] == a["groups"] and b["join"] == a["join"]
    assert b["clock_pairs"][0]["clock"] == "same clock (one boot)"
    assert_groups_equal(b, ntpgen.expected_joined_groups(js), FIVE)


def test_rdma_pair(run, tmp_path):
    """NVMe/RDMA recordings join and read back the same way."""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=35, transport="rdma")
    out = tmp_path / "j.ntp"
    ok(run("join", "-q", "-o", out, *js.host_paths, *js.target_paths))
    assert rows(out, "SELECT value FROM meta WHERE key = 'transport'") == [("rdma",)]
    a, b = report_json(run, *js.host_paths, *js.target_paths), report_json(run, out)
    assert b["groups"] == a["groups"] and b["join"] == a["join"]
    assert stage_tables(ok(run("report", out)).stdout) == \
        stage_tables(ok(run("report", *js.host_paths, *js.target_paths)).stdout)
    check_queries(run, out, *js.host_paths, *js.target_paths)


def test_refused_input_leaves_nothing(run, tmp_path):
    """A recording that is not ntprof's (a hooks table without its STRICT
    declaration and NOT NULL reason): refused as corrupt before anything is
    written, one line naming it, exit 9, no new file nor temporary one, an
    existing FILE as it was."""
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=36)
    c = sqlite3.connect(js.host_paths[0])
    c.executescript("DROP TABLE hooks; CREATE TABLE hooks (side, point, hook, flavour, reason);"
                    " INSERT INTO hooks VALUES ('host', 'h_start', 'x', 'raw_tp', NULL);")
    c.close()
    out = tmp_path / "j.ntp"
    out.write_text("the previous one\n")
    r = run("join", "-o", out, *js.host_paths, *js.target_paths)
    line = one_error_line(r, Exit.CORRUPT)
    assert str(js.host_paths[0]) in line and "hooks" in line, line
    assert out.read_text() == "the previous one\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.ntp", "j.ntp", "t.ntp"]
