#!/usr/bin/python3
"""Two builds' reports of one pair, side by side: does a part of the join pay?

    bench/join_ab.py BASE VARIANT HOST TARGET THREADS [ROUNDS]
    bench/join_ab.py BASE VARIANT HOST - THREADS          # the host-only report

Runs `BASE report HOST TARGET` and `VARIANT report HOST TARGET` in turn, ROUNDS
times each (default 5), with NTPROF_THREADS=THREADS, and prints one row: the
median wall, CPU (user + system) and peak RSS of each build, then the median
[smallest, largest] of each round's ratio VARIANT / BASE, wall and CPU, and the
load average before and after.  The raw runs go to stderr.  A variant is the
base with one part turned off, so a ratio above 1 is what the part saves.
"""
import os
import statistics
import subprocess
import sys
import tempfile


def run(binary, files, env):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        rc = subprocess.call(["/usr/bin/time", "-o", t.name, "-f", "%e %U %S %M", binary,
                              "report"] + files, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if rc:
            sys.exit(f"join_ab.py: {binary} report {' '.join(files)}: exit {rc}")
        w, u, s, m = t.read().split()[-4:]
    return float(w), float(u) + float(s), int(m) / 1024


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    base, var, host, target, threads = sys.argv[1:6]
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    env = dict(os.environ, NTPROF_THREADS=threads)
    files = [host] if target == "-" else [host, target]
    load0 = open("/proc/loadavg").read().split()[0]
    a, b = [], []
    for _ in range(rounds):
        a.append(run(base, files, env))
        b.append(run(var, files, env))
    load1 = open("/proc/loadavg").read().split()[0]
    print("base", a, "variant", b, file=sys.stderr)

    def med(v, i):
        return statistics.median(x[i] for x in v)

    rw = sorted(y[0] / x[0] for x, y in zip(a, b))
    rc = sorted(y[1] / x[1] for x, y in zip(a, b))
    print(f"{os.path.basename(host)} T{threads} | base {med(a, 0):.2f}s {med(a, 1):.2f}s "
          f"{med(a, 2):.0f}MB | variant {med(b, 0):.2f}s {med(b, 1):.2f}s {med(b, 2):.0f}MB | "
          f"wall {statistics.median(rw):.3f} [{rw[0]:.3f}, {rw[-1]:.3f}] "
          f"cpu {statistics.median(rc):.3f} [{rc[0]:.3f}, {rc[-1]:.3f}] | load {load0}->{load1}")


if __name__ == "__main__":
    main()
