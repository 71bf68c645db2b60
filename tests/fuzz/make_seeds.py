#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fuzzer's seed corpus: small recordings of every kind ntpgen.py makes
(host, target, -r both, RDMA, joined), so that mutations start from real files.

    tests/fuzz/make_seeds.py DIR
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
import ntpgen  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
few = tuple(ntpgen.Group(**{**g.__dict__, "n": 3}) for g in ntpgen.DEFAULT_GROUPS)
ntpgen.generate(out / "host.ntp", seed=1, groups=few)
ntpgen.generate(out / "host-rdma.ntp", seed=2, groups=few, transport="rdma")
jfew = tuple(ntpgen.JGroup(**{**g.__dict__, "n": 4}) for g in ntpgen.DEFAULT_JGROUPS)
ntpgen.generate_pair(out / "pair-host.ntp", out / "pair-target.ntp", seed=3, groups=jfew)
ntpgen.generate_both(out / "both.ntp", seed=4, groups=jfew)
ntpgen.write_joined_file(out / "joined.ntp", ntpgen.generate_pair(
    out / "j-host.ntp", out / "j-target.ntp", seed=5, groups=jfew))
for p in ("j-host.ntp", "j-target.ntp"):
    (out / p).unlink()
for p in out.glob("*.ntp-*"):
    p.unlink()
print(f"{out}: {len(list(out.glob('*.ntp')))} seed recordings")
