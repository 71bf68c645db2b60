# SPDX-License-Identifier: GPL-2.0
"""-t SEP, report and compare: the long ("tidy") form, a header row and one
row per group, stage and statistic with every key, the values those of -j,
fields quoted as dump quotes (ntprof-report(1), ntprof-compare(1),
"Separated fields")."""

import csv
import io
import json
import sqlite3

import pytest

import ntpgen
import tidy
from conftest import Exit, assert_ok, usage_error


def ok(run, *args):
    r = run(*args)
    assert_ok(r)
    return r.stdout


def report_doc(run, *args):
    return json.loads(ok(run, "report", "-j", "-", *args))


@pytest.mark.parametrize("args,stages", [
    (["host.ntp"], {"block", "driver", "network_star"}),
    (["-S", "detail", "host.ntp"], {"block", "host_tx", "r2t_host", "network_star", "host_rx"}),
    (["ph.ntp", "pt.ntp"], {"block", "driver", "network", "target_driver", "storage"}),
    (["--stages=detail", "both.ntp"], {"block", "host_tx", "network", "target_rx", "r2t_wait",
                                       "r2t_host", "storage", "target_tx", "host_rx"}),
    (["pt.ntp"], {"target_driver", "storage"}),
])


def test_long_form_is_the_json_of_every_kind(run, every_kind, args, stages):
    paths = [str(every_kind / a) if a.endswith(".ntp") else a for a in args]
    header, rows = tidy.read(ok(run, "report", "-t", ",", *paths))
    assert header == tidy.REPORT_COLUMNS
    doc = report_doc(run, *paths)
    assert tidy.tidy_report_cells(rows) == pytest.approx(tidy.report_cells(doc))
    assert {r["stage"] for r in rows} == stages | {"unattributed", "e2e"}
    # every key in every row: grouping by them gives each statistic once
    keys = [tuple(r[c] for c in tidy.REPORT_COLUMNS[:-1]) for r in rows]
    assert len(keys) == len(set(keys))
    assert all(r["io_type"] and r["bytes"].isdigit() and r["file"].isdigit() for r in rows)


def test_long_form_with_a_tab_and_a_word_as_separator(run, every_kind):
    comma = ok(run, "report", "-t", ",", every_kind / "host.ntp")
    tab = ok(run, "report", "-t", "\t", every_kind / "host.ntp")
    assert tab == comma.replace(",", "\t")
    assert tidy.read(tab, "\t")[1] == tidy.read(comma)[1]
    word = ok(run, "report", "-t", " | ", every_kind / "host.ntp")
    assert word == comma.replace(",", " | ")
    assert ok(run, "report", "--field-separator", ",", every_kind / "host.ntp") == comma
    assert ok(run, "report", "--field-separator=;", every_kind / "host.ntp") == comma.replace(",", ";")
    assert ok(run, "compare", "--field-separator", ";", every_kind / "host.ntp", every_kind / "new.ntp") == \
        ok(run, "compare", "-t", ",", every_kind / "host.ntp", every_kind / "new.ntp").replace(",", ";")


def test_long_form_quotes_as_dump_quotes(run, tmp_path):
    """A namespace holding the separator and a quote is one field, RFC 4180 style."""
    ns = 'nvme0n1,"odd"'
    rec = ntpgen.generate(tmp_path / "q.ntp", groups=(ntpgen.Group("read", 4096, "nvme0n1", 50),))
    with sqlite3.connect(rec.path) as db:
        db.execute("UPDATE host_io SET namespace = ?", (ns,))
    db.close()
    out = ok(run, "report", "-t", ",", rec.path)
    assert '1,read,4096,"nvme0n1,""odd""",,block,n,50\n' in out
    header, rows = tidy.read(out)
    assert {r["namespace"] for r in rows} == {ns}
    # the same field in dump's CSV
    dump = list(csv.reader(io.StringIO(ok(run, "dump", rec.path))))
    assert {row[dump[0].index("namespace")] for row in dump[1:]} == {ns}
    assert '"nvme0n1,""odd"""' in ok(run, "dump", rec.path)
    # with another separator the comma needs no quotes, the quote still does
    assert '1;read;4096;"nvme0n1,""odd""";;block;n;50\n' in ok(run, "report", "-t", ";", rec.path)


def test_long_form_respects_percent_limit_and_warns_on_stderr(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "lost.ntp", lost_ringbuf=3)
    r = run("report", "-t", ",", "--percent-limit", "20", rec.path)
    assert r.returncode == Exit.OK
    assert r.stderr.startswith("ntprof report: warning: ") and "3 sampled commands" in r.stderr
    assert not [line for line in r.stdout.splitlines() if line.startswith("#")]
    doc = report_doc(run, "--percent-limit", "20", rec.path)
    assert doc["hidden_groups"] > 0
    assert tidy.tidy_report_cells(tidy.read(r.stdout)[1]) == \
        pytest.approx(tidy.report_cells(doc))


def test_long_form_of_a_recording_without_commands_is_the_header(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "empty.ntp", groups=())
    assert ok(run, "report", "-t", ",", rec.path) == ",".join(tidy.REPORT_COLUMNS) + "\n"


def compare_cells(doc):
    out = {}
    for g in doc["groups"]:
        key = (g["file"], g["io_type"], g["bytes"], g["namespace"], g["device"])
        nb, nn = g["n_baseline"], g["n_new"]
        both = nb is not None and nn is not None
        out[key + ("e2e", "n")] = (nb, nn, nn - nb if both else None,
                                   nn / nb if both and nb else None, None, None, None,
                                   g["present"])
        for s in g["stages"]:
            for stat in doc["statistics"]:
                v = s[stat]
                out[key + (s["stage"], stat + "_ns")] = (v["baseline_ns"], v["new_ns"],
                                                          v["delta_ns"], v["ratio"],
                                                          v["ci95_low_ns"], v["ci95_high_ns"],
                                                          v["significant"], s["present"])
    return out


@pytest.mark.parametrize("args", [
    ["host.ntp", "new.ntp"],
    ["--stat", "mean,p50,p90,p99,p99.9", "host.ntp", "new.ntp"],
    ["pt.ntp", "pt.ntp"],
    ["-S", "detail", "ph.ntp,pt.ntp", "both.ntp"],
])


def test_compare_long_form_is_its_json(run, every_kind, args):
    paths = [",".join(str(every_kind / p) for p in a.split(",")) if a.endswith(".ntp") else a
             for a in args]
    header, rows = tidy.read(ok(run, "compare", "-t", ",", *paths))
    assert header == tidy.COMPARE_COLUMNS
    doc = json.loads(ok(run, "compare", "-j", "-", *paths))
    got = {(int(r["file"]), r["io_type"], int(r["bytes"]), r["namespace"] or None,
            r["device"] or None, r["stage"], r["stat"]): (tidy.num(r["baseline"]), tidy.num(r["new"]),
                                     tidy.num(r["delta"]), tidy.num(r["ratio"]),
                                     tidy.num(r["ci95_low"]), tidy.num(r["ci95_high"]),
                                     {"true": True, "false": False, "": None}[r["significant"]],
                                     r["present"])
           for r in rows}
    assert len(got) == len(rows)
    assert got == pytest.approx(compare_cells(doc))


def test_compare_long_form_marks_groups_of_one_run(run, tmp_path):
    a = ntpgen.generate(tmp_path / "a.ntp", groups=(ntpgen.Group("read", 4096, "nvme0n1", 40),))
    b = ntpgen.generate(tmp_path / "b.ntp", groups=(ntpgen.Group("write", 8192, "nvme0n1", 30),))
    _, rows = tidy.read(ok(run, "compare", "-t", ",", a.path, b.path))
    n = {r["io_type"]: r for r in rows if r["stat"] == "n"}
    assert (n["read"]["baseline"], n["read"]["new"], n["read"]["delta"], n["read"]["present"]) \
        == ("40", "", "", "baseline-only")
    assert (n["write"]["baseline"], n["write"]["new"], n["write"]["present"]) == \
        ("", "30", "new-only")


@pytest.mark.parametrize("cmd", ["report", "compare"])
def test_empty_separator_is_an_error(run, every_kind, cmd):
    files = [every_kind / "host.ntp"] * (2 if cmd == "compare" else 1)
    usage_error(run, cmd, "-t", "", *files, says="'-t' requires a non-empty value")
