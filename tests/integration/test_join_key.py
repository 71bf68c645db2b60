# SPDX-License-Identifier: GPL-2.0
"""host_io.join_key and target_io.join_key (ntprof-ntp(5)): the join's key,
hashed, that record stores with every row so that a join reads one column
instead of seven.  ntpgen.py's hash is lib/ntp/db_key.c's (the same values as
tests/unit/test_db.c); a join gives the same report whether the files have
the column, one of them has it, or some of their rows have it NULL (the
join computes those); and a stored key is what the join goes by."""

import json
import shutil
import sqlite3

import pytest

import ntpgen
from conftest import Exit


# the values tests/unit/test_db.c checks lib/ntp/db_key.c against
VECTORS = (
    ((0, 0, 0, 0, 0, 0, 0), 0xc68e6b69c081ca97),
    ((1, 2, 8, 1, 1, 1, 2), 0x3e91a28ff7b43a21),
    ((65535, -1, 65536, 128, 4294967295, 65535, 255), 0x64cbd5fc0cb813c6),
    ((42, 1 << 40, 256, 3, 2, 7, 1), 0xdaaab785481d930a),
)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("key")
    js = ntpgen.generate_pair(d / "h.ntp", d / "t.ntp", seed=31)
    return js.host_paths[0], js.target_paths[0]


def copy(src, dst, drop=False):
    shutil.copy(src, dst)
    if drop:
        ntpgen.drop_join_key(dst)
    return dst


def edit(path, sql):
    db = sqlite3.connect(path)
    n = db.execute(sql).rowcount
    db.commit()
    db.close()
    return n


def report(run, *paths, args=()):
    r = run("report", "-j", "-", *args, *map(str, paths))
    assert r.returncode == Exit.OK, r.stderr
    doc = json.loads(r.stdout)
    for f in doc["files"]:
        f.pop("path")
    doc.pop("ntprof_version")
    for p in doc["clock_pairs"]:
        p.pop("host_file"), p.pop("target_file")
    return doc


def dump(run, *paths):
    r = run("dump", *map(str, paths))
    assert r.returncode == Exit.OK, r.stderr
    return r.stdout


@pytest.mark.parametrize("key, want", VECTORS)
def test_hash__known_values(key, want):
    assert ntpgen.join_key(*key) & ((1 << 64) - 1) == want


def test_rows__each_has_its_keys_hash(pair):
    for path, table in ((pair[0], "host_io"), (pair[1], "target_io")):
        db = sqlite3.connect(path)
        db.create_function("jk", 7, ntpgen.join_key)
        n, bad = db.execute(f"SELECT count(*), sum(join_key IS NOT jk(cid, slba, nlb, qid, nsid,"
                            f" cntlid, opcode)) FROM {table}").fetchone()
        db.close()
        assert n > 0 and bad == 0


@pytest.mark.parametrize("drop", ("both", "host", "target"))
def test_without_the_column__the_same_join(run, pair, tmp_path, drop):
    """recordings made before the column: the join computes every key"""
    h = copy(pair[0], tmp_path / "h.ntp", drop in ("both", "host"))
    t = copy(pair[1], tmp_path / "t.ntp", drop in ("both", "target"))
    for args in ((), ("--stages=detail",)):
        assert report(run, h, t, args=args) == report(run, *pair, args=args)
    assert dump(run, h, t) == dump(run, *pair)


def test_null_keys__computed_from_the_row(run, pair, tmp_path):
    """a row whose join_key is NULL (a tool that wrote rows without it) is
    paired by the key its columns make, as if the file had the column"""
    h, t = copy(pair[0], tmp_path / "h.ntp"), copy(pair[1], tmp_path / "t.ntp")
    assert edit(h, "UPDATE host_io SET join_key = NULL WHERE id % 3 = 0") > 0
    assert edit(t, "UPDATE target_io SET join_key = NULL WHERE id % 4 = 1") > 0
    want = report(run, *pair)
    assert report(run, h, t) == want
    assert want["join"]["matched"] > 0


def test_stored_key__what_the_join_goes_by(run, pair, tmp_path):
    """the join reads the stored key, not the seven columns: host rows whose
    key was changed by hand no longer find their target record"""
    h = copy(pair[0], tmp_path / "h.ntp")
    want = report(run, *pair)["join"]
    changed = edit(h, "UPDATE host_io SET join_key = ~join_key WHERE id % 10 = 0")
    assert changed > 0
    got = report(run, h, pair[1])["join"]
    assert got["matched"] < want["matched"]
    assert want["matched"] - got["matched"] <= changed
    assert got["matched"] + got["unmatched_host"] + got["rejected"] == got["host_commands"]


def test_joined_recording_of_files_without_the_column__has_the_keys(run, pair, tmp_path):
    """ntprof join of recordings made before join_key writes every row's key,
    as record would have: reading the joined recording computes none"""
    h = copy(pair[0], tmp_path / "h.ntp", drop=True)
    t = copy(pair[1], tmp_path / "t.ntp", drop=True)
    out = tmp_path / "j.ntp"
    r = run("join", "-q", "-o", out, h, t)
    assert r.returncode == Exit.OK, r.stderr
    db = sqlite3.connect(out)
    db.create_function("jk", 7, ntpgen.join_key)
    for table in ("host_io", "target_io"):
        n, bad = db.execute(f"SELECT count(*), sum(join_key IS NOT jk(cid, slba, nlb, qid, nsid,"
                            f" cntlid, opcode)) FROM {table}").fetchone()
        assert n > 0 and bad == 0, table
    db.close()
    assert report(run, out)["groups"] == report(run, *pair)["groups"]


def test_keys_alike_in_their_top_half__the_same_join(run, pair, tmp_path):
    """the join sorts the keys by their top 32 bits and then puts each run of
    keys alike there in full order by itself (lib/join/join_load.c): with
    every key given the same top half and its low half scrambled, so that
    one run holds them all out of order, the pairs are the ones the keys
    made before"""
    h, t = copy(pair[0], tmp_path / "h.ntp"), copy(pair[1], tmp_path / "t.ntp")
    keys = set()
    for path, table in ((h, "host_io"), (t, "target_io")):
        db = sqlite3.connect(path)
        keys.update(k for (k,) in db.execute(f"SELECT DISTINCT join_key FROM {table}"))
        db.close()
    # a bijection onto (0x5eed << 32) | low, the lows in no order of the old keys
    new = {k: (0x5eed << 32) | ((i * 2654435761) & 0xffffffff)
           for i, k in enumerate(sorted(keys), 1)}
    assert len(set(new.values())) == len(keys) > 50
    for path, table in ((h, "host_io"), (t, "target_io")):
        db = sqlite3.connect(path)
        db.create_function("renamed", 1, new.__getitem__, deterministic=True)
        assert db.execute(f"UPDATE {table} SET join_key = renamed(join_key)").rowcount > 0
        db.commit()
        db.close()
    want = report(run, *pair)
    assert want["join"]["matched"] > 0
    assert report(run, h, t) == want
    assert dump(run, h, t) == dump(run, *pair)
