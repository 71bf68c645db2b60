#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A corpus of synthetic joins, to check that a change to the join keeps its outputs.

    bench/join_corpus.py gen DIR            # writes DIR/<case>/*.ntp (ntpgen.py)
    bench/join_corpus.py run DIR NTPROF OUT # OUT/<case>.<output> for every case

Then `diff -r OUT_OLD OUT_NEW` shows every output that changed.  With EVERY=1 the
run covers every reading command (report in each form, dump, series, export, compare)
on every kind of recording: each case's files joined, each file alone, and the
joined recording `ntprof join` writes of them.  The cases
vary what the join must get right: offsets and drifts, one clock, reused
keys, several hosts on one target, one host on two targets (with the same
cntlid and block addresses on both links, so that only the binding of a
controller to its target tells the keys apart), NVMe/RDMA, lost samples
and records no offset can pair.
"""

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))
import ntpgen  # noqa: E402

G = ntpgen.DEFAULT_JGROUPS
# EVERY=1: every reading command on every kind of recording (report, dump, series, export,
# compare; each file alone and as ntprof join writes it), not only the join's four outputs
EVERY = os.environ.get("EVERY") == "1"
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


def _save(out, name, r, extra=b""):
    # the version differs between any two builds: not an output of the read side
    stdout = re.sub(rb'"(ntprof_version|recorded_by)": ?"[^"]*"', rb'"\1":"-"', r.stdout)
    (out / name).write_bytes(b"rc %d\n" % r.returncode + stdout + extra + b"--stderr--\n" +
                             r.stderr)


def _runs(files, tmp):
    """(output name, arguments) of every reading command on these files"""
    runs = [("report", ["report"]), ("report_json", ["report", "-j", "-"]),
            ("detail", ["report", "-S", "detail"]), ("dump", ["dump"])]
    if EVERY:
        runs += [("detail_json", ["report", "-S", "detail", "-j", "-"]),
                 ("tidy", ["report", "-t", ","]), ("hist", ["report", "--histogram"]),
                 ("sorted", ["report", "--sort", "p99", "-F", "n,mean,p99"]),
                 ("filtered", ["report", "--io-type", "read", "--time", "1,"]),
                 ("series", ["series"]), ("series_json", ["series", "-j", "-"]),
                 ("series_csv", ["series", "--csv", "-"]),
                 ("export", ["export", "-o", str(tmp / "x.pftrace")])]
    return [(n, a + files) for n, a in runs]


def _run_all(ntprof, cd, out, prefix, files, tmp):
    for what, args in _runs(files, tmp):
        trace = tmp / "x.pftrace"
        trace.unlink(missing_ok=True)
        r = subprocess.run([ntprof] + args, capture_output=True, cwd=cd)
        extra = b""
        if what == "export" and trace.exists():
            extra = b"trace sha256 " + hashlib.sha256(trace.read_bytes()).hexdigest().encode() + b"\n"
        _save(out, f"{prefix}.{what}", r, extra)


def run(d, ntprof, out):
    # the commands run in each case's folder: the files are named whole
    d = Path(d).resolve()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # one scratch folder of the corpus, whatever OUT: its paths appear in the outputs
    tmp = d / ".scratch"
    tmp.mkdir(exist_ok=True)
    runs = {}
    for name, hs, ts, _, _ in cases():
        cd = Path(d) / name
        files = []
        for p in hs + ts:
            if p not in files:
                files.append(p)
        files = [str(cd / f"{p}.ntp") for p in files]
        runs[name] = files
        _run_all(ntprof, cd, out, name, files, tmp)
        if not EVERY:
            continue
        # each recording alone: a host, a target or a "-r both" recording
        for f in files if len(files) > 1 else []:
            _run_all(ntprof, cd, out, f"{name}.{Path(f).stem}", [f], tmp)
        # the recording ntprof join makes of one host and one target side
        if len(hs) == 1 and len(ts) == 1:
            jf = tmp / f"{name}.joined.ntp"
            jf.unlink(missing_ok=True)
            r = subprocess.run([ntprof, "join", "-o", str(jf)] + files, capture_output=True)
            _save(out, f"{name}.join", r)
            if jf.exists():
                _run_all(ntprof, cd, out, f"{name}.joined", [str(jf)], tmp)
    if EVERY:
        # compare: two runs of the same kind, joined and each side alone
        for a, b in (("pair1", "pair2"), ("rdma", "rdma_heavy"), ("both", "both_heavy")):
            for label, x, y in ((a + "-" + b, ",".join(runs[a]), ",".join(runs[b])),
                                (a + "-" + b + ".host", runs[a][0], runs[b][0])):
                for what, args in (("compare", []), ("compare_json", ["-j", "-"]),
                                   ("compare_tidy", ["-t", ","])):
                    r = subprocess.run([ntprof, "compare"] + args + [x, y], capture_output=True)
                    _save(out, f"{label}.{what}", r)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
