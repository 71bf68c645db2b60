# SPDX-License-Identifier: GPL-2.0
"""The diagnosis of ntprof report (ntprof-report(1), DIAGNOSIS) on synthetic
recordings: each cause induced by changing a generated recording with SQL,
its evidence checked against SQL over the same file, and the text, JSON
and HTML forms against each other."""

import json
import re
import shutil
import sqlite3

import pytest

import ntpgen
from conftest import Exit, run_ok

WIDTH = 100


def diag_lines(text):
    """The diagnosis's lines of a text report, its heading left out."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("# diagnosis:"))
    out = []
    for line in lines[start + 1:]:
        if line == "#":
            break
        out.append(line)
    return out


def report(run, *paths):
    """(the text's diagnosis lines, the JSON document)"""
    text = run_ok(run, "report", *map(str, paths)).stdout
    doc = json.loads(run_ok(run, "report", "-j", "-", *map(str, paths)).stdout)
    return diag_lines(text), doc


def group(doc, io_type, size, ns):
    return next(g for g in doc["diagnosis"]["groups"]
                if (g["io_type"], g["bytes"], g["namespace"]) == (io_type, size, ns))


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("diag") / "host.ntp", seed=11)


@pytest.fixture
def copy(rec, tmp_path):
    """A copy of the host recording to change with SQL: (path, connection)."""
    path = tmp_path / "changed.ntp"
    shutil.copy(rec.path, path)
    db = sqlite3.connect(path)
    yield path, db
    db.close()


def test_lines__recording_then_each_group__within_100_columns(run, rec):
    lines, doc = report(run, rec.path)
    groups = doc["groups"]
    assert lines[0].startswith("# recording: ")
    body = [l for l in lines if "not recorded in this file" not in l and
            not l.startswith("# network*")]
    assert len(body) == 1 + len(groups)
    for line in lines:
        assert len(line) <= WIDTH, line
    # the JSON's lines in the groups' order, their text the text's after the name
    d = doc["diagnosis"]
    assert [(g["io_type"], g["bytes"], g["namespace"]) for g in d["groups"]] == \
        [(g["io_type"], g["bytes"], g["namespace"]) for g in groups]
    assert body[0] == "# recording: " + d["recording"]["text"]
    for line, g in zip(body[1:], d["groups"]):
        assert line.endswith(": " + g["text"]), (line, g["text"])
        assert g["cause"] == g["holds"][0]


def test_tail__above_the_tested_percentile__as_python(run, rec):
    """Each group's tail: the highest listed percentile whose min_n its n
    reaches, the commands above it and their mean, from the generator's
    own commands."""
    _, doc = report(run, rec.path)
    min_n = {p["name"]: p["min_n_tested"] for p in doc["percentiles"]}
    for (io_type, size, ns), cmds in rec.by_group().items():
        g = group(doc, io_type, size, ns)
        e2e = sorted(c.e2e for c in cmds)
        tested = [p for p in doc["percentiles"] if min_n[p["name"]] <= len(e2e)]
        if not tested:
            assert g["cause"] == "insufficient_evidence"
            assert g["tail"] is None and g["tail_stage"] is None
            assert g["text"] == "insufficient evidence (n=%d, p50 needs %d)" % (
                len(e2e), min_n["p50"])
            continue
        edge = tested[-1]
        above = ntpgen.percentile(e2e, edge["p"])
        slow = [v for v in e2e if v > above]
        assert g["tail"] == {"percentile": edge["name"], "above_ns": above, "n": len(slow)}
        assert g["evidence"]["n"] == len(e2e)
        assert g["evidence"]["e2e_tail_mean_ns"] == pytest.approx(sum(slow) / len(slow))
        # the named stage is the largest of the tail's means
        stages = g["evidence"]["stages"]
        top = max(stages, key=lambda s: s["tail_mean_ns"])
        assert g["tail_stage"]["stage"] == top["stage"]
        assert g["tail_stage"]["share_pct"] == pytest.approx(
            100 * top["tail_mean_ns"] / g["evidence"]["e2e_tail_mean_ns"])


def test_quiet_baseline__no_cause_and_what_is_not_recorded(run, rec):
    lines, doc = report(run, rec.path)
    causes = {g["cause"] for g in doc["diagnosis"]["groups"]}
    assert causes <= {"none", "insufficient_evidence"}
    assert "no bottleneck beyond the device's own time" in lines[0]
    src = doc["diagnosis"]["sources"]
    assert src == {"send_deferral": True, "processes": False, "queue_depth": False,
                   "controller_resets": False, "backend_stats": False}
    assert "# queue depth: not recorded in this file (no host queue is saturated)" in lines
    assert "# resets: not recorded in this file (errors are the commands' status)" in lines
    assert "# processes: not recorded in this file (no queue is named starved)" in lines
    # a host alone: the network* note
    assert any(l.startswith("# network* holds the network and the target") for l in lines)


def test_errors__status_counted_as_sql(run, copy):
    path, db = copy
    db.execute("UPDATE host_io SET status = 16388 WHERE id IN (SELECT id FROM host_io"
               " WHERE opcode = 2 AND bytes = 4096 ORDER BY id LIMIT 5)")
    db.commit()
    lines, doc = report(run, path)
    g = group(doc, "read", 4096, "nvme0n1")
    n = db.execute("SELECT count(*) FROM host_io WHERE opcode = 2 AND bytes = 4096").fetchone()[0]
    assert g["cause"] == "errors_or_retries"
    assert g["evidence"]["errors"] == 5 and g["evidence"]["first_status"] == 16388
    assert "errors or retries (5 of %d failed, status 0x4004)" % n in g["text"]
    assert doc["diagnosis"]["recording"]["cause"] == "errors_or_retries"
    # the other groups are clean
    assert group(doc, "write", 4096, "nvme0n1")["evidence"]["errors"] == 0


def span_s(db, where=""):
    """The seconds Little's law takes a rate over: the commands' own span
    from 100 of them (ntprof-report(1), DIAGNOSIS), else the recording's."""
    meta = dict(db.execute("SELECT key, value FROM meta"))
    n, lo, hi = db.execute("SELECT count(*), min(h_start_ns), max(h_done_ns) FROM host_io "
                           + where).fetchone()
    if n >= 100 and hi - lo < int(meta["duration_ns"]):
        return (hi - lo) / 1e9
    return int(meta["duration_ns"]) / 1e9


def little(db, where=""):
    """{(controller, qid): commands in flight by Little's law}, as SQL over the file."""
    meta = dict(db.execute("SELECT key, value FROM meta"))
    rate_scale = int(meta["sample_one_in"]) / span_s(db, where)
    rows = db.execute("SELECT controller, qid, count(*), avg(h_done_ns - h_queue_ns)"
                      " FROM host_io " + where + " GROUP BY 1, 2")
    return {(c, q): n * rate_scale * mean / 1e9 for c, q, n, mean in rows}


def test_saturated__host_queue_depth_from_meta(run, copy):
    path, db = copy
    queues = little(db)
    (ctrl, qid), busiest = max(queues.items(), key=lambda kv: kv[1])
    _, doc = report(run, path)
    q = doc["diagnosis"]["recording"]["evidence"]["host_queue"]
    assert q["name"] == "%s q%d" % (ctrl, qid)
    assert q["in_flight"] == pytest.approx(busiest)
    assert q["depth"] is None

    # a depth the busiest queue fills to 90%: saturated; just above that: not
    ctrls = sorted({c for c, _ in queues})
    for depth, saturated in ((busiest / 0.9 * 1.01, False), (busiest / 0.9 * 0.99, True)):
        # the generated recording keeps a queue busy enough for a depth of 1 or more
        assert int(depth) >= 1, (busiest, depth)
        value = " ".join("%s=%d" % (c, int(depth) if saturated else int(depth) + 1)
                         for c in ctrls)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('host_queue_depth', ?)",
                   (value,))
        db.commit()
        lines, doc = report(run, path)
        rec_line = doc["diagnosis"]["recording"]
        assert doc["diagnosis"]["sources"]["queue_depth"] is True
        assert ("saturated_queue" in rec_line["holds"]) == saturated, (value, rec_line)
        if saturated:
            assert rec_line["cause"] == "saturated_queue"
            assert "saturated queue (%s q%d ~" % (ctrl, qid) in lines[0]
            assert lines[0].endswith(" in flight / %d)" % int(depth))
        assert not any("queue depth" in l for l in lines)


def test_deferred_send__flag_32_and_the_send_delay(run, copy):
    """Three in four 4 KiB reads sent by io_work 400 us late: deferred send,
    with the counts and delays of SQL over the same file."""
    path, db = copy
    late = 400_000
    db.execute("UPDATE host_io SET flags = flags | 32, h_cmd_sent_ns = h_cmd_sent_ns + ?1,"
               " h_recv_ns = h_recv_ns + ?1, h_done_ns = h_done_ns + ?1"
               " WHERE opcode = 2 AND bytes = 4096 AND id % 4 != 0", (late,))
    db.commit()
    lines, doc = report(run, path)
    g = group(doc, "read", 4096, "nvme0n1")
    sends = g["evidence"]["sends"]
    want = db.execute(
        "SELECT sum(flags & 32 != 0), sum(flags & 32 = 0),"
        " avg(CASE WHEN flags & 32 THEN h_cmd_sent_ns - h_queue_ns END),"
        " avg(CASE WHEN flags & 32 = 0 THEN h_cmd_sent_ns - h_queue_ns END)"
        " FROM host_io WHERE opcode = 2 AND bytes = 4096").fetchone()
    assert (sends["deferred"], sends["inline"]) == want[:2]
    assert sends["deferred_delay_ns"] == pytest.approx(want[2])
    assert sends["inline_delay_ns"] == pytest.approx(want[3])
    assert g["cause"] == "deferred_send"
    assert g["tail_stage"]["stage"] == "driver"
    assert re.search(r"driver \d+% of tail, deferred send \(7\d% deferred, send 4\d\dus vs "
                     r"\d\.\dus inline\)", g["text"]), g["text"]
    # the groups left alone are not
    assert group(doc, "write", 4096, "nvme0n1")["cause"] == "none"


def test_clock_doubt__drift_beyond_a_real_clock(run, tmp_path):
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", drift=450e-6)
    lines, doc = report(run, tmp_path / "h.ntp", tmp_path / "t.ntp")
    d = doc["diagnosis"]["recording"]
    assert d["cause"] == "clock_doubt"
    assert d["evidence"]["clock"]["drift"] == pytest.approx(450e-6, rel=0.05)
    assert "slow_or_lossy_network" not in d["holds"]
    assert re.search(r"clock doubt \(drift 4[45]\d ppm\)", lines[0]), lines[0]
    # a real clock's drift: no doubt
    ntpgen.generate_pair(tmp_path / "h2.ntp", tmp_path / "t2.ntp", drift=20e-6)
    _, doc = report(run, tmp_path / "h2.ntp", tmp_path / "t2.ntp")
    assert doc["diagnosis"]["recording"]["cause"] != "clock_doubt"
    assert doc["diagnosis"]["recording"]["evidence"]["clock"]["estimated"] is True


TARGET_TIMES = ("t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns")


def slew_second_half(path, ppm):
    """The target's clock ran ppm faster from the middle of the recording on,
    as a clock slewed while recording: no one line pairs both halves."""
    db = sqlite3.connect(path)
    lo, hi = db.execute("SELECT min(t_recv_ns), max(t_sent_ns) FROM target_io").fetchone()
    mid = (lo + hi) // 2
    for c in TARGET_TIMES:
        db.execute(f"UPDATE target_io SET {c} = {c} + CAST(({c} - ?) * ? AS INTEGER)"
                   f" WHERE {c} > ?", (mid, ppm * 1e-6, mid))
    db.commit()
    db.close()


def unpaired(doc):
    j = doc["join"]
    return min(100 * (j["host_commands"] - j["matched"]) / j["host_commands"],
               100 * (j["target_commands"] - j["matched"]) / j["target_commands"])


def test_clock_doubt__a_clock_slewed_while_recording(run, tmp_path):
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, drift=20e-6)
    slew_second_half(t, 300)
    lines, doc = report(run, h, t)
    d = doc["diagnosis"]["recording"]
    # the line fits one half: the other half of each side is left unpaired
    assert unpaired(doc) >= 10, doc["join"]
    assert d["cause"] == "clock_doubt", d
    assert d["evidence"]["clock"]["unpaired_pct"] == pytest.approx(unpaired(doc))
    assert "slow_or_lossy_network" not in d["holds"]
    assert re.search(r"clock doubt \(\d+% of each side unpaired\)", lines[0]), lines[0]


@pytest.mark.parametrize("side", ["host_io", "target_io"])
def test_clock_doubt__one_side_unpaired_is_no_doubt(run, tmp_path, side):
    """A host's rows for its other targets, a target's for its other hosts:
    one side's rows unpaired say nothing of the clocks."""
    h, t = tmp_path / "h.ntp", tmp_path / "t.ntp"
    ntpgen.generate_pair(h, t, drift=20e-6)
    db = sqlite3.connect(h if side == "host_io" else t)
    db.execute(f"DELETE FROM {side} WHERE id % 3 = 0")
    db.commit()
    db.close()
    _, doc = report(run, h, t)
    d = doc["diagnosis"]["recording"]
    assert d["evidence"]["clock"]["unpaired_pct"] < 10, doc["join"]
    assert d["cause"] != "clock_doubt", d


def test_joined__storage_named__never_saturated_without_a_depth(run, tmp_path):
    path = tmp_path / "both.ntp"
    ntpgen.generate_both(path)
    lines, doc = report(run, path)
    for g in doc["diagnosis"]["groups"]:
        assert g["cause"] in ("none", "backend_time", "insufficient_evidence")
        if g["cause"] == "backend_time":
            assert g["tail_stage"]["stage"] == "storage" or g["mean_stage"]["stage"] == "storage"
            assert g["evidence"]["backend"]["depth"] is None
    assert any("backend time (backend ~" in l for l in lines)
    assert not any(l.startswith("# network* holds") for l in lines)


def test_target_alone__device_and_storage(run, tmp_path):
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp")
    lines, doc = report(run, tmp_path / "t.ntp")
    for g in doc["diagnosis"]["groups"]:
        assert g["namespace"] is None and g["device"]
        assert g["evidence"]["sends"] is None and g["evidence"]["host_queue"] is None
    # no host side: nothing is said to be missing from it
    assert not any("not recorded in this file" in l for l in lines)
    assert doc["diagnosis"]["sources"]["send_deferral"] is False


def test_quiet__keeps_the_diagnosis(run, rec):
    text = run_ok(run, "report", "-q", str(rec.path)).stdout
    assert any(l.startswith("# recording: ") for l in text.splitlines())


def test_html__a_row_per_line(run, rec):
    page = run_ok(run, "report", "--html", "-", str(rec.path)).stdout
    _, doc = report(run, rec.path)
    table = page.split("<h2>Diagnosis</h2>", 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 2 + len(doc["diagnosis"]["groups"])
    assert "no bottleneck beyond the device&#39;s own time" in table or \
        "no bottleneck beyond the device's own time" in table


def test_starved__one_queue_two_processes(run, copy):
    """Two processes on one queue holding 8 or more commands by Little's law
    (the rate raised through the sampling rate): starved; one process: not."""
    path, db = copy
    queues = little(db)
    (ctrl, qid), busiest = max(queues.items(), key=lambda kv: kv[1])
    scale = 10 * max(1, int(8 / busiest) + 1)
    db.execute("UPDATE meta SET value = value * ? WHERE key = 'sample_one_in'", (scale,))
    db.execute("UPDATE host_io SET pid = 100 + id % 2, tid = 100 + id % 2, comm = 'fio'")
    db.commit()
    lines, doc = report(run, path)
    rec_line = doc["diagnosis"]["recording"]
    q = rec_line["evidence"]["host_queue"]
    assert q["name"] == "%s q%d" % (ctrl, qid)
    assert q["in_flight"] == pytest.approx(busiest * scale)
    assert q["processes"] == 2
    assert doc["diagnosis"]["sources"]["processes"] is True
    assert "starved_queue" in rec_line["holds"]
    assert re.search(r"starved queue \(%s q%d ~\d+ in flight, 2 processes\)" % (ctrl, qid),
                     lines[0]), lines[0]
    db.execute("UPDATE host_io SET pid = 100")
    db.commit()
    _, doc = report(run, path)
    assert "starved_queue" not in doc["diagnosis"]["recording"]["holds"]
    assert doc["diagnosis"]["recording"]["evidence"]["host_queue"]["processes"] == 1


def sql_by(db, key, where=""):
    """{key: (n, errors, deferred, mean e2e, mean h_queue..h_done, sorted e2e, others)}
    of the host rows, as SQL groups them."""
    cols = "controller || ' q' || qid" if key == "queue" else \
        "coalesce(comm || ' ' || pid, '(not recorded)')"
    other = "count(DISTINCT pid)" if key == "queue" else \
        "count(DISTINCT controller || ' ' || qid)"
    out = {}
    for name, n, err, dfr, mean, held, others in db.execute(
            "SELECT %s, count(*), sum(status != 0), sum((flags & 32) != 0),"
            " avg(h_done_ns - h_start_ns), avg(h_done_ns - h_queue_ns), %s"
            " FROM host_io %s GROUP BY 1" % (cols, other, where)):
        e2e = sorted(v for (v,) in db.execute(
            "SELECT h_done_ns - h_start_ns FROM host_io WHERE %s = ? %s" %
            (cols, ("AND " + where[6:]) if where else ""), (name,)))
        out[name] = (n, err, dfr, mean, held, e2e, others)
    return out


def by_doc(run, path, key, *extra):
    doc = json.loads(run_ok(run, "report", "--by", key, "-j", "-", *extra, str(path)).stdout)
    text = run_ok(run, "report", "--by", key, *extra, str(path)).stdout
    return doc["by"], text


def check_rows(by, want, meta, span):
    scale = int(meta["sample_one_in"]) / span
    rows = {r["name"]: r for r in by["rows"]}
    assert set(rows) == set(want)
    for name, (n, err, dfr, mean, held, e2e, others) in want.items():
        r = rows[name]
        assert (r["n"], r["errors"], r["deferred"]) == (n, err, dfr), name
        assert r["mean_ns"] == pytest.approx(mean)
        assert r["est_rate"] == pytest.approx(n * scale)
        assert r["in_flight"] == pytest.approx(n * scale * held / 1e9)
        if n >= 100:       # p99 is shown from 100 commands (its min_n_shown)
            assert r["tail_ns"] == ntpgen.percentile(e2e, 99)
        else:
            assert r["tail_ns"] is None
    total = by["total"]
    assert total["n"] == sum(w[0] for w in want.values())
    assert total["est_rate"] == pytest.approx(sum(r["est_rate"] for r in rows.values()))
    return rows


def test_by_queue__rows_total_and_imbalance_as_sql(run, copy):
    path, db = copy
    db.execute("UPDATE host_io SET status = 6 WHERE id % 50 = 0")
    db.execute("UPDATE host_io SET flags = flags | 32 WHERE id % 3 = 0")
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES"
               " ('host_queue_depth', 'nvme0=128 nvme1=32')")
    db.commit()
    by, text = by_doc(run, path, "queue")
    meta = dict(db.execute("SELECT key, value FROM meta"))
    rows = check_rows(by, sql_by(db, "queue"), meta, span_s(db))
    assert by["key"] == "queue" and by["tail_percentile"] == "p99"
    for name, r in rows.items():
        assert r["depth"] == (128 if name.startswith("nvme0") else 32)
        assert r["processes"] is None      # not recorded in this file
    rates = sorted(r["est_rate"] for r in rows.values())
    assert by["rate_imbalance"] == pytest.approx(rates[-1] / rates[(len(rates) - 1) // 2])
    # the text: a row per queue and the total, within 100 columns
    lines = text.split("# by queue (--by)", 1)[1].splitlines()[1:]
    data = [l for l in lines if l and not l.startswith("#")]
    assert [l.split()[0] + " " + l.split()[1] for l in data[:-1]] == [r["name"] for r in by["rows"]]
    assert data[-1].split()[0] == "total"
    assert all(len(l) <= WIDTH for l in lines if l and not l.startswith("# stages"))
    assert any(l.startswith("# imbalance (the largest over the median): est_cmds/s ")
               for l in lines)


def test_by_queue__read_filters_apply(run, copy):
    path, db = copy
    by, _ = by_doc(run, path, "queue", "--io-type", "read", "--qid", "1-2")
    meta = dict(db.execute("SELECT key, value FROM meta"))
    where = "WHERE opcode = 2 AND qid BETWEEN 1 AND 2"
    check_rows(by, sql_by(db, "queue", where), meta, span_s(db, where))


def test_by_process__as_sql_and_not_recorded(run, copy):
    path, db = copy
    by, text = by_doc(run, path, "process")
    assert by["processes_recorded"] is False
    assert [r["name"] for r in by["rows"]] == ["(not recorded)"]
    assert "# processes: not recorded in this file" in text
    db.execute("UPDATE host_io SET pid = 200 + id % 3, comm = 'fio'")
    db.execute("UPDATE host_io SET pid = NULL, comm = NULL WHERE id % 7 = 0")
    db.commit()
    by, text = by_doc(run, path, "process")
    meta = dict(db.execute("SELECT key, value FROM meta"))
    rows = check_rows(by, sql_by(db, "process"), meta, span_s(db))
    assert by["processes_recorded"] is True
    for name, r in rows.items():
        if name != "(not recorded)":
            assert r["comm"] == "fio" and r["pid"] == int(name.split()[1])
    want = sql_by(db, "process")
    assert {n: r["queues"] for n, r in rows.items()} == {n: w[6] for n, w in want.items()}
    assert "# processes: not recorded" not in text


def test_by__target_alone_and_default(run, rec, tmp_path):
    _, doc = report(run, rec.path)
    assert doc["by"] is None
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp")
    by, text = by_doc(run, tmp_path / "t.ntp", "queue")
    assert by["rows"] == [] and by["total"] is None
    assert "# no host commands: a target recording alone has no host queues" in text


def test_by__html_table(run, rec):
    page = run_ok(run, "report", "--by", "queue", "--html", "-", str(rec.path)).stdout
    table = page.split("<h2>By queue</h2>", 1)[1].split("</table>", 1)[0]
    by, _ = by_doc(run, rec.path, "queue")
    assert table.count("<tr>") == 2 + len(by["rows"])


def test_by__bad_key__usage_error(run, rec):
    r = run("report", "--by", "disk", str(rec.path))
    assert r.returncode == Exit.USAGE
    assert "--by" in r.stderr and len(r.stderr.splitlines()) == 1


def test_compare__names_what_report_names_and_what_changed(run, rec, copy):
    """compare of a baseline and a case names the case's cause as report
    does, says what the baseline named, and leaves alone what did not change."""
    path, db = copy
    db.execute("UPDATE host_io SET flags = flags | 32, h_cmd_sent_ns = h_cmd_sent_ns + ?1,"
               " h_recv_ns = h_recv_ns + ?1, h_done_ns = h_done_ns + ?1"
               " WHERE opcode = 2 AND bytes = 4096 AND id % 4 != 0", (400_000,))
    db.commit()
    _, base = report(run, rec.path)
    _, new = report(run, path)
    args = ["compare", str(rec.path), str(path)]
    doc = json.loads(run_ok(run, *args, "-j", "-").stdout)
    text = run_ok(run, *args).stdout
    d = doc["diagnosis"]
    # each run's diagnosis is report's
    assert d["baseline"] == base["diagnosis"] and d["new"] == new["diagnosis"]
    by_key = {(g["io_type"], g["bytes"], g["namespace"]): g for g in d["groups"]}
    g = by_key[("read", 4096, "nvme0n1")]
    assert (g["baseline_cause"], g["new_cause"], g["changed"]) == ("none", "deferred_send", True)
    assert g["text"].startswith("read 4KiB nvme0n1: none -> driver ")
    assert "deferred send (" in g["text"]
    assert [k for k, v in by_key.items() if v["changed"]] == [("read", 4096, "nvme0n1")]
    lines = diag_lines(text)
    assert lines[0] == "# baseline recording: " + base["diagnosis"]["recording"]["text"]
    assert "# read 4KiB nvme0n1: none -> driver " in "\n".join(lines)
    assert any(l.startswith("# write 4KiB nvme0n1: unchanged: ") for l in lines)
    assert all(len(l) <= WIDTH for l in lines)
    page = run_ok(run, *args, "--html", "-").stdout
    assert "<h2>Diagnosis: the baseline</h2>" in page and "<h2>Diagnosis: the new run</h2>" in page


def test_backend_counters__saturated_where_storage_dominates(run, tmp_path):
    """A target's backend_stats (a local job's load the sampled commands do
    not show): storage named saturated with the device's own aqu-sz against
    its depth, where storage dominates; under 90% of the depth: backend time."""
    path = tmp_path / "both.ntp"
    ntpgen.generate_both(path)
    db = sqlite3.connect(path)
    dev = db.execute("SELECT device FROM target_io LIMIT 1").fetchone()[0]
    _, doc = report(run, path)
    assert doc["diagnosis"]["sources"]["backend_stats"] is True   # the table, empty
    storage = [g for g in doc["diagnosis"]["groups"] if g["cause"] == "backend_time"]
    assert storage, "the generator has a group where storage dominates"
    key = (storage[0]["io_type"], storage[0]["bytes"], storage[0]["namespace"])
    for aqu, saturated in ((57.0, False), (58.0, True)):
        db.execute("DELETE FROM backend_stats")
        # two intervals: 1 s at aqu, 1 s at aqu; depth 64
        for t in (1, 2):
            db.execute("INSERT INTO backend_stats VALUES (?, 1000000000, ?, 5000, 60, 1000, ?,"
                       " 64)", (t * 10**9, dev, int(aqu * 1000)))
        db.commit()
        lines, doc = report(run, path)
        g = group(doc, *key)
        b = g["evidence"]["backend"]
        assert b["measured"] is True and b["depth"] == 64 and b["in_flight"] == pytest.approx(aqu)
        assert b["name"] == "backend " + dev
        if saturated:
            assert g["cause"] == "saturated_queue", g
            assert g["text"].endswith("saturated queue (backend %s 58 in flight / 64)" % dev)
        else:
            assert g["cause"] == "backend_time", g
            assert g["text"].endswith("backend time (backend %s 57 in flight / 64)" % dev)
        # groups where storage does not dominate are not blamed on it
        for other in doc["diagnosis"]["groups"]:
            if other["cause"] == "saturated_queue":
                assert other["tail_stage"]["stage"] == "storage" or \
                    other["mean_stage"]["stage"] == "storage"
    db.close()


def test_backend_counters__not_recorded_in_an_older_file(run, tmp_path):
    path = tmp_path / "both.ntp"
    ntpgen.generate_both(path)
    db = sqlite3.connect(path)
    db.execute("DROP TABLE backend_stats")
    db.commit()
    db.close()
    lines, doc = report(run, path)
    assert doc["diagnosis"]["sources"]["backend_stats"] is False
    assert "# backend counters: not recorded in this file (storage is not named saturated)" \
        in lines
