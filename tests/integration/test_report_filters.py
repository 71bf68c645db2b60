# SPDX-License-Identifier: GPL-2.0
"""The report header names the filters a recording was made with (record's
--session, --io-type, --size, kept in meta filter_session, filter_io_type,
filter_sizes), in the text and in the JSON, so that a reader knows the
recording holds only part of the I/O; "none" / null without them.  For a
host recording, joined recordings and a target recording alone."""

import json
import re

import pytest

import ntpgen
from conftest import run_ok

SUFFIX = " (only the commands that pass them were recorded)"
ALL = {"filter_session": "nvme0n1", "filter_io_type": "read", "filter_sizes": "4096,131072"}


def filter_lines(text):
    return re.findall(r"^#\s+filters:\s+(.*)$", text, re.M)


@pytest.mark.parametrize("meta, text, doc", [
    ({}, "none", None),
    (ALL, "--session nvme0n1 --io-type read --size 4096,131072" + SUFFIX,
     {"session": "nvme0n1", "io_type": "read", "sizes": [4096, 131072]}),
    ({"filter_session": "nvme1n2"}, "--session nvme1n2" + SUFFIX,
     {"session": "nvme1n2", "io_type": None, "sizes": None}),
    ({"filter_io_type": "write"}, "--io-type write" + SUFFIX,
     {"session": None, "io_type": "write", "sizes": None}),
    ({"filter_sizes": "131072"}, "--size 131072" + SUFFIX,
     {"session": None, "io_type": None, "sizes": [131072]}),
])
def test_host_recording_header_names_its_filters(run, tmp_path, meta, text, doc):
    rec = ntpgen.generate(tmp_path / "h.ntp", meta=meta)
    out = run_ok(run, "report", rec.path).stdout
    assert filter_lines(out) == [text]
    # in the header, before the tables
    assert out.index("# filters:") < out.index("# end-to-end latency per group")
    got = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)
    f, = got["files"]
    assert f["filters"] == doc


def test_sizes_not_of_records_form_stay_as_written(run, tmp_path):
    rec = ntpgen.generate(tmp_path / "h.ntp", meta={"filter_sizes": "4k,x"})
    assert filter_lines(run_ok(run, "report", rec.path).stdout) == ["--size 4k,x" + SUFFIX]
    f, = json.loads(run_ok(run, "report", "-j", "-", rec.path).stdout)["files"]
    assert f["filters"] == {"session": None, "io_type": None, "sizes": "4k,x"}


def test_joined_recordings_each_file_its_filters(run, tmp_path):
    """The host was filtered to one namespace and reads, the target not."""
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=2,
                         host_meta=[{"filter_session": "nvme0n1", "filter_io_type": "read"}])
    out = run_ok(run, "report", tmp_path / "h.ntp", tmp_path / "t.ntp").stdout
    assert filter_lines(out) == ["--session nvme0n1 --io-type read" + SUFFIX, "none"]
    doc = json.loads(run_ok(run, "report", "-j", "-", tmp_path / "h.ntp", tmp_path / "t.ntp").stdout)
    assert [f["filters"] for f in doc["files"]] == [
        {"session": "nvme0n1", "io_type": "read", "sizes": None}, None]


def test_target_alone_shows_its_filters(run, tmp_path):
    ntpgen.generate_pair(tmp_path / "h.ntp", tmp_path / "t.ntp", seed=4,
                         target_meta=[{"filter_io_type": "write", "filter_sizes": "131072"}])
    out = run_ok(run, "report", tmp_path / "t.ntp").stdout
    assert filter_lines(out) == ["--io-type write --size 131072" + SUFFIX]
    f, = json.loads(run_ok(run, "report", "-j", "-", tmp_path / "t.ntp").stdout)["files"]
    assert f["filters"] == {"session": None, "io_type": "write", "sizes": [131072]}


def test_detail_and_both_files_show_filters(run, tmp_path):
    ntpgen.generate_both(tmp_path / "b.ntp", seed=3,
                         host_meta=[{"filter_sizes": "4096"}])
    out = run_ok(run, "report", tmp_path / "b.ntp").stdout
    assert filter_lines(out) == ["--size 4096" + SUFFIX]
    rec = ntpgen.generate(tmp_path / "h.ntp", meta={"filter_io_type": "write"})
    out = run_ok(run, "report", "--stages=detail", rec.path).stdout
    assert filter_lines(out) == ["--io-type write" + SUFFIX]
