# SPDX-License-Identifier: GPL-2.0
"""schema/report.schema.json and schema/compare.schema.json: every kind of
document validates (conftest.py's run() checks every -j output of every
test; these make sure each kind is produced at least once), the error
document too, and the schemas are strict: a member missing, added, renamed
or of the wrong type is caught."""

import copy
import json

import pytest

import json_schema
import ntpgen
from conftest import Exit


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    d = tmp_path_factory.mktemp("schema")
    ntpgen.generate(d / "host.ntp", lost_ringbuf=2)
    ntpgen.generate(d / "rdma.ntp", transport="rdma")
    ntpgen.generate_pair(d / "ph.ntp", d / "pt.ntp")
    ntpgen.generate_both(d / "both.ntp")
    ntpgen.generate(d / "empty.ntp", groups=())
    return d


def doc_of(run, *args):
    r = run(*args)
    assert r.returncode == Exit.OK, r.stderr
    return json.loads(r.stdout)


REPORTS = {
    "host": ["host.ntp"],
    "host detail": ["-S", "detail", "host.ntp"],
    "rdma": ["rdma.ntp"],
    "target": ["pt.ntp"],
    "target detail": ["--stages=detail", "pt.ntp"],
    "pair": ["ph.ntp", "pt.ntp"],
    "pair detail": ["-S", "detail", "ph.ntp", "pt.ntp"],
    "both": ["both.ntp"],
    "no commands": ["empty.ntp"],
    "percent limit": ["--percent-limit", "20", "host.ntp"],
}


@pytest.mark.parametrize("name", REPORTS)
def test_every_kind_of_report_validates(run, recs, name):
    before = json_schema.validated["report"]
    doc = doc_of(run, "report", "-j", "-", *[recs / a if a.endswith(".ntp") else a
                                             for a in REPORTS[name]])
    assert json_schema.validated["report"] == before + 1
    assert doc["format_version"] == 2


COMPARES = {
    "host": ["host.ntp", "host.ntp"],
    "every statistic": ["--stat", "mean,p50,p90,p99,p99.9", "--formula", "host.ntp",
                        "host.ntp"],
    "threshold": ["--threshold", "5", "host.ntp", "empty.ntp"],
    "target": ["pt.ntp", "pt.ntp"],
    "joined": ["ph.ntp,pt.ntp", "both.ntp"],
    "joined detail": ["-S", "detail", "ph.ntp,pt.ntp", "both.ntp"],
}


@pytest.mark.parametrize("name", COMPARES)
def test_every_kind_of_comparison_validates(run, recs, name):
    before = json_schema.validated["compare"]
    doc = doc_of(run, "compare", "-j", "-", *[",".join(str(recs / p) for p in a.split(","))
                                              if a.endswith(".ntp") else a
                                              for a in COMPARES[name]])
    assert json_schema.validated["compare"] == before + 1
    assert doc["command"] == "compare"


def test_error_documents_validate(run, recs, tmp_path):
    before = dict(json_schema.validated)
    r = run("report", "-j", "-", tmp_path / "missing.ntp")
    assert r.returncode == Exit.NOFILE and json.loads(r.stdout)["error"]["code"] == Exit.NOFILE
    r = run("compare", "-j", "-", recs / "host.ntp", recs / "pt.ntp")
    assert r.returncode == Exit.MISMATCH
    assert json.loads(r.stdout)["error"]["code"] == Exit.MISMATCH
    assert json_schema.validated == {"report": before["report"] + 1,
                                     "compare": before["compare"] + 1}


def test_the_file_of_j_is_validated_too(run, recs, tmp_path):
    before = json_schema.validated["report"]
    r = run("report", "-j", tmp_path / "r.json", recs / "host.ntp")
    assert r.returncode == Exit.OK
    assert json_schema.validated["report"] == before + 1


def breaks(cmd, doc):
    with pytest.raises(AssertionError, match="breaks schema"):
        json_schema.validate(cmd, doc)


def test_report_schema_is_strict(run, recs):
    good = doc_of(run, "report", "-j", "-", recs / "ph.ntp", recs / "pt.ntp")
    for mutate in (
        lambda d: d.pop("hidden_groups"),                          # a member missing
        lambda d: d.__setitem__("extra", 1),                       # one not documented
        lambda d: d.__setitem__("format_version", 3),              # another shape
        lambda d: d["groups"][0].pop("sum_check"),
        lambda d: d["groups"][0]["e2e"].__setitem__("p99_ns", 1.5),   # ns are integers
        lambda d: d["groups"][0]["stages"][0].__setitem__("stage", "network*"),
        lambda d: d["files"][0]["commands"].pop("lost_map"),
        lambda d: d.__setitem__("kind", "host"),                   # a host has no join
        lambda d: d["clock_pairs"][0].__setitem__("clock", "guessed"),
    ):
        doc = copy.deepcopy(good)
        mutate(doc)
        breaks("report", doc)
    target = doc_of(run, "report", "-j", "-", recs / "pt.ntp")
    target["groups"][0]["namespace"] = "nvme0n1"                   # a target has devices
    breaks("report", target)


def test_compare_schema_is_strict(run, recs):
    good = doc_of(run, "compare", "-j", "-", recs / "host.ntp", recs / "host.ntp")
    for mutate in (
        lambda d: d.pop("threshold"),
        lambda d: d["groups"][0]["stages"][0]["mean"].pop("delta_ns"),
        lambda d: d["groups"][0]["stages"][0].__setitem__("p95", {}),
        lambda d: d["groups"][0].__setitem__("present", "maybe"),
        lambda d: d.__setitem__("statistics", []),
    ):
        doc = copy.deepcopy(good)
        mutate(doc)
        breaks("compare", doc)


def test_error_document_schema_is_strict():
    json_schema.validate("report", {"error": {"code": 5, "message": "x: missing"}})
    for bad in ({"error": {"code": 5}}, {"error": {"code": 0, "message": "m"}},
                {"error": {"code": 5, "message": "m", "path": "x"}}, {"error": "m"}):
        breaks("report", bad)
        breaks("compare", bad)


def test_compare_by_is_report_by():
    """compare's "by" holds each run's report --by object: its schema's copies of
    report's definitions stay equal to them."""
    report = json.loads(json_schema.SCHEMAS["report"].read_text())["$defs"]
    compare = json.loads(json_schema.SCHEMAS["compare"].read_text())["$defs"]
    for name in ("by", "by_row"):
        assert compare[name] == report[name], name
