# SPDX-License-Identifier: GPL-2.0
"""The mistakes that used to be accepted in silence (issue 14), each now one
line on stderr and its exit code: --pretty without -j, a text option (-t,
-q) with -j -, dump of a target recording alone, a recording without meta;
and the JSON error document carries the cause stderr gives."""

import json
import sqlite3

import pytest

import ntpgen
from conftest import Exit, assert_ok


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("machine")
    ntpgen.generate(d / "host.ntp")
    ntpgen.generate(d / "new.ntp", seed=2)
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", lose_host=0, lose_target=0)
    ntpgen.generate_both(d / "both.ntp", lose_host=0, lose_target=0)
    return d


def ok(run, *args):
    r = run(*args)
    assert_ok(r)
    return r.stdout


def report_doc(run, *args):
    return json.loads(ok(run, "report", "-j", "-", *args))


def usage_error(run, *args, says):
    r = run(*args)
    assert r.returncode == Exit.USAGE, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr
    return r


@pytest.mark.parametrize("cmd", ["report", "compare"])
def test_pretty_without_json_is_an_error(run, recs, cmd):
    files = [recs / "host.ntp"] * (2 if cmd == "compare" else 1)
    r = usage_error(run, cmd, "--pretty", *files, says="--pretty")
    assert r.stdout == ""
    assert run(cmd, "--pretty", "-j", "-", *files).stdout.startswith("{\n")


@pytest.mark.parametrize("cmd", ["report", "compare"])
@pytest.mark.parametrize("opt", [["-t", ","], ["-q"]])
def test_text_options_with_json_on_stdout_are_an_error(run, recs, tmp_path, cmd, opt):
    files = [recs / "host.ntp"] * (2 if cmd == "compare" else 1)
    r = usage_error(run, cmd, *opt, "-j", "-", *files, says=f"{opt[0]} shapes the text")
    # stdout is the JSON document, an error's too
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == Exit.USAGE and opt[0] in doc["error"]["message"]
    # with -j FILE both are written
    r = run(cmd, *opt, "-j", tmp_path / "out.json", *files)
    assert_ok(r)
    assert r.stdout and json.loads((tmp_path / "out.json").read_text())["command"] == cmd


def test_dump_of_a_target_alone_is_refused(run, recs, tmp_path):
    r = run("dump", recs / "pt.ntp")
    assert r.returncode == Exit.MISMATCH and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert "a target recording alone has no host commands to dump" in r.stderr
    r = run("dump", "-o", tmp_path / "t.csv", recs / "pt.ntp")
    assert r.returncode == Exit.MISMATCH and not (tmp_path / "t.csv").exists()
    # joined with its host, and a -r both file, it has rows
    for args in ([recs / "ph.ntp", recs / "pt.ntp"], [recs / "both.ntp"]):
        rows = ok(run, "dump", *args).splitlines()
        assert rows[0].startswith("host_file,target_file") and len(rows) > 1


@pytest.fixture
def nometa(recs, tmp_path):
    path = tmp_path / "nometa.ntp"
    path.write_bytes((recs / "host.ntp").read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM meta")
    db.close()
    return path


@pytest.mark.parametrize("cmd", ["report", "dump", "compare", "compare-new"])
def test_a_recording_without_meta_is_refused(run, recs, nometa, cmd):
    args = {"report": ["report", nometa], "dump": ["dump", nometa],
            "compare": ["compare", nometa, recs / "host.ntp"],
            "compare-new": ["compare", recs / "host.ntp", nometa]}[cmd]
    r = run(*args)
    assert r.returncode == Exit.CORRUPT, r.stderr
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert f"{nometa}: corrupt: the recording has no meta rows" in r.stderr


def test_joining_a_recording_without_meta_is_refused(run, recs, nometa):
    r = run("report", nometa, recs / "pt.ntp")
    assert r.returncode == Exit.MISMATCH and "its meta has no role" in r.stderr


@pytest.mark.parametrize("case", ["missing", "not sqlite", "no meta", "mismatch",
                                  "compare kinds", "twice"])


def test_json_error_carries_the_cause_stderr_gives(run, recs, nometa, tmp_path, case):
    text = tmp_path / "text.ntp"
    text.write_text("hello\n")
    args = {
        "missing": ["report", tmp_path / "none.ntp"],
        "not sqlite": ["report", text],
        "no meta": ["report", nometa],
        "mismatch": ["report", recs / "host.ntp", recs / "host.ntp"],
        "compare kinds": ["compare", recs / "host.ntp", recs / "pt.ntp"],
        "twice": ["report", recs / "ph.ntp", recs / "pt.ntp", recs / "ph.ntp"],
    }[case]
    r = run(args[0], "-j", "-", *args[1:])
    assert r.returncode != Exit.OK
    doc = json.loads(r.stdout)
    prefix = f"ntprof {args[0]}: error: "
    (line,) = r.stderr.splitlines()
    assert line.startswith(prefix)
    assert doc["error"] == {"code": r.returncode, "message": line[len(prefix):]}
