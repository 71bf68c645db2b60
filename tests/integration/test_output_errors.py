# SPDX-License-Identifier: GPL-2.0
"""Mistakes refused rather than accepted in silence, each with one line on
stderr and its exit code: --pretty without -j, a text option (-t,
-q) with -j -, a recording without meta;
and the JSON error document carries the cause stderr gives."""

import json
import sqlite3

import pytest

from conftest import Exit, assert_ok, usage_error


def ok(run, *args):
    r = run(*args)
    assert_ok(r)
    return r.stdout


def report_doc(run, *args):
    return json.loads(ok(run, "report", "-j", "-", *args))


@pytest.mark.parametrize("cmd", ["report", "compare"])
def test_pretty_without_json_is_an_error(run, every_kind, cmd):
    files = [every_kind / "host.ntp"] * (2 if cmd == "compare" else 1)
    r = usage_error(run, cmd, "--pretty", *files, says="--pretty")
    assert r.stdout == ""
    assert run(cmd, "--pretty", "-j", "-", *files).stdout.startswith("{\n")


@pytest.mark.parametrize("cmd", ["report", "compare"])
@pytest.mark.parametrize("opt", [["-t", ","], ["-q"]])
def test_text_options_with_json_on_stdout_are_an_error(run, every_kind, tmp_path, cmd, opt):
    files = [every_kind / "host.ntp"] * (2 if cmd == "compare" else 1)
    r = usage_error(run, cmd, *opt, "-j", "-", *files, says=f"{opt[0]} shapes the text")
    # stdout is the JSON document, an error's too
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == Exit.USAGE and opt[0] in doc["error"]["message"]
    # with -j FILE both are written
    r = run(cmd, *opt, "-j", tmp_path / "out.json", *files)
    assert_ok(r)
    assert r.stdout and json.loads((tmp_path / "out.json").read_text())["command"] == cmd


@pytest.fixture
def nometa(every_kind, tmp_path):
    path = tmp_path / "nometa.ntp"
    path.write_bytes((every_kind / "host.ntp").read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM meta")
    db.close()
    return path


@pytest.mark.parametrize("cmd", ["report", "dump", "compare", "compare-new"])
def test_a_recording_without_meta_is_refused(run, every_kind, nometa, cmd):
    args = {"report": ["report", nometa], "dump": ["dump", nometa],
            "compare": ["compare", nometa, every_kind / "host.ntp"],
            "compare-new": ["compare", every_kind / "host.ntp", nometa]}[cmd]
    r = run(*args)
    assert r.returncode == Exit.CORRUPT, r.stderr
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert f"{nometa}: corrupt: the recording has no meta rows" in r.stderr


def test_joining_a_recording_without_meta_is_refused(run, every_kind, nometa):
    r = run("report", nometa, every_kind / "pt.ntp")
    assert r.returncode == Exit.MISMATCH and "its meta has no role" in r.stderr


@pytest.mark.parametrize("case", ["missing", "not sqlite", "no meta", "mismatch",
                                  "compare kinds", "twice"])


def test_json_error_carries_the_cause_stderr_gives(run, every_kind, nometa, tmp_path, case):
    text = tmp_path / "text.ntp"
    text.write_text("hello\n")
    args = {
        "missing": ["report", tmp_path / "none.ntp"],
        "not sqlite": ["report", text],
        "no meta": ["report", nometa],
        "mismatch": ["report", every_kind / "host.ntp", every_kind / "host.ntp"],
        "compare kinds": ["compare", every_kind / "host.ntp", every_kind / "pt.ntp"],
        "twice": ["report", every_kind / "ph.ntp", every_kind / "pt.ntp", every_kind / "ph.ntp"],
    }[case]
    r = run(args[0], "-j", "-", *args[1:])
    assert r.returncode != Exit.OK
    doc = json.loads(r.stdout)
    prefix = f"ntprof {args[0]}: error: "
    (line,) = r.stderr.splitlines()
    assert line.startswith(prefix)
    assert doc["error"] == {"code": r.returncode, "message": line[len(prefix):]}


@pytest.mark.parametrize("args", [("report", "-j"), ("dump", "-o"), ("export", "-o"),
                                  ("report", "--html")], ids=" ".join)
def test_a_recording_where_the_output_goes_is_kept(run, every_kind, tmp_path, args):
    """report -j host.ntp target.ntp: the host recording taken for -j's FILE
    is not replaced (it was moved to host.ntp.old), and nothing is reported"""
    h = tmp_path / "ph.ntp"
    h.write_bytes((every_kind / "ph.ntp").read_bytes())
    before = h.read_bytes()
    r = usage_error(run, *args, h, every_kind / "pt.ntp", says="it is an SQLite database")
    assert str(h) in r.stderr and r.stdout == ""
    assert h.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ph.ntp"]


def test_a_joined_recording_replaces_a_recording(run, every_kind, tmp_path):
    """join -o writes a recording: one already there (a joined one made
    before) becomes FILE.old as any file there does"""
    out = tmp_path / "j.ntp"
    assert_ok(run("join", "-o", out, every_kind / "ph.ntp", every_kind / "pt.ntp"))
    first = out.read_bytes()
    assert_ok(run("join", "-o", out, every_kind / "ph.ntp", every_kind / "pt.ntp"))
    assert (tmp_path / "j.ntp.old").read_bytes() == first


@pytest.mark.parametrize("args", [("report", "-j"), ("report", "--html"), ("compare", "-j"),
                                  ("series", "-j"), ("series", "--csv"), ("series", "--html"),
                                  ("dump", "-o"), ("export", "-o")], ids=" ".join)
def test_an_output_that_is_an_input_is_refused(run, every_kind, tmp_path, args):
    """Every reading command, one check: an output over a recording being read."""
    h = tmp_path / "host.ntp"
    h.write_bytes((every_kind / "host.ntp").read_bytes())
    before = h.read_bytes()
    files = [f"{h},{every_kind / 'new.ntp'}", every_kind / "new.ntp"] if args[0] == "compare" \
        else [h]
    r = usage_error(run, *args, h, *files, says="the output is the recording itself")
    assert f"choose another {args[1]} FILE" in r.stderr
    assert h.read_bytes() == before
