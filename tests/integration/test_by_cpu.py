# SPDX-License-Identifier: GPL-2.0
"""--by cpu and --by io_cpu (ntprof-report(1), ntprof-compare(1), ntprof-series(1))
on synthetic recordings with host_io's cpu and io_cpu (ntpgen's Cpus): every row
of report's, compare's and series' tables against SQL over the same file (count,
mean, p99 as report computes them), the share sent off the queue's io_cpu with
its send delays, and files without the columns read as not recorded."""

import json
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok

S = 1_000_000_000
WIDTH = 100
NAME = {"cpu": "coalesce('cpu ' || h.cpu, '(not recorded)')",
        "io_cpu": "coalesce('io_cpu ' || h.io_cpu, '(not recorded)')"}
# host_io joined to its stages, as the readers read them
FROM = "FROM host_io h JOIN host_stages s ON s.id = h.id"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two host recordings with the CPUs (30% and 70% of the commands off
    their queue's io_cpu), one made over RDMA (io_cpu NULL) and one of a
    writer before the columns."""
    d = tmp_path_factory.mktemp("bycpu")
    out = {
        "a": ntpgen.generate(d / "a.ntp", seed=21, cpus=ntpgen.Cpus(off=0.3)).path,
        "b": ntpgen.generate(d / "b.ntp", seed=22, cpus=ntpgen.Cpus(ncpu=3, off=0.7)).path,
        "rdma": ntpgen.generate(d / "r.ntp", seed=23, transport="rdma",
                                cpus=ntpgen.Cpus(io_cpu=False)).path,
        "old": ntpgen.generate(d / "old.ntp", seed=24).path,
    }
    ntpgen.without_app_columns(out["old"])
    return out


def connect(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def span_s(db, where=""):
    """The seconds Little's law takes a rate over (ntprof-report(1), DIAGNOSIS)."""
    meta = dict(db.execute("SELECT key, value FROM meta"))
    n, lo, hi = db.execute("SELECT count(*), min(h_start_ns), max(h_done_ns) FROM host_io h "
                           + where).fetchone()
    if n >= 100 and hi - lo < int(meta["duration_ns"]):
        return (hi - lo) / 1e9
    return int(meta["duration_ns"]) / 1e9


def sql_by(path, key, where=""):
    """{name: figures} of the host rows grouped by key, as SQL computes them."""
    db = connect(path)
    scale = int(dict(db.execute("SELECT key, value FROM meta"))["sample_one_in"]) / \
        span_s(db, where)
    out = {}
    for name, n, mean, held, known, off, off_d, on_d, queues, busy, busy_max in db.execute(
            "SELECT %s, count(*), avg(s.e2e_ns), avg(h.h_done_ns - h.h_queue_ns),"
            " count(h.cpu != h.io_cpu), coalesce(sum(h.cpu != h.io_cpu), 0),"
            " avg(CASE WHEN h.cpu != h.io_cpu THEN s.sent_ns - s.h_queue_ns END),"
            " avg(CASE WHEN h.cpu = h.io_cpu THEN s.sent_ns - s.h_queue_ns END),"
            " count(DISTINCT h.controller || ' ' || h.qid), avg(h.queue_in_flight),"
            " max(h.queue_in_flight) %s %s GROUP BY 1" %
            (NAME[key], FROM, where)):
        e2e = [v for (v,) in db.execute("SELECT s.e2e_ns %s WHERE %s = ? %s" %
                                        (FROM, NAME[key], "AND " + where[6:] if where else ""),
                                        (name,))]
        out[name] = dict(n=n, mean=mean, rate=n * scale, in_flight=n * scale * held / 1e9,
                         p99=ntpgen.percentile(e2e, 99) if n >= 100 else None,
                         known=known, off=off, off_d=off_d, on_d=on_d, queues=queues,
                         busy=busy, busy_max=busy_max)
    db.close()
    return out


def report_by(run, path, key, *extra):
    doc = json.loads(run_ok(run, "report", "--by", key, "-j", "-", *extra, path).stdout)
    return doc["by"], doc


def check_row(r, w):
    assert r["n"] == w["n"], r["name"]
    assert r["mean_ns"] == pytest.approx(w["mean"])
    assert r["est_rate"] == pytest.approx(w["rate"])
    assert r["in_flight"] == pytest.approx(w["in_flight"])
    assert r["tail_ns"] == w["p99"], r["name"]
    assert (r["cpus_known"], r["off_io_cpu"]) == (w["known"], w["off"]), r["name"]
    assert r["queue_in_flight_max"] == w["busy_max"], r["name"]
    for k, x in (("off_io_cpu_delay_ns", w["off_d"]), ("on_io_cpu_delay_ns", w["on_d"]),
                 ("queue_in_flight_mean", w["busy"])):
        assert r[k] == (None if x is None else pytest.approx(x)), (r["name"], k)


def check_report(by, want, key):
    assert by["key"] == key and by["tail_percentile"] == "p99"
    rows = {r["name"]: r for r in by["rows"]}
    assert list(rows) == sorted(rows, key=lambda x: int(x.split()[1])), "in CPU order"
    assert set(rows) == set(want)
    for name, w in want.items():
        r = rows[name]
        check_row(r, w)
        assert r["cpu"] == int(name.split()[1]) and r["queues"] == w["queues"], r
        assert (r["controller"], r["qid"], r["pid"]) == (None, None, None), r
    total = by["total"]
    assert total["n"] == sum(w["n"] for w in want.values())
    assert total["off_io_cpu"] == sum(w["off"] for w in want.values())
    assert total["est_rate"] == pytest.approx(sum(w["rate"] for w in want.values()))
    return rows


@pytest.mark.parametrize("key", ("cpu", "io_cpu"))
def test_report_by_cpu__rows_and_total_as_sql(run, files, key):
    by, _ = report_by(run, files["a"], key)
    want = sql_by(files["a"], key)
    assert len(want) == 4, want         # the generator's 4 CPUs, each with commands
    check_report(by, want, key)
    assert by["cpus_recorded"] is True and by["io_cpus_recorded"] is True
    # the text: a row per CPU and the total, within 100 columns, the share off io_cpu
    text = run_ok(run, "report", "--by", key, files["a"]).stdout
    lines = text.split("# by %s (--by)" % key, 1)[1].splitlines()[1:]
    lines = lines[:lines.index("#")]
    data = [l for l in lines if not l.startswith("#")]
    assert [" ".join(l.split()[:2]) for l in data[:-1]] == [r["name"] for r in by["rows"]]
    assert [int(l.split()[2]) for l in data[:-1]] == [r["n"] for r in by["rows"]]
    assert data[-1].split()[:2] == ["total", str(by["total"]["n"])]
    assert all(len(l) <= WIDTH for l in lines), lines
    t = by["total"]
    assert "# in flight on the queue at submission, measured: mean %.1f, max %d (of %d)" % (
        t["queue_in_flight_mean"], t["queue_in_flight_max"], t["n"]) in lines
    assert "# sent off the queue's io_cpu: %.1f%% of %d, send_us %.2f vs %.2f on it" % (
        100 * t["off_io_cpu"] / t["cpus_known"], t["cpus_known"],
        t["off_io_cpu_delay_ns"] / 1e3, t["on_io_cpu_delay_ns"] / 1e3) in lines
    # the page: a row per CPU and the total
    page = run_ok(run, "report", "--by", key, "--html", "-", files["a"]).stdout
    table = page.split("<h2>By %s</h2>" % key, 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 2 + len(by["rows"])


def test_report_by_cpu__read_filters_apply(run, files):
    by, _ = report_by(run, files["a"], "cpu", "--io-type", "read", "--qid", "1-2")
    check_report(by, sql_by(files["a"], "cpu", "WHERE h.opcode = 2 AND h.qid BETWEEN 1 AND 2"),
                 "cpu")


def test_report_by_io_cpu__rdma_has_none(run, files):
    """Over RDMA a queue has no io_cpu: one row not recorded, the submitting CPUs kept."""
    by, doc = report_by(run, files["rdma"], "io_cpu")
    assert [r["name"] for r in by["rows"]] == ["(not recorded)"]
    assert by["rows"][0]["cpu"] is None and by["rows"][0]["cpus_known"] == 0
    assert (by["cpus_recorded"], by["io_cpus_recorded"]) == (True, False)
    text = run_ok(run, "report", "--by", "io_cpu", files["rdma"]).stdout
    assert "# io_cpus: not recorded in this file (no io_cpu over NVMe/RDMA or on this " \
           "kernel)" in text
    assert "sent off the queue's io_cpu" not in text
    by, _ = report_by(run, files["rdma"], "cpu")
    assert len(by["rows"]) == 4 and all(r["off_io_cpu"] == 0 for r in by["rows"])


def test_report_by_cpu__older_file_not_recorded(run, files):
    """A file of a writer before the columns: read, every command "(not recorded)"."""
    db = connect(files["old"])
    assert "cpu" not in [c[1] for c in db.execute("PRAGMA table_info(host_io)")]
    n = db.execute("SELECT count(*) FROM host_io").fetchone()[0]
    db.close()
    for key in ("cpu", "io_cpu"):
        by, doc = report_by(run, files["old"], key)
        assert [(r["name"], r["n"], r["cpu"], r["queue_in_flight_mean"]) for r in by["rows"]] \
            == [("(not recorded)", n, None, None)]
        assert (by["cpus_recorded"], by["io_cpus_recorded"]) == (False, False)
        text = run_ok(run, "report", "--by", key, files["old"]).stdout
        assert "# %ss: not recorded in this file (recorded before the cpu and io_cpu " \
               "columns)" % key in text
    sends = doc["diagnosis"]["recording"]["evidence"]["sends"]
    assert (sends["off_io_cpu"], sends["on_io_cpu"]) == (None, None), sends
    doc = json.loads(run_ok(run, "series", "--by", "cpu", "-j", "-", files["old"]).stdout)
    assert {r["cpu"] for r in doc["rows"]} == {"(not recorded)"}


def test_diagnosis_sends__off_io_cpu_as_sql(run, files):
    """The deferred-send evidence: the commands sent off and on their queue's
    io_cpu and the mean send delay of each, of the recording and each group."""
    _, doc = report_by(run, files["a"], "cpu")
    db = connect(files["a"])
    q = ("SELECT sum(h.cpu != h.io_cpu), sum(h.cpu = h.io_cpu),"
         " avg(CASE WHEN h.cpu != h.io_cpu THEN s.sent_ns - s.h_queue_ns END),"
         " avg(CASE WHEN h.cpu = h.io_cpu THEN s.sent_ns - s.h_queue_ns END) %s" % FROM)
    off, on, off_d, on_d = db.execute(q).fetchone()
    sends = doc["diagnosis"]["recording"]["evidence"]["sends"]
    assert (sends["off_io_cpu"], sends["on_io_cpu"]) == (off, on)
    assert sends["off_io_cpu_delay_ns"] == pytest.approx(off_d)
    assert sends["on_io_cpu_delay_ns"] == pytest.approx(on_d)
    for g in doc["diagnosis"]["groups"]:
        where = " WHERE s.io_type = ? AND s.bytes = ? AND s.namespace = ?"
        off, on = db.execute(q.split(", avg")[0] + " " + FROM + where,
                             (g["io_type"], g["bytes"], g["namespace"])).fetchone()
        s = g["evidence"]["sends"]
        assert (s["off_io_cpu"], s["on_io_cpu"]) == (off, on), g["text"]
    db.close()


# ---- compare --by cpu ----------------------------------------------------------------------

@pytest.mark.parametrize("key", ("cpu", "io_cpu"))
def test_compare_by_cpu__runs_as_report__paired_by_cpu(run, files, key):
    doc = json.loads(run_ok(run, "compare", "--by", key, "-j", "-", files["a"], files["b"]).stdout)
    by = doc["by"]
    assert by["key"] == key
    assert by["baseline"] == report_by(run, files["a"], key)[0]
    assert by["new"] == report_by(run, files["b"], key)[0]
    for run_, path in (("baseline", files["a"]), ("new", files["b"])):
        check_report(by[run_], sql_by(path, key), key)
    # CPUs 0-2 in both, CPU 3 in the baseline only (the new run has 3 CPUs)
    assert [(p["name"], p["present"]) for p in by["pairs"]] == \
        [("%s %d" % (key, c), "both") for c in range(3)] + [("%s 3" % key, "baseline-only")]
    for p in by["pairs"][:3]:
        b, n = by["baseline"]["rows"][p["baseline"]], by["new"]["rows"][p["new"]]
        assert p["mean_delta_ns"] == pytest.approx(n["mean_ns"] - b["mean_ns"])
        assert p["tail_delta_ns"] == n["tail_ns"] - b["tail_ns"]
    text = run_ok(run, "compare", "--by", key, files["a"], files["b"]).stdout
    section = text.split("# by %s (--by)" % key, 1)[1].splitlines()[1:]
    section = section[:section.index("#")]
    data = [l for l in section if not l.startswith("#")]
    assert [" ".join(l.split()[:2]) for l in data[:-1]] == [p["name"] for p in by["pairs"]]
    t = [by[r]["total"] for r in ("baseline", "new")]
    assert "# sent off the queue's io_cpu, baseline -> new: %.1f%% -> %.1f%%" % tuple(
        100 * x["off_io_cpu"] / x["cpus_known"] for x in t) in section
    assert all(len(l) <= WIDTH for l in section), section


# ---- series --by cpu -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    """Two seconds of 2 CPUs' commands: enough in each interval for p99."""
    groups = tuple(ntpgen.Group(**{**g.__dict__, "n": 400}) for g in ntpgen.DEFAULT_GROUPS)
    return ntpgen.generate(tmp_path_factory.mktemp("dense") / "d.ntp", seed=25, groups=groups,
                           duration_s=2, cpus=ntpgen.Cpus(ncpu=2)).path


@pytest.mark.parametrize("key", ("cpu", "io_cpu"))
def test_series_by_cpu__each_interval_as_sql(run, dense, key):
    doc = json.loads(run_ok(run, "series", "--by", key, "-j", "-", dense).stdout)
    assert doc["by"] == key
    db = connect(dense)
    start = int(dict(db.execute("SELECT key, value FROM meta"))["start_ns"])
    want = {}
    for i, name, e2e in db.execute("SELECT (s.h_start_ns - ?1) / ?2, %s, s.e2e_ns %s" %
                                   (NAME[key], FROM), (start, S)):
        want.setdefault((i, name), []).append(e2e)
    db.close()
    got = {(r["interval"], r[key]): r for r in doc["rows"]}
    assert set(got) == set(want) and len(got) == len(doc["rows"])
    shown = 0
    for k, v in want.items():
        e = got[k]["e2e"]
        assert got[k]["n"] == len(v), k
        assert e["mean_ns"] == ntpgen.mean_ns(v), k
        assert (e["min_ns"], e["max_ns"]) == (min(v), max(v)), k
        assert e["p99_ns"] == (ntpgen.percentile(v, 99) if len(v) >= 100 else None), k
        shown += e["p99_ns"] is not None
    assert shown == len(want), "every interval has a p99"
    text = run_ok(run, "series", "--by", key, dense).stdout
    assert "# by:                a group is a host %s, its commands of every type and size" % (
        "submitting CPU (cpu)" if key == "cpu" else "queue's io_cpu (io_cpu)") in text


def test_series_by_cpu__joined_refused(run, tmp_path):
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t)
    r = run("series", "--by", "cpu", str(h), str(t))
    assert r.returncode == Exit.USAGE, r.stderr
    assert r.stderr == ("ntprof series: error: --by cpu: the series of joined recordings is by "
                        "queue only (report --by cpu reads them)\n")
