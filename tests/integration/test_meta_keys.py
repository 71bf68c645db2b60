# SPDX-License-Identifier: GPL-2.0
"""The meta keys are defined once, in the table of lib/ntp/db_meta.c: its
man page, ntprof-ntp(5) META KEYS, lists exactly the keys record writes,
with the same types; and the join refuses recordings that differ in each
key the table says joined recordings must agree on.""" 

import re

import pytest

import ntpgen
from conftest import REPO, Exit

ROW = re.compile(r'\[NTP_META_\w+\] = \{ "(\w+)", NTP_META_(TEXT|INT), NTP_META_(\w+)'
                 r'(?:,\s*"([^"]*)",\s*"([^"]*)")?')


def table():
    """{key: (type, when, agree, hint)} from lib/ntp/db_meta.c."""
    src = (REPO / "lib" / "ntp" / "db_meta.c").read_text()
    rows = {m[0]: m[1:] for m in ROW.findall(src)}
    assert rows, "no rows found in lib/ntp/db_meta.c"
    return rows


def documented():
    """{key: is_integer} from the META KEYS section of ntprof-ntp(5)."""
    text = (REPO / "Documentation" / "ntprof-ntp.rst").read_text()
    section = text.split("\nMETA KEYS\n=========\n", 1)[1].split("\n=========", 1)[0]
    keys = {}
    for term, body in re.findall(r"^(``.+)\n((?:    .*\n?)+)", section, re.M):
        for key in re.findall(r"``(\w+)``", term):
            keys[key] = "*integer*" in body
    return keys


def test_man_page__lists_the_keys_record_writes_with_their_types():
    written = {k: t == "INT" for k, (t, when, *_) in table().items() if when != "NEVER"}
    assert documented() == written


# a value that differs from the generator's for each key joined recordings must agree on
OTHER = {"sample_one_in": 100, "hash_version": 2, "transport": "rdma"}
# the code each refusal exits with: the hash version has its own (ntprof(1))
REFUSAL = {"hash_version": Exit.HASH}


@pytest.mark.parametrize("key", sorted(OTHER))
def test_join_refuses__each_key_the_table_says_must_agree(run, tmp_path, key):
    agree = {k: (a, h) for k, (_, _, a, h) in table().items() if a}
    assert set(agree) == set(OTHER), "a key to agree on without a test value here"
    what, hint = agree[key]
    js = ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=4,
                              target_meta=[{key: OTHER[key]}])
    h, t = js.host_paths[0], js.target_paths[0]
    r = run("report", str(h), str(t))
    assert r.returncode == REFUSAL.get(key, Exit.MISMATCH) and r.stdout == ""
    assert f": {what} " in r.stderr and f"({hint})" in r.stderr
    assert len(r.stderr.splitlines()) == 1
