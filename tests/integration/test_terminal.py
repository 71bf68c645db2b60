# SPDX-License-Identifier: GPL-2.0
"""The terminal (ntprof(1), THE TERMINAL): report's and compare's text tables
fold to COLUMNS, the terminal's width or a pipe's 100 columns into blocks
that repeat the key columns, --wide keeps them whole, and --color marks report's dominant stage
and compare's significant changes, on a terminal unless NO_COLOR says not.

Folded or not, the tables hold the same cells: the folded text is read back
with the one parser of report text (report_text.py) and compared with the
whole table's."""

import dataclasses
import re

import pytest

import ntpgen
from conftest import Exit, assert_ok
from report_text import parse_tables
from test_pager import on_terminal

SGR = re.compile(r"\x1b\[[0-9;]*m")
HOT, WORSE, BETTER, OFF = "\x1b[1;31m", "\x1b[31m", "\x1b[32m", "\x1b[m"


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("term")
    ntpgen.generate(d / "host.ntp")
    ntpgen.generate_pair(d / "jh.ntp", d / "jt.ntp", drift=0.0)
    # the new run: read 4KiB's block layer much slower, write 4KiB's wire much faster
    g = list(ntpgen.DEFAULT_GROUPS)
    g[0] = dataclasses.replace(g[0], block=(40_000, 60_000))
    g[1] = dataclasses.replace(g[1], wire=(5_000, 15_000))
    ntpgen.generate(d / "new.ntp", seed=2, groups=tuple(g))
    return d


def table_lines(text):
    """The tables' lines: their column titles and rows, not the prose around them."""
    return [l for l in text.splitlines()
            if l.startswith("  ") or re.match(r"# (file |io_type |stage )", l)]


REPORTS = {"host": ["host.ntp"], "joined": ["jh.ntp", "jt.ntp"]}


@pytest.mark.parametrize("kind", sorted(REPORTS))
@pytest.mark.parametrize("width", [80, 100])
def test_report_folds_to_columns__same_cells(run, recs, kind, width):
    files = [recs / f for f in REPORTS[kind]]
    whole = run("report", *files)
    folded = run("report", *files, env={"COLUMNS": str(width)})
    assert_ok(whole)
    assert_ok(folded)
    assert max(map(len, table_lines(whole.stdout))) > width
    assert max(map(len, table_lines(folded.stdout))) <= width
    # every block begins with the keys: more title lines than the whole text has
    titles = [l for l in folded.stdout.splitlines() if l.startswith(("# io_type", "# file", "# stage"))]
    assert len(titles) > len([l for l in whole.stdout.splitlines()
                              if l.startswith(("# io_type", "# file", "# stage"))])
    by_file = kind == "joined"
    assert parse_tables(folded.stdout, by_file) == parse_tables(whole.stdout, by_file)


def test_report_percentile_list_folds(run, recs):
    """A long --percentiles list makes the table wide; at 100 columns it folds, every percentile kept."""
    args = ["report", "--percentiles", "10,25,50,90,95,99,99.9,99.99", recs / "host.ntp"]
    whole, folded = run(*args), run(*args, env={"COLUMNS": "100"})
    assert_ok(folded)
    assert max(map(len, table_lines(whole.stdout))) > 150
    assert max(map(len, table_lines(folded.stdout))) <= 100
    t = parse_tables(folded.stdout)
    assert t == parse_tables(whole.stdout)
    assert {"p10", "p25", "p99.99", "stddev"} <= set(t["groups"][0])


def test_wide__whole_tables_whatever_columns(run, recs):
    whole = run("report", recs / "host.ntp")
    wide = run("report", "--wide", recs / "host.ntp", env={"COLUMNS": "80"})
    assert_ok(wide)
    assert wide.stdout == whole.stdout


@pytest.mark.parametrize("columns", ["", "0", "-5", "80x", "99999999"])
def test_columns_not_a_width__as_a_pipe_without_it(run, recs, columns):
    """COLUMNS that is not a width is ignored: a pipe's 100 columns."""
    at100 = run("report", recs / "host.ntp", env={"COLUMNS": "100"})
    r = run("report", recs / "host.ntp", env={"COLUMNS": columns})
    assert_ok(r)
    assert r.stdout == at100.stdout
    assert r.stdout != run("report", "--wide", recs / "host.ntp").stdout


def test_narrow_width__one_statistic_a_block(run, recs):
    """Narrower than the keys and one column: each block still shows one statistic."""
    r = run("report", recs / "host.ntp", env={"COLUMNS": "20"})
    assert_ok(r)
    group_titles = [l.split()[1:] for l in r.stdout.splitlines() if l.startswith("# io_type")]
    assert [t[3:] for t in group_titles] == [[s] for s in ("n", "est_cmds/s", "min", "mean", "p50",
                                                           "p90", "p99", "p99.9", "max", "stddev")]
    assert parse_tables(r.stdout) == parse_tables(run("report", recs / "host.ntp").stdout)


def test_separated_fields_never_fold(run, recs):
    whole = run("report", "-t", ",", recs / "host.ntp")
    r = run("report", "-t", ",", recs / "host.ntp", env={"COLUMNS": "40"})
    assert_ok(r)
    assert r.stdout == whole.stdout


def compare_rows(text):
    """{(io_type, size, namespace, stage, stat): {column: value}}, folded blocks merged."""
    rows, titles = {}, None
    for line in text.split("# stages (us)\n", 1)[1].splitlines():
        if line.startswith("# io_type"):
            titles = line[1:].split()
        elif line.startswith("  "):
            row = dict(zip(titles, line.split()))
            rows.setdefault(tuple(line.split()[:5]), {}).update(row)
        elif not line.startswith("#   ") and line.startswith("#"):
            break
    return rows


@pytest.mark.parametrize("width", [80, 100])
def test_compare_folds_to_columns__same_rows(run, recs, width):
    files = [recs / "host.ntp", recs / "new.ntp"]
    whole = run("compare", *files)
    folded = run("compare", *files, env={"COLUMNS": str(width)})
    assert_ok(folded)
    stage_lines = lambda t: [l for l in t.split("# stages (us)\n", 1)[1].split("\n#\n", 1)[0]
                             .splitlines()]
    assert max(map(len, stage_lines(whole.stdout))) > width
    assert max(map(len, stage_lines(folded.stdout))) <= width
    rows = compare_rows(folded.stdout)
    assert rows == compare_rows(whole.stdout)
    assert all(len(r) == 12 for r in rows.values())


def test_compare_wide__whole_rows(run, recs):
    files = [recs / "host.ntp", recs / "new.ntp"]
    r = run("compare", "--wide", *files, env={"COLUMNS": "80"})
    assert_ok(r)
    assert r.stdout == run("compare", *files).stdout


def painted_rows(text, sgr):
    return [SGR.sub("", l) for l in text.splitlines() if l.startswith(sgr)]


def test_report_color_always__the_dominant_stage_of_each_group(run, recs):
    plain = run("report", recs / "host.ntp")
    r = run("report", "--color=always", recs / "host.ntp")
    assert_ok(r)
    # the colour is all that differs, and every mark ends on its own line
    assert SGR.sub("", r.stdout) == plain.stdout
    assert all(l.endswith(OFF) for l in r.stdout.splitlines() if l.startswith(HOT))
    hot = painted_rows(r.stdout, HOT)
    t = parse_tables(plain.stdout)
    assert len(hot) == len(t["stages"])
    for stages, line in zip(t["stages"].values(), hot):
        parts = {s: float(v["mean"]) for s, v in stages.items()
                 if s not in ("unattributed", "end-to-end") and v["mean"] != "-"}
        assert line.split()[0] == max(parts, key=parts.get)


def test_report_color_always__folded_every_block_marked(run, recs):
    r = run("report", "--color=always", recs / "host.ntp", env={"COLUMNS": "80"})
    assert_ok(r)
    wide = run("report", "--color=always", recs / "host.ntp")
    assert len(painted_rows(r.stdout, HOT)) == 2 * len(painted_rows(wide.stdout, HOT))


@pytest.mark.parametrize("args", [[], ["--color=never"], ["--color=auto"]])
def test_pipe_or_never__no_colour(run, recs, args):
    r = run("report", *args, recs / "host.ntp")
    assert_ok(r)
    assert "\x1b" not in r.stdout


def test_compare_color_always__significant_rows_red_worse_green_better(run, recs):
    files = [recs / "host.ntp", recs / "new.ntp"]
    plain = run("compare", *files)
    r = run("compare", "--color=always", *files)
    assert r.returncode == Exit.OK
    assert SGR.sub("", r.stdout) == plain.stdout
    worse, better = painted_rows(r.stdout, WORSE), painted_rows(r.stdout, BETTER)
    assert any(l.split()[:4] == ["read", "4KiB", "nvme0n1", "block"] for l in worse)
    assert any(l.split()[:4] == ["write", "4KiB", "nvme0n1", "network*"] for l in better)
    rows = compare_rows(plain.stdout)
    for key, row in rows.items():
        line = "  " + " ".join(key)
        marked = [l for l in worse + better if " ".join(l.split()[:5]) == " ".join(key)]
        assert bool(marked) == (row["sig"] == "yes"), (key, row)
        if marked:
            assert (marked[0] in worse) == row["delta"].startswith("+"), (line, row)


def test_bad_color_word__usage(run, recs):
    r = run("report", "--color=sometimes", recs / "host.ntp")
    assert r.returncode == Exit.USAGE
    assert r.stdout == "" and "color" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("env,args,coloured", [
    ({}, [], True),
    ({"NO_COLOR": "1"}, [], False),
    ({"NO_COLOR": ""}, [], True),
    ({"TERM": "dumb"}, [], False),
    ({"NO_COLOR": "1"}, ["--color=always"], True),
    ({}, ["--color=never"], False),
])
def test_terminal_colour__auto_no_color_and_dumb(ntprof, recs, env, args, coloured):
    rc, shown, err = on_terminal(ntprof, ["report", "--no-pager", *args, recs / "host.ntp"],
                                 {"TERM": "xterm", **env})
    assert rc == Exit.OK and err == ""
    assert (HOT in shown) == coloured


@pytest.mark.parametrize("cols", [80, 100])
def test_terminal_width__tables_fold_to_it(ntprof, recs, cols):
    rc, shown, err = on_terminal(ntprof, ["report", "--no-pager", "--color=never",
                                          recs / "host.ntp"], {}, cols=cols)
    assert rc == Exit.OK and err == ""
    lines = table_lines(shown)
    assert lines and max(map(len, lines)) <= cols


@pytest.fixture
def fake_pager(tmp_path):
    got = tmp_path / "paged.env"
    script = tmp_path / "pager.sh"
    script.write_text(f"#!/bin/sh\necho \"LESS=$LESS\" > '{got}'\ncat > /dev/null\n")
    script.chmod(0o755)
    return script, got


@pytest.mark.parametrize("args,cols,less", [
    ([], 100, "FRX"),              # folded to the terminal: lines fit
    (["--wide"], 100, "FRXS"),     # whole tables: cut at the edge, not wrapped
    ([], 0, "FRX"),                # a terminal that does not say its width: 100, as a pipe
])
def test_pager_cuts_lines_of_text_not_folded(ntprof, recs, fake_pager, args, cols, less):
    script, got = fake_pager
    for cmd, files in (("report", [recs / "host.ntp"]), ("compare", [recs / "host.ntp"] * 2)):
        rc, _, err = on_terminal(ntprof, [cmd, *args, *files], {"PAGER": str(script)}, cols=cols)
        assert rc == Exit.OK and err == ""
        assert got.read_text() == f"LESS={less}\n", cmd


@pytest.mark.parametrize("cmd, files", [
    ("report", ["host.ntp"]),
    ("report", ["jh.ntp", "jt.ntp"]),
    ("compare", ["host.ntp", "new.ntp"]),
])
def test_pipe__compact_tables__as_100_columns(run, recs, cmd, files):
    """A pipe or a file without COLUMNS gets the compact tables, folded to 100
    columns as a terminal of 100 would: the same text whatever terminal a
    script was started from, the same cells as --wide's whole tables."""
    paths = [recs / f for f in files]
    piped = run(cmd, *paths, env={"COLUMNS": ""})
    at100 = run(cmd, *paths, env={"COLUMNS": "100"})
    wide = run(cmd, "--wide", *paths, env={"COLUMNS": ""})
    for r in (piped, at100, wide):
        assert_ok(r)
    assert piped.stdout == at100.stdout
    assert max(map(len, table_lines(piped.stdout))) <= 100
    assert max(map(len, table_lines(wide.stdout))) > 100
    if cmd == "report":
        by_file = len(files) > 1
        assert parse_tables(piped.stdout, by_file) == parse_tables(wide.stdout, by_file)


