# SPDX-License-Identifier: GPL-2.0
"""NVMe/TCP with TLS 1.3 in the test bed (guest/tls.sh, one boot on the TLS
kernel): trixie's tlshd and nvme-cli 2.13 (tests/testbed/setup.sh --tls:
Debian 12 has neither) connect the host and the target with a PSK, and
`record -r both -s 1` of 512 4k random reads at queue depth 1 runs on a
plain TCP controller and on the TLS one in the same boot.

- The controller has its tls_key, tlshd's handshakes succeeded.
- Both recordings: every command of fio's in both sides, every one joined,
  the report of the TLS run with all five stages (ntprof-design(7), "NVMe/TCP
  with TLS").
- Where TLS moves the time, as measured: each command capsule's send is
  deferred to the queue's io_work (host_io flag 32: sent by another task
  than the one that queued it) for every TLS command, and for fewer of the
  plain ones.  The stages' means are printed beside each other; no time is
  asserted (TCG).
"""
import json
import os
from pathlib import Path

from conftest import REPO, TLS
from ntp_checks import count_fits, lossy, open_db

NTPROF = Path(os.environ.get("NTPROF", REPO / "build" / "ntprof")).resolve()
NTP_HF_SEND_DEFERRED = 32
STAGES = ("block", "driver", "network", "target_driver", "storage")


def check_run(r, name):
    res, out = r.result, r.out
    assert res[f"{name}_rc"] == "0", (out / f"{name}.err").read_text()
    assert res[f"{name}_report_rc"] == "0", (out / f"{name}.report.err").read_text()
    ios = int(res[f"{name}_ios"])
    assert ios == 512, res
    db = open_db(out / f"{name}.ntp")
    loss = lossy(db)
    host, target = (db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("host_io", "target_io"))
    assert count_fits(host, ios, loss) and count_fits(target, ios, loss), (name, host, target, ios)
    doc = json.loads((out / f"{name}.json").read_text())
    assert doc["kind"] == "joined", doc["kind"]
    assert doc["join"]["matched"] >= 0.99 * doc["join"]["host_commands"] == 0.99 * host, doc["join"]
    (g,) = doc["groups"]
    stages = {s["stage"]: s for s in g["stages"]}
    assert tuple(stages) == STAGES and all(stages[s]["mean_ns"] > 0 for s in STAGES), stages
    deferred = db.execute("SELECT count(*) FROM host_io WHERE flags & ?",
                          (NTP_HF_SEND_DEFERRED,)).fetchone()[0]
    return host, deferred, {s: stages[s]["mean_ns"] for s in STAGES}


def test_tls__stages_joined_and_sends_deferred(testbed):
    r = testbed.run("tests/testbed/guest/tls.sh", kernel=TLS, timeout=300, tls=True,
                    env={"NTPROF": str(NTPROF)}).assert_ok()
    res, out = r.result, r.out
    print(f"kernel {TLS}: {res['kernel']} ({res['kpkg']}); {res['tls_versions']}")
    assert "nvme-cli 2.13" in res["tls_versions"] and "ktls-utils 1.0.0" in res["tls_versions"], res
    assert res["tls_key"], res
    log = (out / "tlshd.log").read_text()
    assert "Handshake with localhost (127.0.0.1) was successful" in log, log[-2000:]

    plain = check_run(r, "plain")
    tls = check_run(r, "tls")
    for name, (n, deferred, means) in (("plain", plain), ("tls", tls)):
        print(f"{name}: {n} commands, {deferred} sends deferred to io_work; stage means (us): "
              + ", ".join(f"{s} {means[s] / 1e3:.0f}" for s in STAGES))
    # every TLS send goes through the queue's io_work; fewer plain ones do
    assert tls[1] >= 0.99 * tls[0], tls
    assert plain[1] < tls[1], (plain, tls)
