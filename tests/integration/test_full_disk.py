# SPDX-License-Identifier: GPL-2.0
"""Output that cannot be written: standard output on /dev/full and files
on a file system that is full.  Every command and output form says so in
exactly one line, with the errno of the write that failed ("No space left
on device", not a stdio "Input/output error"), exits 1, and leaves no
partial file."""

import subprocess
from pathlib import Path

import pytest

from conftest import Exit

ENOSPC = "No space left on device"


def runs_to_stdout(d):
    h, ph, pt, both = (str(d / n) for n in ("host.ntp", "ph.ntp", "pt.ntp", "both.ntp"))
    return [
        ("report", h), ("report", "-t", ",", h), ("report", "-j", "-", h),
        ("report", "-j", "-", "--pretty", h), ("report", "--html", "-", h),
        ("report", ph, pt), ("report", "-j", "-", both),
        ("compare", h, h), ("compare", "-j", "-", h, h), ("compare", "--html", "-", h, h),
        ("series", h), ("series", "-j", "-", h), ("series", "--csv", "-", h),
        ("series", "--html", "-", h),
        ("dump", h), ("dump", ph, pt), ("export", "-o", "-", h),
        ("finish", h), ("version",), ("version", "--json"), ("help", "report"),
    ]


STDOUT_IDS = [" ".join(a if not a.endswith(".ntp") else Path(a).name for a in c)
              for c in runs_to_stdout(Path("."))]


def one_line(r, cmd, says):
    assert r.returncode == Exit.FAILURE, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"ntprof {cmd}: error: ") and says in lines[0], r.stderr
    assert ENOSPC in lines[0], r.stderr


@pytest.mark.parametrize("i", range(len(STDOUT_IDS)), ids=STDOUT_IDS)
def test_stdout_full_one_line_with_its_errno(ntprof, every_kind, i):
    args = runs_to_stdout(every_kind)[i]
    with open("/dev/full", "w") as full:
        r = subprocess.run([str(ntprof), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    cmd = "report" if args[0] == "help" else args[0]
    one_line(r, cmd, "standard output")


@pytest.fixture
def full_dir(tmp_path):
    """a tmpfs of 64 KiB filled to its last byte"""
    d = tmp_path / "full"
    d.mkdir()
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d], capture_output=True,
                       text=True)
    if m.returncode:
        pytest.skip(f"no tmpfs mount here: {m.stderr.strip()}")
    try:
        with open(d / "fill", "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
        yield d
    finally:
        subprocess.run(["umount", d], check=True)


def runs_to_files(d, out):
    h, ph, pt = (str(d / n) for n in ("host.ntp", "ph.ntp", "pt.ntp"))
    return [
        (("report", "-j", f"{out}/r.json", h), "the JSON report"),
        (("report", "--html", f"{out}/r.html", h), "the HTML report"),
        (("compare", "-j", f"{out}/c.json", h, h), "the JSON comparison"),
        (("compare", "--html", f"{out}/c.html", h, h), "the HTML comparison"),
        (("series", "-j", f"{out}/s.json", h), "the JSON series"),
        (("series", "--csv", f"{out}/s.csv", h), "the CSV series"),
        (("series", "--html", f"{out}/s.html", h), "the HTML series"),
        (("dump", "-o", f"{out}/d.csv", h), "the CSV file"),
        (("export", "-o", f"{out}/t.pftrace", h), "the trace"),
        (("join", "-o", f"{out}/j.ntp", ph, pt), "creating the joined recording"),
    ]


FILE_IDS = [" ".join(a for a in c[:2]) for c, _ in runs_to_files(Path("."), Path("."))]


@pytest.mark.root
@pytest.mark.parametrize("i", range(len(FILE_IDS)), ids=FILE_IDS)
def test_file_on_a_full_disk_one_line_with_its_errno(run, every_kind, full_dir, i):
    args, what = runs_to_files(every_kind, full_dir)[i]
    r = run(*args)
    one_line(r, args[0], what)
    # nothing half written is left, no temporary file either
    assert [p.name for p in full_dir.iterdir()] == ["fill"]
