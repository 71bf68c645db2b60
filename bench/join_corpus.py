#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A corpus of synthetic joins, to check that a change to the join keeps its outputs.

    bench/join_corpus.py gen DIR            # writes DIR/<case>/*.ntp (ntpgen.py)
    bench/join_corpus.py run DIR NTPROF OUT # OUT/<case>.<output> for every case

Then `diff -r OUT_OLD OUT_NEW` shows every output that changed.  The cases
vary what the join must get right: offsets and drifts, one clock, reused
keys, several hosts on one target, one host on two targets (with the same
cntlid and block addresses on both links, so that only the binding of a
controller to its target tells the keys apart), NVMe/RDMA, lost samples
and records no offset can pair.
"""

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))
import ntpgen  # noqa: E402

G = ntpgen.DEFAULT_JGROUPS
J = ntpgen.JGroup


def big(n):
    return (J("read", 4096, "nvme0n1", n), J("write", 8192, "nvme0n1", n // 2, r2t_share=0.3))


def cases():
    """(name, host paths, target paths, links, kwargs)"""
    out = []
    for seed in range(1, 7):
        out.append((f"pair{seed}", ["h"], ["t"], [ntpgen.Link(0, 0, groups=G)], dict(seed=seed)))
    for k, (off, drift) in enumerate([(0, 0.0), (-5_000_000_000, 0.0), (123_456_789, 450e-6),
                                      (-987_654_321_000, -300e-6), (10**15, 1e-6),
                                      (40_000, 0.0)]):
        out.append((f"offset{k}", ["h"], ["t"],
                    [ntpgen.Link(0, 0, offset_ns=off, drift=drift, groups=G)], dict(seed=30 + k)))
    out.append(("heavy", ["h"], ["t"], [ntpgen.Link(0, 0, groups=big(6000))], dict(seed=40)))
    out.append(("heavy_lossy", ["h"], ["t"], [ntpgen.Link(0, 0, groups=big(3000))],
                dict(seed=41, lose_host=0.2, lose_target=0.25, reject=20)))
    out.append(("norej", ["h"], ["t"], [ntpgen.Link(0, 0, groups=G)], dict(seed=42, reject=0)))
    out.append(("rdma", ["h"], ["t"], [ntpgen.Link(0, 0, groups=G)],
                dict(seed=43, transport="rdma")))
    out.append(("rdma_heavy", ["h"], ["t"], [ntpgen.Link(0, 0, groups=big(2000))],
                dict(seed=44, transport="rdma")))
    out.append(("both", ["b"], ["b"], [ntpgen.Link(0, 0, offset_ns=0, drift=0.0, groups=G)],
                dict(seed=45)))
    out.append(("both_heavy", ["b"], ["b"],
                [ntpgen.Link(0, 0, offset_ns=0, drift=0.0, groups=big(3000))], dict(seed=46)))
    boot = {"boot_id": "3b7c0f5e-1111-4222-8333-944445555666"}
    out.append(("oneboot", ["h"], ["t"], [ntpgen.Link(0, 0, offset_ns=0, drift=0.0, groups=G)],
                dict(seed=47, host_meta=[boot], target_meta=[boot])))
    out.append(("twohosts", ["h0", "h1"], ["t"],
                [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=3_600_000_123_457, drift=20e-6, groups=G),
                 ntpgen.Link(1, 0, "nvme0", 2, offset_ns=-700_000_654_321, drift=-35e-6,
                             groups=G)], dict(seed=48)))
    out.append(("twotargets", ["h"], ["t0", "t1"],
                [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=11_000_000_000, drift=5e-6, groups=G),
                 ntpgen.Link(0, 1, "nvme1", 1, offset_ns=-3_000_000_000, drift=-8e-6, groups=G)],
                dict(seed=49)))
    out.append(("twotargets_samekeys", ["h"], ["t0", "t1"],
                [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=2_000_000, drift=0.0, groups=big(2000)),
                 ntpgen.Link(0, 1, "nvme1", 1, offset_ns=2_000_000, drift=0.0, groups=big(2000))],
                dict(seed=50, same_slbas=True)))
    out.append(("twohosts_samecntlid", ["h0", "h1"], ["t0", "t1"],
                [ntpgen.Link(0, 0, "nvme0", 1, offset_ns=7_000_000_000, drift=1e-6, groups=G),
                 ntpgen.Link(1, 1, "nvme0", 1, offset_ns=9_000_000_000, drift=-1e-6, groups=G)],
                dict(seed=51, same_slbas=True)))
    out.append(("sparse", ["h"], ["t"], [ntpgen.Link(0, 0, groups=(J("read", 4096, "nvme0n1", 12),))],
                dict(seed=52, reject=0)))
    return out


def gen(d):
    for name, hs, ts, links, kw in cases():
        cd = Path(d) / name
        cd.mkdir(parents=True, exist_ok=True)
        ntpgen.generate_joined([cd / f"{p}.ntp" for p in hs], [cd / f"{p}.ntp" for p in ts],
                               links, **kw)


def run(d, ntprof, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, hs, ts, _, _ in cases():
        cd = Path(d) / name
        files = []
        for p in hs + ts:
            if p not in files:
                files.append(p)
        files = [str(cd / f"{p}.ntp") for p in files]
        runs = {"report": ["report"], "report_json": ["report", "-j", "-"],
                "detail": ["report", "-S", "detail"], "dump": ["dump"]}
        for what, args in runs.items():
            r = subprocess.run([ntprof] + args + files, capture_output=True, text=True,
                               cwd=cd)
            # the version differs between any two builds: not an output of the join
            stdout = re.sub(r'"ntprof_version":"[^"]*"', '"ntprof_version":"-"', r.stdout)
            (out / f"{name}.{what}").write_text(f"rc {r.returncode}\n{stdout}--stderr--\n"
                                               f"{r.stderr}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
