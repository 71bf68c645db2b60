# SPDX-License-Identifier: GPL-2.0
"""--percentiles of report, compare and series (ntprof-report(1),
"Percentiles"): a list such as 50,95,99,99.99 in every table and document,
each value equal to the nearest rank computed here from the generated
commands, and each shown only from the commands it needs (n >= 1 / (1 - p))
so that a p99.99 of 300 commands says so rather than printing their
maximum; -F and --sort name the listed ones wherever the option stands; a
threshold on a percentile no group can test exits 12."""

import csv
import io
import json

import pytest

import ntpgen
from conftest import Exit, run_ok
from report_text import parse_tables, size_str, us

LIST = (50, 95, 99, 99.99)
GROUPS = (ntpgen.Group("read", 4096, "nvme0n1", 12000),
          ntpgen.Group("write", 4096, "nvme0n1", 300, wire=(30_000, 120_000)),
          ntpgen.Group("flush", 0, "nvme1n1", 7))


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    return ntpgen.generate(tmp_path_factory.mktemp("pct") / "h.ntp", seed=11, groups=GROUPS)


def expected(rec, percentiles):
    """{(io_type, bytes): (e2e summary, {stage: summary})} computed here."""
    out = {}
    for (io_type, nbytes, _), cmds in rec.by_group().items():
        out[(io_type, nbytes)] = (
            ntpgen.summary([c.e2e for c in cmds], percentiles),
            {st: ntpgen.summary([c.stages[st] for c in cmds], percentiles)
             for st in ntpgen.STAGES})
    return out


def test_json__listed_percentiles_equal_the_nearest_rank(run, rec):
    doc = json.loads(run_ok(run, "report", "--percentiles", "99.99,50,95:99", "-j", "-",
                        rec.path).stdout)
    assert [p["name"] for p in doc["percentiles"]] == ["p50", "p95", "p99", "p99.99"]
    assert [(p["key"], p["p"], p["min_n_shown"], p["min_n_tested"])
            for p in doc["percentiles"]] == [("p50", 50, 2, 10), ("p95", 95, 20, 100),
                                             ("p99", 99, 100, 500),
                                             ("p99_99", 99.99, 10000, 50000)]
    want = expected(rec, LIST)
    for g in doc["groups"]:
        e2e, stages = want[(g["io_type"], g["bytes"])]
        assert {k: g["e2e"][k] for k in e2e} == e2e
        # the default list's keys are gone, the listed ones there
        assert "p90_ns" not in g["e2e"] and "p99_9_ns" not in g["e2e"]
        for s in g["stages"]:
            assert {k: s[k] for k in stages[s["stage"]]} == stages[s["stage"]], s["stage"]
    big, = [g for g in doc["groups"] if g["n"] == 12000]
    small, = [g for g in doc["groups"] if g["n"] == 300]
    assert big["e2e"]["p99_99_ns"] is not None
    # 300 commands: their p99.99 would be their maximum; none
    assert small["e2e"]["p99_99_ns"] is None and small["e2e"]["p99_ns"] is not None


def test_text__columns_of_the_list_and_dashes_where_too_few(run, rec):
    text = run_ok(run, "report", "--percentiles", "50,95,99,99.99", rec.path).stdout
    assert "# a percentile from this many commands, '-' with fewer: p50 2, p95 20, " \
           "p99 100, p99.99 10000\n" in text
    t = parse_tables(text)
    want = expected(rec, LIST)
    for row in t["groups"]:
        e2e, stages = want[next(k for k in want if size_str(k[1]) == row["size"] and
                                ("other" if k[0] == "other" else k[0]) == row["io_type"])]
        for p in LIST:
            name = "p" + ntpgen.pct_key(p)[1:-3].replace("_", ".")
            assert row[name] == us(e2e[ntpgen.pct_key(p)]), (row, name)
    # the flush group of 7: no p95 (20), no p99, no p99.99; p50 shown
    flush, = [r for r in t["groups"] if r["n"] == "7"]
    assert flush["p95"] == flush["p99"] == flush["p99.99"] == "-" and flush["p50"] != "-"


def test_default_list_unchanged_and_its_minimums_said(run, rec):
    doc = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)
    assert [p["name"] for p in doc["percentiles"]] == ["p50", "p90", "p99", "p99.9"]
    want = expected(rec, ntpgen.DEFAULT_PERCENTILES)
    for g in doc["groups"]:
        e2e, _ = want[(g["io_type"], g["bytes"])]
        assert {k: g["e2e"][k] for k in e2e} == e2e
    text = run_ok(run, "report", rec.path).stdout
    assert "# a percentile from this many commands, '-' with fewer: p50 2, p90 10, " \
           "p99 100, p99.9 1000\n" in text


@pytest.mark.parametrize("order", ["before", "after"])
def test_fields_and_sort_name_the_listed_wherever_the_option_stands(run, rec, order):
    pct = ["--percentiles", "50,95"]
    rest = ["-F", "n,p95", "--sort", "p95:asc"]
    args = pct + rest if order == "before" else rest + pct
    text = run_ok(run, "report", *args, rec.path).stdout
    t = parse_tables(text)
    assert list(t["groups"][0]) == ["io_type", "size", "namespace", "n", "p95"]
    # ascending by p95; the flush group of 7 has none and goes last
    assert t["groups"][-1]["n"] == "7" and t["groups"][-1]["p95"] == "-"
    shown = [float(r["p95"]) for r in t["groups"][:-1]]
    assert shown == sorted(shown)


def test_fields_of_a_percentile_not_listed__usage(run, rec):
    r = run("report", "-F", "p95", str(rec.path))
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert r.stderr.startswith("ntprof report: error: ") and "p95" in r.stderr
    assert len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("arg, why", [
    ("100", "is not above 0 and below 100"),
    ("0", "is not above 0 and below 100"),
    ("99.99999", "more than 4 decimals"),
    ("50,,99", "is not a percentile"),
    ("p99", "is not a percentile"),
    ("1,2,3,4,5,6,7,8,9", "more than 8 percentiles"),
    ("", "is not a percentile"),
])
@pytest.mark.parametrize("cmd", ["report", "compare", "series"])
def test_bad_lists__one_line_usage(run, rec, cmd, arg, why):
    files = [rec.path, rec.path] if cmd == "compare" else [rec.path]
    r = run(cmd, "--percentiles", arg, *map(str, files))
    assert r.returncode == Exit.USAGE, r.stderr
    assert r.stdout == ""
    assert r.stderr == f"ntprof {cmd}: error: invalid value '{arg}' for option " \
                       f"'--percentiles': {r.stderr.split(': ', 3)[-1]}"
    assert why in r.stderr and len(r.stderr.splitlines()) == 1


def test_compare__listed_percentile_and_untested_threshold(run, rec, tmp_path):
    other = ntpgen.generate(tmp_path / "b.ntp", seed=12, groups=GROUPS)
    doc = json.loads(run_ok(run, "compare", "--percentiles", "50,99.99", "--stat", "p99.99",
                        "-j", "-", rec.path, other.path).stdout)
    assert doc["statistics"] == ["p99_99"]
    rows = {(g["io_type"], g["bytes"]): {s["stage"]: s for s in g["stages"]}
            for g in doc["groups"]}
    # 12000 commands: shown, not tested (a p99.99 needs 50000 a run)
    big = rows[("read", 4096)]["e2e"]["p99_99"]
    assert big["baseline_ns"] is not None and big["verdict"] == "not_tested"
    assert big["needs_n"] == 50000
    # 300: not even shown
    small = rows[("write", 4096)]["e2e"]["p99_99"]
    assert small["baseline_ns"] is None and small["delta_ns"] is None
    assert small["verdict"] == "not_tested"
    # a threshold no group can test exits 12, in text and JSON mode
    for json_out in ([], ["-j", "-"]):
        r = run("compare", "--percentiles", "99.99", "--threshold", "network_star.p99.99=10",
                *json_out, str(rec.path), str(other.path))
        assert r.returncode == Exit.UNTESTED, (json_out, r.stderr)


def test_series__columns_of_the_list(run, rec):
    text = run_ok(run, "series", "--percentiles", "50,99", "-i", "10", rec.path).stdout
    titles = next(ln for ln in text.splitlines() if ln.startswith("#    time_s")).split()
    assert "end-to-end.mean" in titles and "end-to-end.p50" in titles \
        and "end-to-end.p99" in titles and "end-to-end.p90" not in titles
    assert "p50 2, p99 100" in text
    out = run_ok(run, "series", "--percentiles", "50,99", "-i", "10", "--csv", "-", rec.path).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    want = expected(rec, (50, 99))
    for row in rows:
        e2e, stages = want[(row["io_type"], int(row["bytes"]))]
        assert row["e2e_p50_ns"] == str(e2e["p50_ns"])
        assert row["e2e_p99_ns"] == ("" if e2e["p99_ns"] is None else str(e2e["p99_ns"]))
        assert row["block_p99_ns"] == ("" if stages["block"]["p99_ns"] is None else
                                       str(stages["block"]["p99_ns"]))
    # without the option: the p99 alone, as before
    out = run_ok(run, "series", "-i", "10", "--csv", "-", rec.path).stdout
    head = out.splitlines()[0].split(",")
    assert "e2e_p99_ns" in head and "e2e_p50_ns" not in head
