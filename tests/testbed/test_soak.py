# SPDX-License-Identifier: GPL-2.0
"""A soak of `ntprof monitor -r both -s 1 --flight` (guest/soak.sh): fio for
10 minutes on a 6.12 guest, Prometheus scraping it with the tree's rules,
a page and a sample every 10 s.  Run by make test-long only (@long):

- monitor's memory is flat: the largest RSS of the last third of the samples
  is within 10% of the largest of the first third;
- the flight recorder's window file is of one size throughout, within its
  bound (224 + 112 bytes a command a side, times --flight-commands, times
  --flight-seconds and one, and a header);
- nothing lost beyond what is counted: after fio, each side's histograms
  hold every sampled command less those counted lost, and the host's every
  command of fio's; nothing was lost at all;
- the page is of one size (lines) once every series exists, and within 5%
  in bytes (the counts' digits grow); every page satisfies the histogram
  invariants;
- Prometheus scraped every time up; a snapshot after fio is a recording
  that report reads, at most --flight-commands a second a side (what a
  snapshot holds is test_monitor.py's).

Its figures go to bench/README.md ("ntprof monitor soak").
"""
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from test_monitor import NTPROF, check_invariants

pytestmark = pytest.mark.long

SOAK_S = 600
KERNEL = "6.12"


def test_soak(testbed):
    r = testbed.run("tests/testbed/guest/soak.sh", kernel=KERNEL, timeout=SOAK_S + 900,
                    env={"NTPROF": str(NTPROF), "SOAK_SECONDS": str(SOAK_S)}).assert_ok()
    check_soak(r.result, r.out)


def check_soak(res, out):
    """The assertions on a soak's output folder (res: its result.env)."""
    assert res["mon_rc"] == "0", (out / "mon.err").read_text()
    ios = int(res["fio_ios"])
    assert ios > 0
    n, secs = int(res["flight_commands"]), int(res["flight_seconds"])

    samples = [tuple(int(float(x)) for x in line.split())
               for line in (out / "samples.txt").read_text().splitlines()]
    # a sample every 10 s at best: under a loaded machine's TCG a page takes longer, so
    # what is asked is samples over the whole run, at least 3 a third
    assert len(samples) >= 9 and samples[-1][1] - samples[0][1] >= 0.9 * SOAK_S, samples
    third = len(samples) // 3
    rss = [s[2] for s in samples]
    first, last = max(rss[:third]), max(rss[-third:])
    assert last <= 1.10 * first, f"RSS grew: first third's max {first} KiB, last third's {last} KiB"
    sizes = {s[3] for s in samples if s[3]}
    assert len(sizes) == 1, sizes
    size = sizes.pop()
    bound = (secs + 1) * n * (224 + 112)
    assert bound <= size <= bound + 65536, (size, bound)

    lines, nbytes, full = [], [], None
    pages = sorted(out.glob("page-*.txt"), key=lambda p: int(p.stem.split("-")[1]))
    assert len(pages) >= len(samples) - 1
    for p in pages:
        text = p.read_text()
        s = check_invariants(text, p.name)
        stages = {dict(k[1])["stage"] for k in s if k[0] == "ntprof_stage_seconds_count"}
        if full is None and len(stages) == 7:
            full = p
        if full is not None:
            lines.append(len(text.splitlines()))
            nbytes.append(len(text))
    assert full is not None and len(lines) >= len(pages) - 3, (full, len(lines))
    assert len(set(lines)) == 1, f"page lines vary: {sorted(set(lines))}"
    assert max(nbytes) <= 1.05 * min(nbytes), (min(nbytes), max(nbytes))

    final = check_invariants((out / "final.txt").read_text(), "final")

    def total(name, **want):
        return sum(v for (k, labels), v in final.items() if k == name and
                   all(dict(labels).get(a) == b for a, b in want.items()))

    for role, whole in (("host", "e2e"), ("target", "residence")):
        counted = total("ntprof_stage_seconds_count", role=role, stage=whole)
        lost = total("ntprof_lost_total", role=role)
        sampled = total("ntprof_commands_sampled_total", role=role)
        assert counted + total("ntprof_lost_total", role=role, cause="inflight_map") + \
            total("ntprof_lost_total", role=role, cause="hist_map") == sampled, (role, counted, sampled)
        assert lost == 0, (role, lost)
    assert total("ntprof_stage_seconds_count", role="host", stage="e2e") == ios

    assert res["prom"] == "yes", res["prom"]
    scrapes = json.loads((out / "prom-scrapes.json").read_text())["data"]["result"]
    up = json.loads((out / "prom-up.json").read_text())["data"]["result"]
    assert scrapes and up and float(up[0]["value"][1]) == float(scrapes[0]["value"][1]), (up, scrapes)
    assert float(scrapes[0]["value"][1]) >= SOAK_S // 10, scrapes

    assert res["snapshot"] == "written", res["snapshot"]
    snap = out / "snapshot.ntp"
    db = sqlite3.connect(f"file:{snap}?mode=ro&immutable=1", uri=True)
    per_s = [c for (c,) in db.execute("SELECT count(*) FROM host_io GROUP BY h_done_ns / 1000000000")]
    db.close()
    # after fio, the window may hold none of its commands (under a loaded machine fio's
    # last I/O can end more than --flight-seconds before): what it holds is within the bound
    assert not per_s or max(per_s) <= n, per_s
    rep = subprocess.run([str(NTPROF), "report", str(snap)], capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0 and rep.stderr == "", rep.stderr
    # the figures for bench/README.md
    print(f"\nsoak: {ios} I/Os in {SOAK_S} s, {samples[-1][1] - samples[0][1]} s sampled, {len(samples)} samples; RSS first third max {first} KiB, "
          f"last third max {last} KiB; window file {size} B (bound {bound}); page {lines[0]} lines, "
          f"{min(nbytes)}..{max(nbytes)} B; scrapes {scrapes[0]['value'][1]}, up {up[0]['value'][1]}; "
          f"flight filtered {total('ntprof_flight_filtered_total')}")


if __name__ == "__main__":
    # the checks again on a soak's kept output folder: test_soak.py OUT_DIR
    out = Path(sys.argv[1])
    check_soak(dict(x.split("=", 1) for x in (out / "result.env").read_text().splitlines() if "=" in x), out)
