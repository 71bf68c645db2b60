# SPDX-License-Identifier: GPL-2.0
"""--by in ntprof compare and ntprof series (ntprof-compare(1), ntprof-series(1)),
on synthetic recordings changed with SQL: compare's runs are report --by's
rows, paired as documented; series' groups are the queues or processes,
each interval's figures checked against SQL over the same file."""

import json
import shutil
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok

S = 1_000_000_000
WIDTH = 100
QUEUE = "controller || ' q' || qid"
PROCESS = ("CASE WHEN pid IS NULL THEN '(not recorded)' ELSE coalesce(nullif(comm, ''), '-')"
           " || ' ' || pid END")


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("by")
    return ntpgen.generate(d / "a.ntp", seed=11).path, ntpgen.generate(d / "b.ntp", seed=12).path


@pytest.fixture
def runs(gen, tmp_path):
    """Copies of two host recordings to change with SQL: [(path, connection)] * 2."""
    out = []
    for i, src in enumerate(gen):
        path = tmp_path / ("base.ntp", "new.ntp")[i]
        shutil.copy(src, path)
        out.append((path, sqlite3.connect(path)))
    yield out
    for _, db in out:
        db.close()


def report_by(run, path, key, *extra):
    return json.loads(run_ok(run, "report", "--by", key, "-j", "-", *extra, path).stdout)["by"]


def compare_by(run, base, new, key, *extra):
    doc = json.loads(run_ok(run, "compare", "--by", key, "-j", "-", *extra, base, new).stdout)
    text = run_ok(run, "compare", "--by", key, *extra, base, new).stdout
    return doc["by"], text


def by_table(text, key):
    """The data lines of compare's --by table, the total last."""
    lines = text.split("# by %s (--by)" % key, 1)[1].splitlines()[2:]
    out = []
    for line in lines:
        if line.startswith("#"):
            break
        out.append(line)
    return out


# ---- compare --by --------------------------------------------------------------------------

def check_pairs(by):
    """Every row of each run in exactly one pair; the deltas new - baseline."""
    seen = {"baseline": [], "new": []}
    for p in by["pairs"]:
        rows = {r: by[r]["rows"][p[r]] if p[r] is not None else None
                for r in ("baseline", "new")}
        for r in seen:
            if p[r] is not None:
                seen[r].append(p[r])
        b, n = rows["baseline"], rows["new"]
        assert p["present"] == ("both" if b and n else "baseline-only" if b else "new-only")
        if b and n:
            assert p["name"] == (b["name"] if b["name"] == n["name"] else
                                 "%s / %s" % (b["name"], n["name"]))
            assert p["in_flight_delta"] == pytest.approx(n["in_flight"] - b["in_flight"])
            assert p["mean_delta_ns"] == pytest.approx(n["mean_ns"] - b["mean_ns"])
            if b["tail_ns"] is not None and n["tail_ns"] is not None:
                assert p["tail_delta_ns"] == n["tail_ns"] - b["tail_ns"]
            else:
                assert p["tail_delta_ns"] is None
        else:
            assert p["name"] == (b or n)["name"]
            assert (p["in_flight_delta"], p["mean_delta_ns"], p["tail_delta_ns"]) == \
                (None, None, None)
    for r in seen:
        assert sorted(seen[r]) == list(range(len(by[r]["rows"]))), r


def test_compare_by_queue__each_run_as_report__paired(run, runs):
    (a, da), (b, db) = runs
    db.execute("UPDATE host_io SET status = 6 WHERE id % 40 = 0")
    db.execute("UPDATE host_io SET flags = flags | 32 WHERE id % 3 = 0")
    # a queue the new run does not have: nvme1 q4's commands gone
    db.execute("DELETE FROM host_io WHERE controller = 'nvme1' AND qid = 4")
    db.commit()
    by, text = compare_by(run, a, b, "queue")
    assert by["key"] == "queue"
    assert by["baseline"] == report_by(run, a, "queue")
    assert by["new"] == report_by(run, b, "queue")
    check_pairs(by)
    only = [p for p in by["pairs"] if p["present"] != "both"]
    assert [(p["name"], p["present"]) for p in only] == [("nvme1 q4", "baseline-only")]
    # queues pair by name: the same queue in both
    for p in by["pairs"]:
        if p["present"] == "both":
            assert by["baseline"]["rows"][p["baseline"]]["name"] == \
                by["new"]["rows"][p["new"]]["name"]
    # the text: a line per pair in the JSON's order, then the total, within 100 columns
    data = by_table(text, "queue")
    assert [" ".join(l.split()[:2]) for l in data[:-1]] == [p["name"] for p in by["pairs"]]
    total = data[-1].split()
    assert total[0] == "total"
    assert (int(total[1]), int(total[2])) == (by["baseline"]["total"]["n"],
                                              by["new"]["total"]["n"])
    gone = next(l for l in data if l.startswith("nvme1 q4 "))
    assert gone.split()[3] == "-"          # no new commands
    section = ("# by queue (--by)" + text.split("# by queue (--by)", 1)[1]).splitlines()
    section = section[:section.index("#")]
    assert section[-1].startswith("# imbalance (largest over median), baseline -> new:"
                                  " est_cmds/s ")
    assert len(section) == 3 + len(data) and all(len(l) <= WIDTH for l in section), section


def test_compare_by_process__paired_by_name_and_rank(run, runs):
    (a, da), (b, db) = runs
    da.execute("UPDATE host_io SET pid = 100 + id % 2, comm = 'fio'")
    db.execute("UPDATE host_io SET pid = 200 + id % 3, comm = 'fio'")
    db.execute("UPDATE host_io SET pid = NULL, comm = NULL WHERE id % 7 = 0")
    da.commit()
    db.commit()
    by, text = compare_by(run, a, b, "process")
    assert by["baseline"] == report_by(run, a, "process")
    assert by["new"] == report_by(run, b, "process")
    check_pairs(by)
    assert [(p["name"], p["present"]) for p in by["pairs"]] == [
        ("fio 100 / fio 200", "both"), ("fio 101 / fio 201", "both"),
        ("(not recorded)", "new-only"), ("fio 202", "new-only")]
    data = by_table(text, "process")
    assert [l.startswith(p["name"] + " ") for p, l in zip(by["pairs"], data)] == \
        [True] * len(by["pairs"])


def test_compare_by__read_filters_apply_to_both(run, runs):
    (a, _), (b, _) = runs
    by, _ = compare_by(run, a, b, "queue", "--io-type", "read", "--qid", "1-2")
    assert by["baseline"] == report_by(run, a, "queue", "--io-type", "read", "--qid", "1-2")
    assert by["new"] == report_by(run, b, "queue", "--io-type", "read", "--qid", "1-2")
    assert {p["name"].split()[1] for p in by["pairs"]} == {"q1", "q2"}


def test_compare_by__default_none_html_and_bad_key(run, runs):
    (a, _), (b, _) = runs
    doc = json.loads(run_ok(run, "compare", "-j", "-", a, b).stdout)
    assert doc["by"] is None
    assert "(--by)" not in run_ok(run, "compare", a, b).stdout
    page = run_ok(run, "compare", "--by", "queue", "--html", "-", a, b).stdout
    table = page.split("<h2>By queue</h2>", 1)[1].split("</table>", 1)[0]
    by, _ = compare_by(run, a, b, "queue")
    assert table.count("<tr>") == 2 + len(by["pairs"])
    r = run("compare", "--by", "disk", str(a), str(b))
    assert r.returncode == Exit.USAGE
    assert "--by" in r.stderr and len(r.stderr.splitlines()) == 1


def test_compare_by__target_alone_has_no_host_rows(run, tmp_path):
    for i in (1, 2):
        ntpgen.generate_pair(tmp_path / f"h{i}.ntp", tmp_path / f"t{i}.ntp", seed=i)
    by, text = compare_by(run, tmp_path / "t1.ntp", tmp_path / "t2.ntp", "queue")
    assert by["pairs"] == [] and by["baseline"]["total"] is None
    assert "# no host commands: a target recording alone has no host queues" in text


# ---- series --by ---------------------------------------------------------------------------

def sql_series(path, name, where=""):
    """{(interval, name): (n, sum of e2e)} of a host file, as SQL groups them."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    start = int(dict(db.execute("SELECT key, value FROM meta"))["start_ns"])
    rows = db.execute(
        "SELECT (s.h_start_ns - ?1) / ?2, %s, count(*), sum(s.e2e_ns) FROM host_stages s"
        " JOIN host_io USING (id) %s GROUP BY 1, 2" %
        (name.replace("pid", "host_io.pid").replace("comm", "host_io.comm")
         .replace("controller", "s.controller").replace("qid", "s.qid"), where),
        (start, S)).fetchall()
    db.close()
    return {(i, k): (n, e) for i, k, n, e in rows}


def series_by(run, path, key, *extra):
    return json.loads(run_ok(run, "series", "--by", key, "-j", "-", *extra, path).stdout)


def check_series(doc, key, want):
    got = {(r["interval"], r[key]): r for r in doc["rows"]}
    assert len(got) == len(doc["rows"])
    assert set(got) == set(want)
    for k, (n, e2e_sum) in want.items():
        r = got[k]
        assert r["n"] == n, k
        assert r["e2e"]["mean_ns"] == (2 * e2e_sum + n) // (2 * n), k   # halves up
        assert not {"io_type", "bytes", "namespace", "device"} & set(r), r
    assert doc["by"] == key
    assert doc["commands"] == sum(n for n, _ in want.values())


def test_series_by_queue__rows_as_sql(run, runs, tmp_path):
    (a, _), _ = runs
    doc = series_by(run, a, "queue")
    check_series(doc, "queue", sql_series(a, QUEUE))
    # the text and the CSV: the queue in place of the type, size and namespace
    text = run_ok(run, "series", "--by", "queue", a).stdout
    title = next(l for l in text.splitlines() if l.startswith("#    time_s"))
    assert title.split()[1:4] == ["time_s", "queue", "n"]
    assert "# by:                a group is a host queue (controller, qid)" in text
    rows = [l.split() for l in text.splitlines() if not l.startswith("#")]
    assert len(rows) == doc["row_count"]
    assert [(float(r[0]), r[1] + " " + r[2], int(r[3])) for r in rows] == \
        [(x["interval"], x["queue"], x["n"]) for x in doc["rows"]]
    csv_text = run_ok(run, "series", "--by", "queue", "--csv", "-", a).stdout.splitlines()
    assert csv_text[0].startswith("file,interval,start_ns,covered_ns,queue,n,est_cmds_per_s,")
    assert len(csv_text) == 1 + doc["row_count"]


def test_series_by_queue__queues_past_9_in_report_order(run, runs):
    """q2 before q10 in each interval, as report --by queue orders them, not as text."""
    (a, db), _ = runs
    db.execute("UPDATE host_io SET qid = 10 WHERE qid = (SELECT max(qid) FROM host_io)")
    db.commit()
    qids = sorted({q for (q,) in db.execute("SELECT DISTINCT qid FROM host_io")})
    assert qids[0] < 10 <= qids[-1], qids
    report = [r["name"] for r in report_by(run, a, "queue")["rows"]]
    assert report == sorted(report, key=lambda q: (q.split()[0], int(q.split()[1][1:])))
    doc = series_by(run, a, "queue")
    first = doc["rows"][0]["interval"]
    shown = [r["queue"] for r in doc["rows"] if r["interval"] == first]
    assert shown == [q for q in report if q in shown], (shown, report)
    assert any(int(q.split()[1][1:]) >= 10 for q in shown), shown


def test_series_by_process__as_sql_and_not_recorded(run, runs):
    (a, da), _ = runs
    doc = series_by(run, a, "process")
    assert {r["process"] for r in doc["rows"]} == {"(not recorded)"}
    da.execute("UPDATE host_io SET pid = 300 + id % 2, comm = 'fio'")
    da.execute("UPDATE host_io SET pid = NULL WHERE id % 5 = 0")
    da.commit()
    check_series(series_by(run, a, "process"), "process", sql_series(a, PROCESS))


def test_series_by__filters_and_top(run, runs):
    (a, _), _ = runs
    doc = series_by(run, a, "queue", "--io-type", "read", "--qid", "1-2")
    check_series(doc, "queue", sql_series(a, QUEUE, "WHERE s.io_type = 'read' AND s.qid <= 2"))
    # --top 2: the two queues with the most commands, over the whole series
    db = sqlite3.connect(f"file:{a}?mode=ro", uri=True)
    counts = db.execute("SELECT %s, count(*) FROM host_io GROUP BY 1 ORDER BY 2 DESC" %
                        QUEUE).fetchall()
    db.close()
    assert counts[1][1] > counts[2][1]      # the generated file has no tie there
    doc = series_by(run, a, "queue", "--top", "2")
    assert {r["queue"] for r in doc["rows"]} == {counts[0][0], counts[1][0]}
    assert doc["top"]["groups"] == len(counts)
    assert doc["top"]["commands_hidden"] == sum(n for _, n in counts[2:])


def test_series_by_queue__joined(run, tmp_path):
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t)
    plain = json.loads(run_ok(run, "series", "-j", "-", h, t).stdout)
    doc = series_by(run, h, "queue", t)
    assert doc["commands"] == plain["commands"]
    db = sqlite3.connect(f"file:{h}?mode=ro", uri=True)
    queues = {q for (q,) in db.execute("SELECT DISTINCT %s FROM host_io" % QUEUE)}
    db.close()
    assert {r["queue"] for r in doc["rows"]} <= queues
    page = run_ok(run, "series", "--by", "queue", "--html", "-", h, t).stdout
    assert "<h2>%s (file 1)</h2>" % doc["rows"][0]["queue"] in page


def test_series_by__refused_where_there_is_no_host_row(run, tmp_path):
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t)
    for args, said in ((("queue", t), "no host queues"),
                       (("process", h, t), "by queue only"),
                       (("disk", h), "--by")):
        r = run("series", "--by", *map(str, args))
        assert r.returncode == Exit.USAGE, r.stderr
        assert said in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
