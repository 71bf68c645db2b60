# SPDX-License-Identifier: GPL-2.0
"""The meta keys are defined once, in the table of lib/ntp/db_meta.c: its
man page, ntprof-ntp(5) META KEYS, lists exactly the keys record writes,
with the same types, and the keys that joined recordings must agree on are
the ones the join checks.  (No build needed: the sources are read.)"""

import re

from conftest import REPO

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


def test_join_checks__the_keys_the_table_says_must_agree():
    # until lib/join/join_api.c loops over the table itself
    src = (REPO / "lib" / "join" / "join_api.c").read_text()
    body = re.search(r"\} agree\[\] = \{(.*?)\n\};", src, re.S).group(1)
    join = set(re.findall(r'\{ "(\w+)", "([^"]*)", "([^"]*)" \}', body))
    want = {(k, agree, hint) for k, (_, _, agree, hint) in table().items() if agree}
    assert join == want
