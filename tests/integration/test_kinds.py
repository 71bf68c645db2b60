# SPDX-License-Identifier: GPL-2.0
"""Every reading command classifies recordings alike, through the one way in.

lib/model/model_files.c decides once what a set of recordings is (host,
target, both, joined, pair) and says so with -v; report, series, dump,
export and compare all read through it, so each says the same kind for the
same files, and reads them as that kind.
"""

import json
import re

import pytest

import ntpgen
from conftest import Exit

KIND = re.compile(r"^ntprof \w+: debug: reading .*: kind (\w+)$", re.M)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory, ntprof):
    """A recording (or a set) of each kind, and a second one for compare."""
    import subprocess
    d = tmp_path_factory.mktemp("kinds")
    out = {}
    for k in ("a", "b"):
        seed = 11 if k == "a" else 12
        ntpgen.generate_pair(d / f"h{k}.ntp", d / f"t{k}.ntp", seed=seed, lose_host=0,
                             lose_target=0)
        ntpgen.generate_both(d / f"both{k}.ntp", seed=seed, lose_host=0, lose_target=0)
        subprocess.run([ntprof, "join", "-q", "-o", str(d / f"joined{k}.ntp"),
                        str(d / f"h{k}.ntp"), str(d / f"t{k}.ntp")], check=True)
        out[k] = {"host": [d / f"h{k}.ntp"], "target": [d / f"t{k}.ntp"],
                  "both": [d / f"both{k}.ntp"], "joined": [d / f"joined{k}.ntp"],
                  "pair": [d / f"h{k}.ntp", d / f"t{k}.ntp"]}
    return d, out


def said(r):
    """the kinds a command said it read, in order"""
    return KIND.findall(r.stderr)


# what each command refuses, by design, after it has classified its input: nothing now
REFUSED = set()


@pytest.mark.parametrize("kind", ["host", "target", "both", "joined", "pair"])
def test_every_reader_says_the_same_kind(run, kinds, tmp_path, kind):
    _, files = kinds
    a, b = files["a"][kind], files["b"][kind]
    cmds = {
        "report": ["report"] + a,
        "series": ["series"] + a,
        "dump": ["dump"] + a,
        "export": ["export", "-o", tmp_path / "x.pftrace"] + a,
        "compare": ["compare", ",".join(map(str, a)), ",".join(map(str, b))],
    }
    for cmd, args in cmds.items():
        r = run("-v", *args)
        expect = [kind, kind] if cmd == "compare" else [kind]
        assert said(r) == expect, (cmd, r.returncode, r.stderr)
        if (cmd, kind) in REFUSED:
            assert r.returncode == Exit.MISMATCH, (cmd, r.stderr)
        else:
            assert r.returncode == Exit.OK, (cmd, r.stderr)


def test_series_reads_a_joined_recording_as_joined(run, kinds):
    """ntprof join's file: series, as report, joined, with the pair's points."""
    _, files = kinds
    joined = run("series", "-j", "-", *files["a"]["joined"])
    pair = run("series", "-j", "-", *files["a"]["pair"])
    report = run("report", "-j", "-", *files["a"]["joined"])
    assert joined.returncode == pair.returncode == report.returncode == Exit.OK
    js, ps, rs = json.loads(joined.stdout), json.loads(pair.stdout), json.loads(report.stdout)
    assert js["kind"] == rs["kind"] == ps["kind"] == "joined"
    assert js["stages"] == ps["stages"]
    assert "target_driver" in js["stages"]
    assert js["rows"] == ps["rows"]
