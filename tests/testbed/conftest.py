# SPDX-License-Identifier: GPL-2.0
"""pytest fixtures for the NVMe-oF test bed (tests/testbed/README.md).

    def test_x(testbed):
        r = testbed.run("tests/testbed/guest/smoke.sh", kernel="6.12")
        r.assert_ok()
        assert r.result["tcp_fio_ios"] == r.result["tcp_calls_disk"]

`testbed.run()` boots a guest with run.sh and returns a RunResult; a guest that
does not boot or runs out of time fails the test with the reason and the
console tail (never a skip). `testbed.run_two()` boots a target and a host guest
joined by a QEMU network (run-two.sh). The guest kernels are tiered: KERNELS
(6.1, 6.12, 7.3) parametrize the smoke, hooks, role, RDMA and attach tests;
FULL (6.12) the rest of the suite. The session's end prints the package
and version of each kernel booted. Runs are serialized per kernel setup (setup.sh takes a lock)
but otherwise independent, so pytest-xdist's workers boot guests side by side
(make check-testbed: TB_JOBS); each run gets its own output folder under
$NTPROF_TB_DIR/out/ (kept for inspection).
"""
import contextlib
import fcntl
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import pytest

# every test bed kernel: bookworm's, bookworm-backports', trixie-backports'
KERNELS = ("6.1", "6.12", "7.3")
# the kernels the whole suite runs on: 6.12 in CI; NTPROF_TB_FULL="6.1 6.12 7.3"
# for every kernel (make test-long)
FULL = tuple(os.environ.get("NTPROF_TB_FULL", "6.12").split())
assert FULL and set(FULL) <= set(KERNELS), f"NTPROF_TB_FULL: not of {KERNELS}"
# the older kernel of the smoke tier's one boot (check and record say what it lacks)
OLD = "5.10"
# the kernel of the NVMe/TCP with TLS boot (trixie's nvme-cli and tlshd)
TLS = "7.3"

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
RUN_SH = HERE / "run.sh"
RUN_TWO_SH = HERE / "run-two.sh"
SETUP_SH = HERE / "setup.sh"
PROBE_BUILD = HERE / "probe" / "build.sh"
TB_DIR = pathlib.Path(os.environ.get("NTPROF_TB_DIR", "/var/tmp/ntprof-testbed"))
OUT_ROOT = TB_DIR / "out"

# run.sh exit statuses that mean "the guest itself failed", not the script
RC_TIMEOUT = 124
RC_NO_STATUS = 125
CONSOLE_TAIL = 40


def parse_env(path):
    """KEY=VALUE lines -> dict (the last value of a key wins)."""
    result = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                result[key] = value
    return result


class RunResult:
    """One guest run: rc, console (str), out (Path), result (dict), wall_s."""

    def __init__(self, rc, out, wall_s, stderr=""):
        self.rc = rc
        self.out = out
        self.wall_s = wall_s
        self.stderr = stderr
        log = out / "console.log"
        self.console = log.read_text(errors="replace") if log.exists() else ""
        self.result = parse_env(out / "result.env")

    def tail(self, n=CONSOLE_TAIL):
        return "\n".join(self.console.splitlines()[-n:])

    def describe(self):
        reason = self.result.get("fail_reason", "")
        return (f"rc={self.rc} {reason}\n--- console tail ({self.out}/console.log) ---\n"
                f"{self.tail()}\n--- run.sh ---\n{self.stderr.strip()}")

    def assert_ok(self):
        """Fail the test unless the guest script exited 0."""
        if self.rc != 0:
            pytest.fail(f"guest script failed: {self.describe()}", pytrace=False)
        return self


class TwoResult:
    """A run-two.sh run: rc, target and host (RunResult each), out, wall_s."""

    def __init__(self, rc, out, wall_s, stderr=""):
        self.rc = rc
        self.out = out
        self.wall_s = wall_s
        self.stderr = stderr
        self.target = RunResult(_rc_file(out / "target"), out / "target", wall_s)
        self.host = RunResult(_rc_file(out / "host"), out / "host", wall_s)

    def assert_ok(self):
        if self.rc != 0:
            pytest.fail(f"two-guest run failed (rc={self.rc})\n[target] {self.target.describe()}\n"
                        f"[host] {self.host.describe()}\n--- run-two.sh ---\n{self.stderr.strip()}",
                        pytrace=False)
        return self


def _rc_file(out):
    try:
        return int((out / ".tb" / "rc").read_text().strip())
    except (OSError, ValueError):
        return RC_NO_STATUS


OUT_KEEP_S = 3 * 24 * 3600


def _prune_old_outputs():
    """Output folders are kept for inspection; drop those older than 3 days."""
    if not OUT_ROOT.is_dir():
        return
    cutoff = time.time() - OUT_KEEP_S
    for d in OUT_ROOT.iterdir():
        try:
            if d.is_dir() and d.stat().st_mtime < cutoff:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


class _Session:
    """What all tests share: kernels already set up, the probe built."""

    def __init__(self):
        self.ready = set()
        self.probe_built = False
        self.tls_ready = False
        _prune_old_outputs()

    def prepare_tls(self):
        """Trixie's nvme-cli and tlshd beside the test bed (setup.sh --tls)."""
        if self.tls_ready:
            return
        p = subprocess.run([str(SETUP_SH), "--tls"], capture_output=True, text=True)
        if p.returncode != 0:
            pytest.fail(f"setup.sh --tls failed:\n{p.stdout}{p.stderr}", pytrace=False)
        self.tls_ready = True

    def prepare(self, kernel):
        if os.geteuid() != 0:
            pytest.fail("the test bed needs root (QEMU exports /, nvmet needs modules)", pytrace=False)
        if not self.probe_built:
            p = subprocess.run([str(PROBE_BUILD)], capture_output=True, text=True)
            if p.returncode != 0:
                pytest.fail(f"probe/build.sh failed:\n{p.stdout}{p.stderr}", pytrace=False)
            self.probe_built = True
        if kernel in self.ready or os.environ.get("TB_NATIVE") == "1":
            return
        p = subprocess.run([str(SETUP_SH), "--kernel", kernel], capture_output=True, text=True)
        if p.returncode != 0:
            pytest.fail(f"setup.sh --kernel {kernel} failed:\n{p.stdout}{p.stderr}", pytrace=False)
        self.ready.add(kernel)


# Guests side by side (pytest-xdist workers, make check-testbed's TB_JOBS): one
# QEMU a CPU.  A two-guest run is two QEMUs, and beside another worker's
# guest it would share the CPUs three ways: its network stage then grew by
# 13.3 ms for netem's 10 ms (ping's round trip by 11.2 ms).  So a two-guest
# run takes the guests' lock alone, and one-guest runs share it.  The turn
# lock first makes a waiting two-guest run a barrier: new one-guest runs wait
# behind it instead of passing it forever.
GUESTS_TURN = TB_DIR / ".guests.turn"
GUESTS_RUN = TB_DIR / ".guests.run"


@contextlib.contextmanager
def _guests_lock(alone):
    TB_DIR.mkdir(parents=True, exist_ok=True)
    with open(GUESTS_TURN, "a") as turn, open(GUESTS_RUN, "a") as run:
        fcntl.flock(turn, fcntl.LOCK_EX)
        try:
            fcntl.flock(run, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(turn, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(run, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turn, fcntl.LOCK_UN)


class Testbed:
    def __init__(self, session, name):
        self._session = session
        self._name = name.replace("[", "-").replace("]", "").replace("/", "_")

    def _outdir(self, kernel):
        # not pytest's tmp_path: concurrent pytest sessions prune each other's
        # numbered base dirs, possibly under a running guest
        OUT_ROOT.mkdir(parents=True, exist_ok=True)
        return pathlib.Path(tempfile.mkdtemp(prefix=f"{self._name}-{kernel}-", dir=OUT_ROOT))

    @staticmethod
    def _guard(cmd, timeout):
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                               timeout=timeout + 60)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired as e:
            rc = RC_TIMEOUT
            err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) \
                else (e.stderr or "")
        return rc, err, time.monotonic() - t0

    def run(self, script, args=(), kernel="6.1", timeout=240, env=None, smp=None, mem=None,
            tls=False):
        """Boot a guest running `bash script args` (cwd: the repo root); tls: with the
        TLS user space ready (setup.sh --tls)."""
        self._session.prepare(kernel)
        if tls:
            self._session.prepare_tls()
        out = self._outdir(kernel)
        cmd = [str(RUN_SH), "--kernel", kernel, "--timeout", str(timeout), "--out", str(out)]
        if smp:
            cmd += ["--smp", str(smp)]
        if mem:
            cmd += ["--mem", str(mem)]
        for key, value in (env or {}).items():
            cmd += ["--env", f"{key}={value}"]
        cmd += ["--", str(script), *map(str, args)]
        with _guests_lock(alone=False):
            rc, err, wall = self._guard(cmd, timeout)
        res = RunResult(rc, out, wall, err)
        if rc in (RC_TIMEOUT, RC_NO_STATUS):
            what = "timed out" if rc == RC_TIMEOUT else "did not boot or reported no status"
            pytest.fail(f"guest ({kernel}) {what}: {res.describe()}", pytrace=False)
        return res

    def run_two(self, script, args=(), kernel="6.1", timeout=240, skew=0, env=None):
        """Boot a target and a host guest (run-two.sh), both running `script`."""
        self._session.prepare(kernel)
        out = self._outdir(kernel)
        cmd = [str(RUN_TWO_SH), "--kernel", kernel, "--timeout", str(timeout),
               "--out", str(out), "--skew", str(skew)]
        for key, value in (env or {}).items():
            cmd += ["--env", f"{key}={value}"]
        cmd += ["--", str(script), *map(str, args)]
        with _guests_lock(alone=True):
            rc, err, wall = self._guard(cmd, timeout)
        res = TwoResult(rc, out, wall, err)
        for role, r in (("target", res.target), ("host", res.host)):
            if r.rc in (RC_TIMEOUT, RC_NO_STATUS) and rc != 0:
                pytest.fail(f"{role} guest ({kernel}) failed to run: rc={rc}\n{r.describe()}\n"
                            f"--- run-two.sh ---\n{err.strip()}", pytrace=False)
        return res


# the soaks (@pytest.mark.long): only with NTPROF_TB_LONG=1 (make test-long), never
# in make check-testbed; deselected, so that they count neither as passed nor as skipped
LONG = os.environ.get("NTPROF_TB_LONG") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "long: a soak of many minutes, run by make test-long only")


def pytest_collection_modifyitems(config, items):
    if LONG:
        return
    long_ = [i for i in items if i.get_closest_marker("long")]
    if long_:
        config.hook.pytest_deselected(items=long_)
        items[:] = [i for i in items if not i.get_closest_marker("long")]


@pytest.fixture(scope="session")
def _testbed_session():
    return _Session()


def pytest_terminal_summary(terminalreporter):
    """The exact kernel each series resolved to (setup.sh's kpkg), for the log of every run."""
    lines = []
    for series in (*KERNELS, OLD):
        kpkg = TB_DIR / "kernels" / series / "kpkg"
        if kpkg.exists():
            lines.append(f"{series}: {kpkg.read_text().strip()}")
    versions = TB_DIR / "tls" / "versions"
    if versions.exists():
        tls = [x for x in versions.read_text().splitlines() if x.split()[0] in ("nvme-cli", "ktls-utils")]
        lines.append(f"TLS user space (trixie): {', '.join(tls)}")
    if lines:
        terminalreporter.write_sep("-", "test bed kernels")
        for line in lines:
            terminalreporter.write_line(line)
    # said here, not by pytest's count: under -n the workers deselect them
    soaks = sorted(p.name for p in pathlib.Path(__file__).parent.glob("test_*.py")
                   if "pytest.mark.long" in p.read_text())
    if soaks and not LONG:
        terminalreporter.write_sep("-", "left out")
        terminalreporter.write_line(f"NOT RUN (make test-long only, NTPROF_TB_LONG=1): {', '.join(soaks)}")


@pytest.fixture
def testbed(_testbed_session, request):
    return Testbed(_testbed_session, request.node.name)
