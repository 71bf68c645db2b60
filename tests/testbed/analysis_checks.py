# SPDX-License-Identifier: GPL-2.0
"""Checks of `ntprof report --histogram` and `ntprof series` on recordings made
in a test bed guest, run on this machine against the guest's files (shared by
the record tests, e.g. test_record_roles.py).  What a synthetic recording
cannot show: real latencies (a joined stage may be 0 or slightly negative on
one machine's clock), real group mixes, real recording starts and stops.

For a target recording alone every number is checked against SQL over the
file (target_stages): each bucket's count, each interval's n and mean.  For a
joined recording the pairing is the join's own, so the checks are of
consistency: every histogram adds up to its group's n, and the series' rows
add up, group by group, to the report's groups."""
import json
import sqlite3
import subprocess

S = 1_000_000_000


def _run_json(ntprof, *args):
    r = subprocess.run([str(ntprof), *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stderr == "", (args, r.returncode, r.stderr)
    return json.loads(r.stdout)


PER_OCTAVE = 4      # report --histogram's default (ntprof-report(1), Histograms)


def _bucket(v):
    """The lower bound of v's bucket from its definition: below 1 ns one bucket
    (None), 1 to 3 ns one each, then each octave [2^m, 2^(m+1)) in 4 equal parts."""
    if v < 1:
        return None
    if v < PER_OCTAVE:
        return v
    m = 0
    while v >= 2 ** (m + 1):
        m += 1
    width = 2 ** m // PER_OCTAVE
    return 2 ** m + (v - 2 ** m) // width * width


def _check_histogram(summary, n, what):
    h = summary["histogram"]
    assert sum(b["count"] for b in h) == n, (what, h)
    assert h and h[0]["count"] and h[-1]["count"], (what, h)
    for a, b in zip(h, h[1:]):
        assert b["lo_ns"] == a["hi_ns"] + 1, (what, h)
    assert h[0]["lo_ns"] <= summary["min_ns"] and summary["max_ns"] <= h[-1]["hi_ns"], (what, h)


def check_histograms(ntprof, paths, target_alone=False):
    """report --histogram -j on paths: every summary's buckets add up to n; a
    target alone's match target_stages bucket by bucket."""
    doc = _run_json(ntprof, "report", "--histogram", "-j", "-", *paths)
    assert doc["groups"], doc
    for g in doc["groups"]:
        _check_histogram(g["e2e"], g["n"], ("e2e", g["io_type"], g["bytes"]))
        for s in g["stages"]:
            _check_histogram(s, g["n"], (s["stage"], g["io_type"], g["bytes"]))
    if not target_alone:
        return doc
    db = sqlite3.connect(f"file:{paths[0]}?mode=ro", uri=True)
    cols = {"target_driver": "target_driver_ns", "storage": "storage_ns"}
    for g in doc["groups"]:
        rows = db.execute("SELECT residence_ns, target_driver_ns, storage_ns FROM target_stages"
                          " WHERE io_type = ? AND bytes = ? AND device = ?",
                          (g["io_type"], g["bytes"], g["device"])).fetchall()
        assert len(rows) == g["n"], g
        for s in [dict(g["e2e"], stage="residence")] + g["stages"]:
            col = 0 if s["stage"] == "residence" else 1 + list(cols).index(s["stage"])
            want = {}
            for r in rows:
                k = _bucket(r[col])
                want[k] = want.get(k, 0) + 1
            got = {_bucket(b["hi_ns"]): b["count"] for b in s["histogram"] if b["count"]}
            assert doc["histogram_buckets_per_octave"] == PER_OCTAVE
            assert got == want, (s["stage"], got, want)
    db.close()
    return doc


def check_series(ntprof, paths, report_doc, target_alone=False):
    """series -j on paths: its rows add up to the report's groups; for a target
    alone each row's n and mean are SQL's over its window."""
    doc = _run_json(ntprof, "series", "-j", "-", *paths)
    assert doc["interval_ns"] == S
    totals = {}
    for r in doc["rows"]:
        key = (r["file"], r["io_type"], r["bytes"], r["namespace"] or r["device"])
        totals[key] = totals.get(key, 0) + r["n"]
        # a p99 of fewer than 100 commands in the interval is not shown (null)
        assert r["e2e"]["p50_ns"] is None or r["e2e"]["p50_ns"] >= r["e2e"]["min_ns"], r
        if r["e2e"]["p99_ns"] is not None:
            assert r["e2e"]["p99_ns"] >= r["e2e"]["p50_ns"], r
    want = {(g["file"], g["io_type"], g["bytes"], g["namespace"] or g["device"]): g["n"]
            for g in report_doc["groups"]}
    assert totals == want, (totals, want)
    assert doc["commands"] == sum(want.values())
    if not target_alone:
        return doc
    db = sqlite3.connect(f"file:{paths[0]}?mode=ro", uri=True)
    for r in doc["rows"]:
        n, sum_res, sum_storage = db.execute(
            "SELECT count(*), sum(residence_ns), sum(storage_ns) FROM target_stages"
            " WHERE t_recv_ns >= ? AND t_recv_ns < ? AND io_type = ? AND bytes = ?"
            " AND device = ?", (r["start_ns"], r["start_ns"] + S, r["io_type"], r["bytes"],
                                r["device"])).fetchone()
        assert r["n"] == n, r
        assert abs(r["e2e"]["mean_ns"] - sum_res / n) <= 0.5, r
        storage = next(s for s in r["stages"] if s["stage"] == "storage")
        assert abs(storage["mean_ns"] - sum_storage / n) <= 0.5, r
    db.close()
    return doc
