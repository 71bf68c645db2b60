# SPDX-License-Identifier: GPL-2.0
"""Damaged pages (ntprof-ntp(5), Untrusted recordings): in every table and
index of every kind of recording, a page's header, its count of cells, or
the record of one of its rows damaged, and every reading command run on
it.  Each ends with exit status 9 and one line naming the damaged file,
never with a normal output of fewer commands: a lost cell count reads as a
shorter table, which only the structure check at opening can tell."""

import shutil
import sqlite3

import pytest

import ntpgen
from conftest import Exit
from test_read_only import argv, case_id, commands

PAGE_TABLE_INTERIOR, PAGE_TABLE_LEAF = 5, 13
PAGE_INDEX_INTERIOR, PAGE_INDEX_LEAF = 2, 10

KINDS = {
    "host": ["host.ntp"],
    "target": ["pt.ntp"],
    "both": ["both.ntp"],
    "joined": ["joined.ntp"],
    "pair": ["ph.ntp", "pt.ntp"],
}


def pages_of(path):
    """{b-tree name: [(page number, page type), ...]} and the page size"""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    size = db.execute("PRAGMA page_size").fetchone()[0]
    trees = {}
    for name, page in db.execute("SELECT name, pageno FROM dbstat ORDER BY name, pageno"):
        trees.setdefault(name, []).append(page)
    db.close()
    return size, trees


def page_header(data, page):
    """offset of the b-tree header in a page's bytes, its type and cell count"""
    h = 100 if page == 1 else 0
    return h, data[h], int.from_bytes(data[h + 3:h + 5], "big")


def read_page(path, size, page):
    with open(path, "rb") as f:
        f.seek((page - 1) * size)
        return f.read(size)


def write_at(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def varint_len(b, i):
    for k in range(9):
        if b[i + k] < 0x80:
            return k + 1
    return 9


def damages(path):
    """[(b-tree, what, function(copy) damaging the copy)] for every table and
    index of path: its first page's header zeroed (an invalid page type);
    one cell fewer in its root when that has children (a subtree lost) and
    in a page in the middle (a row lost); the record header of a row of a
    leaf overwritten"""
    size, trees = pages_of(path)
    out = []
    for name, pages in trees.items():
        first = pages[0]
        h, _, _ = page_header(read_page(path, size, first), first)
        out.append((name, "header", lambda p, o=(first - 1) * size + h: write_at(p, o, bytes(8))))
        full = [pg for pg in pages if page_header(read_page(path, size, pg), pg)[2] > 0]
        if len(pages) > 1 and first in full:
            # an interior root one cell fewer: a whole subtree of rows gone
            h, _, n = page_header(read_page(path, size, first), first)
            out.append((name, "root cells", lambda p, o=(first - 1) * size + h + 3, n=n:
                        write_at(p, o, (n - 1).to_bytes(2, "big"))))
        if full:
            pg = full[len(full) // 2]
            h, _, n = page_header(read_page(path, size, pg), pg)
            out.append((name, "cells", lambda p, o=(pg - 1) * size + h + 3, n=n:
                        write_at(p, o, (n - 1).to_bytes(2, "big"))))
        leaves = [pg for pg in full
                  if page_header(read_page(path, size, pg), pg)[1] in (PAGE_TABLE_LEAF, PAGE_INDEX_LEAF)]
        if leaves:
            pg = leaves[len(leaves) // 2]
            data = read_page(path, size, pg)
            h, kind, n = page_header(data, pg)
            i = h + 8 + 2 * (n // 2)
            cell = int.from_bytes(data[i:i + 2], "big")
            rec = cell + varint_len(data, cell)
            if kind == PAGE_TABLE_LEAF:
                rec += varint_len(data, rec)
            out.append((name, "record", lambda p, o=(pg - 1) * size + rec: write_at(p, o, b"\xff" * 8)))
    return out


@pytest.fixture(scope="module")
def good(tmp_path_factory, ntprof):
    import subprocess
    d = tmp_path_factory.mktemp("good")
    ntpgen.generate(d / "host.ntp", seed=7)
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp", seed=8, lose_host=0, lose_target=0)
    ntpgen.generate_both(d / "both.ntp", lose_host=0, lose_target=0)
    subprocess.run([ntprof, "join", "-o", d / "joined.ntp", d / "ph.ntp", d / "pt.ntp"],
                   check=True, capture_output=True)
    return d


# the pages are found in the files, which exist once the fixture has run: a
# test per kind, file damaged and kind of damage, over every b-tree of the file
WHAT = ("header", "root cells", "cells", "record")
CASES = [(kind, i, what) for kind, files in KINDS.items() for i in range(len(files)) for what in WHAT]


@pytest.mark.parametrize("kind,which,what", CASES,
                         ids=[f"{k}:{KINDS[k][i]}:{w}" for k, i, w in CASES])
def test_damage_exit_9_naming_the_file(run, good, tmp_path, kind, which, what):
    files = KINDS[kind]
    bad_name = files[which]
    cases = [c for c in damages(good / bad_name) if c[1] == what]
    # every b-tree has a header; host_io, meta, hooks, intervals have rows in every kind
    assert len(cases) >= (10 if what == "header" else 1 if what == "root cells" else 4), \
        [c[0] for c in cases]
    # the other file of a pair stays whole; compare's other run is a whole copy
    d = tmp_path / "rec"
    d.mkdir()
    for f in files:
        shutil.copy(good / f, d / f)
    failures = []
    for tree, _, damage in cases:
        bad = d / bad_name
        shutil.copy(good / bad_name, bad)
        damage(bad)
        for cmd in commands(kind, files, "OUT"):
            args = argv(cmd, d, tmp_path)
            if cmd[0] == "compare":
                args = [args[0], args[1], ",".join(str(good / f) for f in files)]
            r = run(*args)
            lines = r.stderr.splitlines()
            ok = (r.returncode == Exit.CORRUPT and len(lines) == 1 and
                  lines[0].startswith(f"ntprof {cmd[0]}: error: {bad}: corrupt: "))
            if not ok:
                failures.append(f"{tree} {what}: {case_id((kind, cmd))}: exit {r.returncode}: "
                                f"{r.stderr.strip()[:200]}")
    assert not failures, f"{len(failures)} runs not exit 9 naming {bad_name}:\n" + "\n".join(failures)
