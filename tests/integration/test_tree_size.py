# SPDX-License-Identifier: GPL-2.0
"""What the tree promises its reader about its own size.

bench/README.md holds the current figures of each benchmark, how to get
them and a short list of what was tried: at most 400 lines, so that history
goes to commit bodies, not to it.
"""

from conftest import REPO

BENCH_README_MAX_LINES = 400


def test_bench_readme_is_at_most_400_lines():
    lines = (REPO / "bench" / "README.md").read_text().count("\n")
    assert 0 < lines <= BENCH_README_MAX_LINES, lines
