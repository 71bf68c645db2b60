# SPDX-License-Identifier: GPL-2.0
"""lib/ is in folders by layer, and includes point down.

Reads the #include "..." lines of lib/, cmd/ and bpf/ (no build needed) and
checks them against LAYERS below: a file includes only headers of its own
layer or of a layer its layer may use, bpf/ includes nothing outside bpf/
(its headers are shared by both sides), and no two files include each
other through their headers (a file and the header of its name count as
one).  The README's layout table names the same folders.

Run alone with `make check-layers`.
"""

import re
from pathlib import Path

from conftest import REPO

# layer: the layers it may include, besides itself and bpf/ (lowest first)
LAYERS = {
    "lib/fmt": set(),
    "lib/cli": {"lib/fmt"},
    "lib/core": {"lib/fmt", "lib/cli"},
    "lib/collect": {"lib/fmt", "lib/cli", "lib/core"},
    "lib/ntp": {"lib/fmt", "lib/cli", "lib/core"},
    "lib/record": {"lib/fmt", "lib/cli", "lib/core", "lib/collect", "lib/ntp"},
    "lib/join": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp"},
    "lib/model": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join"},
    "lib/diag": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model"},
    "lib/fleet": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model"},
    "lib/report": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model",
                   "lib/diag"},
    "lib/dump": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model"},
    "lib/compare": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model",
                    "lib/diag", "lib/report"},
    "lib/export": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model"},
    "lib/series": {"lib/fmt", "lib/cli", "lib/core", "lib/ntp", "lib/join", "lib/model",
                   "lib/diag", "lib/report"},
    "lib/monitor": {"lib/fmt", "lib/cli", "lib/core", "lib/collect", "lib/ntp"},
    "lib/top": {"lib/fmt", "lib/cli", "lib/core", "lib/collect", "lib/ntp", "lib/record",
                "lib/join", "lib/model"},
    "cmd": {"lib/fmt", "lib/cli", "lib/core", "lib/collect", "lib/ntp", "lib/record", "lib/join",
            "lib/model", "lib/diag", "lib/fleet", "lib/report", "lib/dump", "lib/compare",
            "lib/export", "lib/series", "lib/monitor", "lib/top"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    for top in ("lib", "cmd", "bpf"):
        for p in sorted((REPO / top).rglob("*")):
            if p.suffix in (".c", ".h"):
                yield p.relative_to(REPO)


def layer(path):
    """'lib/report' for lib/report/report.c, 'cmd', 'bpf'; None for lib/x.c."""
    parts = path.parts
    if parts[0] == "lib":
        return "/".join(parts[:2]) if len(parts) > 2 else None
    return parts[0]


def includes(path):
    """The files of this tree that path includes (generated ones left out)."""
    out = []
    for name in INCLUDE.findall((REPO / path).read_text()):
        for cand in (Path(name), path.parent / name):
            if (REPO / cand).is_file():
                out.append(cand)
                break
    return out


def unit(path):
    """A file and the header of its name are one unit: lib/report/report_view."""
    return path.with_suffix("")


def test_lib_is_folders_of_known_layers():
    stray = [str(p) for p in sources() if p.parts[0] == "lib" and layer(p) not in LAYERS]
    assert not stray, f"files of lib/ outside a layer folder of LAYERS: {stray}"


def test_includes_point_down():
    bad = []
    for p in sources():
        here = layer(p)
        for inc in includes(p):
            there = layer(inc)
            if here == "bpf":
                ok = there == "bpf"
            else:
                ok = there in (here, "bpf") or there in LAYERS.get(here, set())
            if not ok:
                bad.append(f"{p} includes {inc} ({here} -> {there})")
    assert not bad, "includes against the layer order:\n" + "\n".join(bad)


def test_no_include_cycles():
    edges = {}
    for p in sources():
        for inc in includes(p):
            if unit(inc) != unit(p):
                edges.setdefault(unit(p), set()).add(unit(inc))
    cycles, state = [], {}

    def visit(u, stack):
        state[u] = "open"
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == "open":
                cycles.append(" -> ".join(str(x) for x in stack[stack.index(v):] + [v]))
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = "done"

    for u in sorted(edges):
        if u not in state:
            visit(u, [])
    assert not cycles, "files that include each other:\n" + "\n".join(cycles)


def test_readme_layout_names_every_layer():
    readme = (REPO / "README.md").read_text()
    missing = [d for d in LAYERS if d.startswith("lib/") and f"`{d}/`" not in readme]
    assert not missing, f"README.md's layout table lacks {missing}"


# the functions that open a recording for reading, and a read-only ATTACH of one
OPENERS = re.compile(r'\b(ntp_db__open_read\w*|ntp_db__open_again|ntp_db__attach_read|ntp_db__connect)'
                     r'\s*\(|ntp_db__file_uri\([^;]*"ro"')


def test_only_the_model_opens_recordings():
    """lib/model is the one way in: nothing else opens a recording to read it
    (lib/ntp/db_read.c and db_state.c define the openers; the model calls them)."""
    bad, model = [], 0
    for p in sources():
        if p.parts[:2] == ("lib", "ntp") and p.stem in ("db_read", "db_state"):
            continue
        for n, line in enumerate((REPO / p).read_text().splitlines(), 1):
            if not OPENERS.search(line):
                continue
            if p.parts[:2] == ("lib", "model"):
                model += 1
            else:
                bad.append(f"{p}:{n}: {line.strip()}")
    assert not bad, "recordings opened outside lib/model:\n" + "\n".join(bad)
    # the pattern still names the openers the model calls
    assert model > 0, "no opener called in lib/model: OPENERS is out of date"
