# SPDX-License-Identifier: GPL-2.0
"""compare's verdicts on real latencies (ntprof-compare(1), SIGNIFICANCE):
a test bed recording at -s 1 split in two at random, command by command, is
two runs in which nothing changed, whatever the guest's latencies look like
(a TCG guest's are far from normal).  Of 100 such pairs at most 5 may have
any row called changed or a "changed most" line naming a change; of 100
more whose second half's network* stage is moved by twice the floor, or by
six standard errors where the guest's noise is wider (every host point from
the response on later by a constant: network* and the end-to-end totals
move, the drivers and the application's stages do not), at least 95 must
name network*, and of all rows called changed at most a tenth may be of
stages that did not move (Benjamini-Hochberg expects a twentieth).  The
synthetic version is
tests/integration/test_compare_noise.py."""
import json
import math
import random
import shutil
import sqlite3
import subprocess

PAIRS = 100
# compare's default floor (ntprof-compare(1)): 5% of the baseline and 1 us
FLOOR_PCT, FLOOR_NS = 5.0, 1000


def _split(src, a, b, seed, shift_ns):
    """src's host commands into a and b at random, half each; b's network* later by shift_ns."""
    db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    ids = [r[0] for r in db.execute("SELECT id FROM host_io ORDER BY id")]
    db.close()
    first = set(random.Random(seed).sample(ids, len(ids) // 2))
    for dst, keep, shift in ((a, first, 0), (b, set(ids) - first, shift_ns)):
        shutil.copyfile(src, dst)
        out = sqlite3.connect(dst)
        out.execute("CREATE TEMP TABLE keep (id INTEGER PRIMARY KEY)")
        out.executemany("INSERT INTO keep VALUES (?)", ((i,) for i in keep))
        out.execute("DELETE FROM host_io WHERE id NOT IN (SELECT id FROM keep)")
        if shift:
            # every host point after the response arrives: only network* and the totals move
            out.execute("UPDATE host_io SET h_recv_ns = h_recv_ns + ?1, h_done_ns = h_done_ns + ?1,"
                        " h_app_done_ns = h_app_done_ns + ?1, h_app_reap_ns = h_app_reap_ns + ?1",
                        (shift,))
        out.commit()
        out.close()


def _verdicts(ntprof, a, b):
    """The rows compare calls changed, and the stage its changed-most line names, or None."""
    r = subprocess.run([str(ntprof), "compare", "-j", "-", str(a), str(b)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    changed = [(g["io_type"], g["bytes"], s["stage"], stat) for g in doc["groups"]
               for s in g["stages"] for stat in doc["statistics"] if s[stat]["significant"]]
    most = doc["changed_most"]
    return changed, most["stage"] if most and most["verdict"] == "changed" else None


def shift_of(path):
    """Twice the floor of the group whose network* is slowest (twice its 5%, at least
    2 us), or six standard errors of a half's mean network* where that is more: a
    TCG guest's latencies vary by milliseconds, and a shift within the noise is
    no change any test can name."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT avg(network_star_ns), avg(network_star_ns * network_star_ns), count(*)"
                      " FROM host_stages GROUP BY io_type, bytes, namespace").fetchall()
    db.close()
    floor = max(FLOOR_NS, int(FLOOR_PCT / 100 * max(m for m, _, _ in rows)))
    # the difference of two halves' means: sqrt(2 var / (n/2)) = 2 sd / sqrt(n)
    se = max(2 * math.sqrt(max(sq - m * m, 0.0) / n) for m, sq, n in rows if n >= 100)
    return int(max(2 * floor, 6 * se))


def check_split_noise(ntprof, path, tmp):
    """The two halves of 100 random splits: noise; of 100 more, the shift found."""
    tmp.mkdir(exist_ok=True)
    a, b = tmp / "a.ntp", tmp / "b.ntp"
    shift = shift_of(path)
    alarms, missed = [], []
    called = stray = 0
    for k in range(PAIRS):
        _split(path, a, b, seed=k, shift_ns=0)
        changed, most = _verdicts(ntprof, a, b)
        if changed or most:
            alarms.append((k, changed, most))
    for k in range(PAIRS):
        _split(path, a, b, seed=PAIRS + k, shift_ns=shift)
        changed, most = _verdicts(ntprof, a, b)
        if most != "network_star":
            missed.append((k, most, changed))
        called += len(changed)
        stray += sum(1 for _, _, stage, _ in changed
                     if stage not in ("network_star", "e2e", "app_e2e"))
    print(f"split noise: {len(alarms)} of {PAIRS} noise pairs called a change; "
          f"{PAIRS - len(missed)} of {PAIRS} pairs moved by {shift} ns named network*; "
          f"{stray} of {called} rows called changed did not move")
    assert len(alarms) <= 5, alarms
    assert len(missed) <= 5, missed
    # Benjamini-Hochberg at 5%: of the rows called changed, a twentieth expected noise
    assert stray <= 0.1 * called, (stray, called)
