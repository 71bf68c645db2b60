# SPDX-License-Identifier: GPL-2.0
"""ntprof series: per interval and group, n, the rate, and the mean and p99 of
each stage, on every kind of recording ntpgen.py writes (a host alone, a
target alone, a host and a target joined, one "-r both" file).

Every row is checked against values computed here over the same window: SQL
over the .ntp file (SUM and COUNT for the mean, the window's values for the
nearest-rank p99) for a recording alone, the generator's own records for a
joined pair; the rows must be exactly the (interval, group) pairs that have
commands, their n must add up to the commands, and the CSV and the text must
say what the JSON says."""

import csv
import io
import json
import re
import sqlite3

import pytest

import ntpgen
from report_text import size_str, us
from conftest import Exit, run_ok

S = 1_000_000_000


def series_json(run, *args):
    return json.loads(run_ok(run, "series", "-j", "-", *args).stdout)


def window_index(t, origin, interval):
    return (t - origin) // interval       # Python's floor division, as documented


def expected_rows(cmds, origin, interval, stages):
    """cmds: [(file, io_type, bytes, name, start, {stage: value, 'e2e': value})] ->
    {(file, interval, io_type, bytes, name): {stage: [values]}}"""
    out = {}
    for f, io_type, nbytes, name, t, vals in cmds:
        key = (f, window_index(t, origin[f], interval), io_type, nbytes, name)
        w = out.setdefault(key, {})
        for k in ("e2e",) + tuple(stages):
            w.setdefault(k, []).append(vals[k])
    return out


def assert_rows(doc, want, interval, origin, one_in, end=None):
    """The JSON rows against Python's: the same (interval, group) pairs, exact
    means and p99s, n and the rate."""
    got = {}
    for r in doc["rows"]:
        key = (r["file"], r["interval"], r["io_type"], r["bytes"], r["namespace"] or r["device"])
        assert key not in got, key
        got[key] = r
    assert sorted(got) == sorted(want)
    assert doc["commands"] == sum(len(w["e2e"]) for w in want.values())
    assert doc["row_count"] == len(want)
    for key, r in got.items():
        w = want[key]
        start = origin[key[0]] + key[1] * interval
        assert r["start_ns"] == start
        covered = interval if end is None or start + interval <= end else end - start
        assert r["covered_ns"] == covered
        assert r["n"] == len(w["e2e"])
        assert r["est_cmds_per_s"] == pytest.approx(r["n"] * one_in / (covered / S), rel=1e-12)
        assert r["e2e"]["mean_ns"] == ntpgen.mean_ns(w["e2e"])
        # a p99 of fewer than 100 commands would be their maximum: null
        assert r["e2e"]["p99_ns"] == (ntpgen.percentile(w["e2e"], 99)
                                      if len(w["e2e"]) >= 100 else None)
        assert r["e2e"] == ntpgen.summary(w["e2e"])
        for s in r["stages"]:
            assert s["mean_ns"] == ntpgen.mean_ns(w[s["stage"]]), (key, s["stage"])
            assert s == {"stage": s["stage"], **ntpgen.summary(w[s["stage"]])}, \
                (key, s["stage"])
    # in time order, and within an interval in the report's order of groups
    rank = {"read": 0, "write": 1, "other": 2}
    order = [(r["file"], r["interval"], r["namespace"] or r["device"], rank[r["io_type"]],
              r["bytes"]) for r in doc["rows"]]
    assert order == sorted(order)


# ---- a host recording alone ----------------------------------------------------------

HOST_STAGES = ("block", "driver", "network_star")


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("series") / "host.ntp", seed=77)


def host_cmds(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT io_type, bytes, namespace, h_start_ns, e2e_ns, block_ns,"
                      " driver_ns, network_star_ns FROM host_stages").fetchall()
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    cmds = [(1, io, b, ns, t, {"e2e": e, "block": bl, "driver": d, "network_star": n})
            for io, b, ns, t, e, bl, d, n in rows]
    return cmds, meta


@pytest.mark.parametrize("interval,arg", [(S, None), (S // 2, "0.5"), (3 * S, "3s"),
                                          (100_000_000, "100ms")])
def test_host_rows_equal_python_over_each_window(run, host, interval, arg):
    args = ("-i", arg) if arg else ()
    doc = series_json(run, *args, host.path)
    cmds, meta = host_cmds(host.path)
    assert doc["command"] == "series" and doc["kind"] == "host" and doc["clock"] == "host"
    assert doc["interval_ns"] == interval
    assert doc["stages"] == list(HOST_STAGES)
    assert doc["files"][0]["origin_ns"] == meta["start_ns"]
    assert doc["join"] is None
    assert_rows(doc, expected_rows(cmds, {1: meta["start_ns"]}, interval, HOST_STAGES),
                interval, {1: meta["start_ns"]}, meta["sample_one_in"], end=meta["stop_ns"])


def test_host_means_equal_sql_avg(run, host):
    """The means, straight from SQL's AVG over each row's window and group."""
    doc = series_json(run, host.path)
    db = sqlite3.connect(f"file:{host.path}?mode=ro", uri=True)
    for r in doc["rows"]:
        n, e2e, block, driver, net = db.execute(
            "SELECT count(*), avg(e2e_ns), avg(block_ns), avg(driver_ns), avg(network_star_ns)"
            " FROM host_stages WHERE h_start_ns >= ? AND h_start_ns < ? AND io_type = ?"
            " AND bytes = ? AND namespace = ?",
            (r["start_ns"], r["start_ns"] + S, r["io_type"], r["bytes"], r["namespace"])).fetchone()
        assert r["n"] == n
        assert abs(r["e2e"]["mean_ns"] - e2e) <= 0.5
        for s, v in zip(r["stages"], (block, driver, net)):
            assert abs(s["mean_ns"] - v) <= 0.5
    db.close()


def opt_int(s):
    """A CSV field of ns: an empty one is the JSON's null."""
    return None if s == "" else int(s)


@pytest.mark.parametrize("step", [1, 5])
def test_csv_and_text_say_what_the_json_says(run, host, tmp_path, step):
    """-j FILE and --csv FILE beside the text, in one run; intervals of 5 s
    hold the 100 commands a p99 needs in the larger groups, of 1 s none."""
    jpath, cpath = tmp_path / "s.json", tmp_path / "s.csv"
    r = run_ok(run, "series", "-i", step, "-j", jpath, "--csv", cpath, host.path)
    doc = json.loads(jpath.read_text())
    rows = list(csv.DictReader(io.StringIO(cpath.read_text())))
    assert len(rows) == len(doc["rows"]) > 0
    cols = ["file", "interval", "start_ns", "covered_ns", "io_type", "bytes", "namespace", "n",
            "est_cmds_per_s", "e2e_mean_ns", "e2e_p99_ns"]
    for s in HOST_STAGES:
        cols += [f"{s}_mean_ns", f"{s}_p99_ns"]
    assert list(rows[0]) == cols
    for c, j in zip(rows, doc["rows"]):
        for k in ("file", "interval", "start_ns", "covered_ns", "bytes", "n"):
            assert int(c[k]) == j[k]
        assert (c["io_type"], c["namespace"]) == (j["io_type"], j["namespace"])
        assert float(c["est_cmds_per_s"]) == pytest.approx(j["est_cmds_per_s"], abs=5e-4)
        assert int(c["e2e_mean_ns"]) == j["e2e"]["mean_ns"]
        assert opt_int(c["e2e_p99_ns"]) == j["e2e"]["p99_ns"]
        for s in j["stages"]:
            assert int(c[s["stage"] + "_mean_ns"]) == s["mean_ns"]
            assert opt_int(c[s["stage"] + "_p99_ns"]) == s["p99_ns"]
    shown = [j["e2e"]["p99_ns"] for j in doc["rows"] if j["e2e"]["p99_ns"] is not None]
    assert bool(shown) == (step == 5)
    # the text: '#' lines, then rows of one shape under the titles
    lines = r.stdout.splitlines()
    titles = next(l for l in lines if l.startswith("#    time_s ")).lstrip("#").split()
    data = [l.split() for l in lines if not l.startswith("#")]
    assert len(data) == len(doc["rows"])
    labels = {"block": "block", "driver": "driver", "network_star": "network*"}
    for t, j in zip(data, doc["rows"]):
        row = dict(zip(titles, t))
        assert len(t) == len(titles)
        assert float(row["time_s"]) == pytest.approx(j["interval"] * step)
        assert (row["io_type"], row["size"], row["namespace"], int(row["n"])) == \
            (j["io_type"], size_str(j["bytes"]), j["namespace"], j["n"])
        assert row["est_cmds/s"] == f"{j['est_cmds_per_s']:.1f}"
        assert row["end-to-end.mean"] == us(j['e2e']['mean_ns'])
        assert row["end-to-end.p99"] == us(j['e2e']['p99_ns'])
        for s in j["stages"]:
            assert row[labels[s["stage"]] + ".mean"] == us(s['mean_ns'])
            assert row[labels[s["stage"]] + ".p99"] == us(s['p99_ns'])
    assert lines[-1] == f"# {doc['commands']} commands in {len(doc['rows'])} rows"
    assert f"# interval:          {step} s, by each command's start: h_start, on the " \
        "host's clock" in lines


def test_csv_quotes_a_namespace_with_a_comma(run, tmp_path):
    path = ntpgen.generate(tmp_path / "q.ntp", seed=2).path
    db = sqlite3.connect(path)
    db.execute("""UPDATE host_io SET namespace = 'nvme1n1,"x"' WHERE namespace = 'nvme1n1'""")
    db.commit()
    db.close()
    out = run_ok(run, "series", "--csv", "-", path).stdout
    assert '"nvme1n1,""x"""' in out
    rows = list(csv.DictReader(io.StringIO(out)))
    doc = series_json(run, path)
    assert [r["namespace"] for r in rows] == [r["namespace"] for r in doc["rows"]]
    assert 'nvme1n1,"x"' in {r["namespace"] for r in rows}


def test_pretty_indents_the_json(run, host):
    out = run_ok(run, "series", "-j", "-", "--pretty", host.path).stdout
    assert out.startswith("{\n  \"ntprof_version\"")
    assert json.loads(out) == series_json(run, host.path)


def test_without_start_ns_the_first_command_starts_interval_0(run, tmp_path):
    """No meta start_ns or stop_ns: the origin is the first command's start,
    and each interval's rate is over the whole interval."""
    rec = ntpgen.generate(tmp_path / "nostart.ntp", seed=4, meta={"start_ns": None,
                                                                 "stop_ns": None})
    cmds, meta = host_cmds(rec.path)
    assert "start_ns" not in meta
    origin = min(c[4] for c in cmds)
    doc = series_json(run, "-i", "2", rec.path)
    assert doc["files"][0]["origin_ns"] == origin
    assert_rows(doc, expected_rows(cmds, {1: origin}, 2 * S, HOST_STAGES), 2 * S, {1: origin},
                meta["sample_one_in"])


def test_no_commands(run, tmp_path):
    path = ntpgen.generate(tmp_path / "empty.ntp", seed=1).path
    db = sqlite3.connect(path)
    db.execute("DELETE FROM host_io")
    db.commit()
    db.close()
    doc = series_json(run, path)
    assert doc["rows"] == [] and doc["commands"] == 0 and doc["row_count"] == 0
    assert run_ok(run, "series", path).stdout.splitlines()[-1] == \
        "# no sampled host commands in this recording"
    assert run_ok(run, "series", "--csv", "-", path).stdout.count("\n") == 1   # the titles only


# ---- joined recordings, a target alone ---------------------------------------------

JOIN_STAGES = ("block", "driver", "network", "target_driver", "storage")


def joined_cmds(js):
    return [(c.link.host + 1, c.group.report_io_type, c.group.bytes, c.group.namespace,
             c.host["h_start_ns"], c.stages()) for c in js.matched()]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("seriesjoin")
    return ntpgen.generate_pair(d / "host.ntp", d / "target.ntp", seed=78)


@pytest.mark.parametrize("arg,interval", [("1", S), ("250ms", S // 4)])
def test_joined_pair_rows_equal_the_records(run, pair, arg, interval):
    doc = series_json(run, "-i", arg, pair.host_paths[0], pair.target_paths[0])
    meta = pair.host_meta[0]
    assert doc["kind"] == "joined" and doc["clock"] == "host"
    assert doc["stages"] == list(JOIN_STAGES)
    assert doc["join"]["matched"] == len(pair.matched())
    assert doc["files"][0]["origin_ns"] == meta["start_ns"]
    assert doc["files"][1]["origin_ns"] is None          # the target's clock places nothing
    origin = {1: meta["start_ns"]}
    assert_rows(doc, expected_rows(joined_cmds(pair), origin, interval, JOIN_STAGES), interval,
                origin, meta["sample_one_in"], end=meta["stop_ns"])
    # the same in any order of the files
    assert series_json(run, "-i", arg, pair.target_paths[0], pair.host_paths[0])["rows"] == \
        [dict(r, file=2) for r in doc["rows"]]


def test_joined_text_has_the_file_column_and_the_join(run, pair):
    out = run_ok(run, "series", pair.host_paths[0], pair.target_paths[0]).stdout
    assert out.startswith("# ntprof series: 2 recordings joined\n")
    assert f"# commands matched:  {len(pair.matched())} of the " in out
    titles = next(l for l in out.splitlines() if l.startswith("#    time_s ")).split()[1:]
    assert titles[:3] == ["time_s", "file", "io_type"]
    assert titles[-10:] == ["block.mean", "block.p99", "driver(h).mean", "driver(h).p99",
                            "network.mean", "network.p99", "driver(t).mean", "driver(t).p99",
                            "storage.mean", "storage.p99"]


def test_two_hosts_are_numbered_by_their_own_start(run, tmp_path):
    """Two host files against one target: rows host file by host file, each
    file's intervals from its own start."""
    links = [ntpgen.Link(0, 0, groups=ntpgen.DEFAULT_JGROUPS[:2], offset_ns=5_000_000_000,
                         drift=0.0),
             ntpgen.Link(1, 0, groups=ntpgen.DEFAULT_JGROUPS[2:], offset_ns=7_000_000_000,
                         drift=0.0)]
    js = ntpgen.generate_joined([tmp_path / "h1.ntp", tmp_path / "h2.ntp"], [tmp_path / "t.ntp"],
                                links, seed=6,
                                host_meta=[{}, {"start_ns": 1_000_000_000_000 - 3 * S}])
    paths = js.host_paths + js.target_paths
    doc = series_json(run, *paths)
    origin = {1: js.host_meta[0]["start_ns"], 2: js.host_meta[1]["start_ns"]}
    assert [f["origin_ns"] for f in doc["files"]] == [origin[1], origin[2], None]
    assert_rows(doc, expected_rows(joined_cmds(js), origin, S, JOIN_STAGES), S, origin,
                js.host_meta[0]["sample_one_in"])
    assert {r["file"] for r in doc["rows"]} == {1, 2}


def test_both_recording_rows_equal_the_records(run, tmp_path):
    js = ntpgen.generate_both(tmp_path / "both.ntp", seed=12)
    doc = series_json(run, "-i", "2", js.host_paths[0])
    meta = js.host_meta[0]
    assert doc["kind"] == "joined"
    origin = {1: meta["start_ns"]}
    assert_rows(doc, expected_rows(joined_cmds(js), origin, 2 * S, JOIN_STAGES), 2 * S, origin,
                meta["sample_one_in"], end=meta["stop_ns"])


def test_target_alone_is_placed_by_t_recv_on_its_clock(run, tmp_path):
    offset = 3_600_000_000_000
    t_start = 1_000_000_000_000 + offset
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=13, offset_ns=offset,
                              drift=0.0, target_meta=[{"start_ns": t_start,
                                                       "stop_ns": t_start + 10 * S}])
    path = js.target_paths[0]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT io_type, bytes, device, t_recv_ns, residence_ns, target_driver_ns,"
                      " storage_ns FROM target_stages").fetchall()
    db.close()
    cmds = [(1, io, b, dev, t, {"e2e": res, "target_driver": td, "storage": st})
            for io, b, dev, t, res, td, st in rows]
    doc = series_json(run, path)
    assert doc["kind"] == "target" and doc["clock"] == "target" and doc["e2e_is"] == "residence"
    assert doc["stages"] == ["target_driver", "storage"]
    assert all(r["namespace"] is None and r["device"] for r in doc["rows"])
    origin = {1: t_start}
    assert_rows(doc, expected_rows(cmds, origin, S, ("target_driver", "storage")), S, origin,
                js.target_meta[0]["sample_one_in"], end=t_start + 10 * S)
    text = run_ok(run, "series", path).stdout
    assert "t_recv, on the target's clock" in text
    assert "residence.mean" in text and " device " in text
    assert run_ok(run, "series", "--csv", "-", path).stdout.startswith(
        "file,interval,start_ns,covered_ns,io_type,bytes,device,n,est_cmds_per_s,"
        "e2e_mean_ns,e2e_p99_ns,target_driver_mean_ns,target_driver_p99_ns,storage_mean_ns,")


# ---- refusals --------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "-1", "abc", "2000000", "1ns", ""])
def test_bad_interval(run, host, value):
    r = run("series", "-i", value, str(host.path))
    assert r.returncode == Exit.USAGE
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("ntprof series: error: ")


def test_usage_errors(run, host, tmp_path):
    p = str(host.path)
    for args, cause in [((), "no recording given"),
                        (("-j", "-", "--csv", "-", p), "only one can write to stdout"),
                        (("--csv", p, p), "the output is the recording itself"),
                        (("-j", p, p), "the output is the recording itself"),
                        ((p, p), "")]:
        r = run("series", *args)
        assert r.returncode == Exit.USAGE, args
        assert len(r.stderr.splitlines()) == 1 and cause in r.stderr, r.stderr


def test_missing_file_and_unjoinable_files_leave_the_json_error(run, host, tmp_path):
    r = run("series", "-j", "-", str(tmp_path / "none.ntp"))
    assert r.returncode == Exit.NOFILE
    assert json.loads(r.stdout)["error"]["code"] == Exit.NOFILE
    assert len(r.stderr.splitlines()) == 1
    other = ntpgen.generate(tmp_path / "h2.ntp", seed=5).path
    out = tmp_path / "err.json"
    r = run("series", "-j", str(out), str(host.path), str(other))
    assert r.returncode == Exit.MISMATCH
    assert json.loads(out.read_text())["error"]["code"] == Exit.MISMATCH
    assert r.stdout == ""


def test_damage_found_before_streaming_makes_no_output_file(run, tmp_path):
    """The file's header reads well, but the records' payloads of some pages
    are garbage: the check of the file's structure, which runs beside the
    reading, finds them before the outputs are done: no --csv FILE is made,
    the -j FILE is the error document, the exit status says why, and the
    text on standard output, streamed as it is read, never ends as a whole
    one does (its closing count)."""
    path = tmp_path / "damaged.ntp"
    ntpgen.generate_bulk(path, 20000)
    data = bytearray(path.read_bytes())
    ps = 4096
    mid = len(data) // ps // 2
    for p in range(mid, mid + 40):
        data[p * ps + 2048:(p + 1) * ps] = b"\xff" * 2048
    path.write_bytes(bytes(data))
    jpath, cpath = tmp_path / "s.json", tmp_path / "s.csv"
    r = run("series", "-j", str(jpath), "--csv", str(cpath), str(path))
    assert r.returncode == Exit.CORRUPT
    assert r.stderr.count("\n") == 1 and "SQLite's check of its structure" in r.stderr
    assert not re.search(r"^# \d+ commands in \d+ rows", r.stdout, re.M), r.stdout
    assert json.loads(jpath.read_text())["error"]["code"] == Exit.CORRUPT
    assert not cpath.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.ntp", "s.json"]
