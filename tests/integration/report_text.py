# SPDX-License-Identifier: GPL-2.0
"""Reading `ntprof report`'s text back, for the tests that compare it with
what they compute from the rows: one parser for every report (one recording,
joined files, a target alone), so a format change is met in one place."""
import re

STAGE_TITLE = re.compile(r"# stages of (\S+) (\S+) (\S+)(?: of file (\d+))? \(n=(\d+)\)")
HEADER_LINE = re.compile(r"#\s+([a-z ]+):\s+(.*)$")


def us(ns, decimals=2):
    """A latency in ns as every output prints it in us (lib/fmt/number.h):
    rounded half away from zero on its exact decimal digits, "-" for none."""
    if ns is None:
        return "-"
    unit = 10 ** (3 - decimals)
    q = (abs(int(ns)) + unit // 2) // unit
    sign = "-" if ns < 0 and q else ""
    if not decimals:
        return f"{sign}{q}"
    return f"{sign}{q // 10 ** decimals}.{q % 10 ** decimals:0{decimals}d}"


def size_str(n):
    """A byte count as report prints a group's size: 4KiB, 1MiB, 512B."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10}KiB"
    return f"{n}B"


GROUP_KEYS = ("file", "io_type", "size", "namespace", "device")


def parse_tables(text, by_file=False):
    """{'groups': [row dicts], 'stages': {key: {stage: row}}, 'checks': {key: text},
    'header': {name: [values]}}, key = (io_type, size, name), with the file's
    number first when by_file (joined reports number their files).  A table
    folded to a terminal's width (blocks that repeat its key columns) is
    read back whole: each row's blocks make one row."""
    out = {"groups": [], "stages": {}, "checks": {}, "header": {}}
    titles = current = None
    for line in text.splitlines():
        m = STAGE_TITLE.match(line)
        if m:
            current = (m[1], m[2], m[3])
            if by_file:
                assert m[4], f"no file number: {line!r}"
                current = (int(m[4]),) + current
            out["stages"][current] = {}
            continue
        m = re.match(r"# sum check: (.*)$", line)
        if m:
            out["checks"][current] = m[1]
            continue
        if re.match(r"# (file )?io_type ", line) or line.startswith("# stage "):
            titles = line[1:].split()
            continue
        m = HEADER_LINE.match(line)
        if m:
            out["header"].setdefault(m[1], []).append(m[2])
            continue
        if line.startswith("#") or not line.strip():
            continue
        row = dict(zip(titles, line.split()))
        assert len(row) == len(titles), line
        if titles[0] in ("io_type", "file"):
            key = tuple(row[k] for k in GROUP_KEYS if k in row)
            same = [g for g in out["groups"] if tuple(g[k] for k in GROUP_KEYS if k in g) == key]
            if same:
                same[0].update(row)
            else:
                out["groups"].append(row)
        else:
            out["stages"][current].setdefault(row["stage"], {}).update(row)
    return out
