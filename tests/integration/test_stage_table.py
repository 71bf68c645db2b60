# SPDX-License-Identifier: GPL-2.0
"""The stages are defined once, in the table of lib/core/stage_table.c.

Every copy that must exist elsewhere is held to it here, row by row: the
schema's views (each stage a view has is its column KEY_ns, equal to the
table's formula on every row), and every output: the JSON's and compare's
stage keys, the separated fields', dump's and series' CSV columns, the
text report's rows and the trace's slices, which are labels.
"""

import csv
import io
import json
import re
import sqlite3

import pytest

import ntpgen
import pftrace
from conftest import REPO, Exit

ROW = re.compile(r'\[NTP_STAGE_(\w+)\] = \{ "(\w+)", "([^"]+)", "([^"]*)", ([HTJA]),\s*'
                 r'(?:"(\w+)"|NULL),\s*((?:"[^"]*"\s*)+)\}', re.S)


def table():
    """[(enum, key, label, label_alone, side, view, formula)] from lib/core/stage_table.c"""
    src = (REPO / "lib" / "core" / "stage_table.c").read_text()
    rows = []
    for m in ROW.finditer(src):
        formula = "".join(re.findall(r'"([^"]*)"', m[7]))
        rows.append((m[1], m[2], m[3], m[4], m[5], m[6], formula))
    assert len(rows) == src.count("[NTP_STAGE_"), "a row of the table was not read"
    return rows


KEYS = {r[1] for r in table()}
LABELS = {r[2] for r in table()} | {r[3] for r in table() if r[3]}


@pytest.fixture(scope="module")
def files(tmp_path_factory, ntprof):
    import subprocess
    d = tmp_path_factory.mktemp("stages")
    ntpgen.generate(d / "app.ntp", seed=3, app=ntpgen.App())
    ntpgen.generate_pair(d / "h.ntp", d / "t.ntp", seed=5)
    ntpgen.generate_pair(d / "rh.ntp", d / "rt.ntp", seed=6, transport="rdma")
    ntpgen.generate_both(d / "both.ntp", seed=7)
    subprocess.run([ntprof, "join", "-q", "-o", str(d / "joined.ntp"), str(d / "h.ntp"),
                    str(d / "t.ntp")], check=True)
    return d


def test_table_keys_and_labels_are_unique():
    rows = table()
    assert len({r[1] for r in rows}) == len(rows)
    assert len({r[2] for r in rows}) == len(rows)
    # a key is a word, as an SQL column and a JSON key need
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", r[1]) for r in rows)


def columns(db, view):
    return {r[1] for r in db.execute(f"PRAGMA table_info({view})")}


@pytest.mark.parametrize("row", [r for r in table() if r[5]], ids=lambda r: r[1])
def test_each_view_column_equals_the_tables_formula(files, row):
    _, key, _, _, side, view, formula = row
    path = files / ("joined.ntp" if view == "joined_stages" else
                    "app.ntp" if view == "host_app_stages" else
                    "t.ntp" if view == "target_stages" else "h.ntp")
    db = sqlite3.connect(path)
    assert f"{key}_ns" in columns(db, view), f"{view} has no column {key}_ns"
    if view == "joined_stages":
        # a formula of other stages: each of the side whose view has it
        expr = re.sub(r"\b(\w+)\b", lambda m: (
            f"h.{m[1]}_ns" if m[1] in columns(db, "host_stages") - {"id"} or
            f"{m[1]}_ns" in columns(db, "host_stages") else f"t.{m[1]}_ns"), formula)
        sql = (f"SELECT count(*), sum(j.{key}_ns IS NOT ({expr})) FROM joined_stages j"
               " JOIN host_stages h ON h.id = j.host_id JOIN target_stages t ON t.id = j.target_id")
    else:
        sql = f"SELECT count(*), sum({key}_ns IS NOT ({formula})) FROM {view}"
    n, differ = db.execute(sql).fetchone()
    assert n > 100 and differ == 0, (sql, n, differ)


def stage_names_in_json(doc):
    """every "stage" value anywhere in a JSON document"""
    out = set()
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "stage" and isinstance(v, str):
                out.add(v)
            out |= stage_names_in_json(v)
    elif isinstance(doc, list):
        for v in doc:
            out |= stage_names_in_json(v)
    return out


@pytest.mark.parametrize("which", ["app", "pair", "rdma", "target", "both", "joined"])
def test_every_output_names_stages_by_the_table(run, files, tmp_path, which):
    f = {"app": ["app.ntp"], "pair": ["h.ntp", "t.ntp"], "rdma": ["rh.ntp", "rt.ntp"],
         "target": ["t.ntp"], "both": ["both.ntp"], "joined": ["joined.ntp"]}[which]
    paths = [str(files / p) for p in f]
    for stages in ("summary", "detail"):
        # JSON: keys
        r = run("report", "-S", stages, "-j", "-", *paths)
        assert r.returncode == Exit.OK, r.stderr
        doc = json.loads(r.stdout)
        names = stage_names_in_json(doc)
        assert names and names <= KEYS, names - KEYS
        # separated fields: keys
        r = run("report", "-S", stages, "-t", ",", *paths)
        stage_col = {row["stage"] for row in csv.DictReader(io.StringIO(r.stdout))}
        assert stage_col - {""} <= KEYS | {"unattributed"}, stage_col - KEYS
        # text: labels, in the stage tables' first column
        r = run("report", "-S", stages, *paths)
        labels = {line.split()[0] for line in r.stdout.splitlines()
                  if line and not line.startswith("#")
                  and not line.split()[0].isdigit()
                  and line.split()[0] not in ("stage", "file", "read", "write", "other")}
        labels -= {"unattributed"}
        assert labels <= LABELS | {"app"}, labels - LABELS
    # series: JSON keys, CSV columns KEY_mean_ns
    r = run("series", "-j", "-", *paths)
    assert set(json.loads(r.stdout)["stages"]) <= KEYS
    r = run("series", "--csv", "-", *paths)
    header = r.stdout.splitlines()[0].split(",")
    assert {c[:-len("_mean_ns")] for c in header if c.endswith("_mean_ns")} <= KEYS | {"e2e"}
    if which in ("target",):
        return
    # dump: every *_ns column of a stage is a key
    r = run("dump", *paths)
    header = r.stdout.splitlines()[0].split(",")
    stage_cols = {c[:-3] for c in header if c.endswith("_ns")} & (KEYS | {"network_star"})
    assert stage_cols, header
    # compare: keys
    r = run("compare", "-j", "-", ",".join(paths), ",".join(paths))
    assert stage_names_in_json(json.loads(r.stdout)) <= KEYS


def test_trace_slices_are_labels(run, files, tmp_path):
    pb2 = pftrace.compile_proto(tmp_path)
    for f in (["app.ntp"], ["h.ntp", "t.ntp"], ["rh.ntp", "rt.ntp"]):
        out = tmp_path / "x.pftrace"
        r = run("export", "-o", out, *[files / p for p in f])
        assert r.returncode == Exit.OK, r.stderr
        trace = pftrace.Trace(pb2, out)
        names = {c.name for s in trace.slices for c in s.children}
        assert names and names <= LABELS, names - LABELS
