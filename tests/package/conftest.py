# SPDX-License-Identifier: GPL-2.0
"""The Debian package (make deb) and a fresh Debian root to install it in.

The root is what `mmdebstrap --variant=apt` makes, plus man-db: essential
packages and apt, none of ntprof's libraries, so that a dependency the
package does not declare is missing there, as on a user's new machine (the
test bed's guests share this machine's root, which has everything).  It is
this machine's Debian release from deb.debian.org, with the updates and
security suites.

mmdebstrap's tarball is kept in /var/tmp/ntprof-pkgtest, named by a hash of
what makes it (suite, mirrors, packages, options) and made again after a
week; each session unpacks it into a new directory there and removes that
at the end.  apt's downloads of the package's dependencies are kept beside
it.  Needs root (chroot, mmdebstrap) and the network (apt).
"""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("NTPROF_PKGTEST_CACHE", "/var/tmp/ntprof-pkgtest"))
MAX_AGE_S = 7 * 24 * 3600
INCLUDE = ["man-db"]
# what commands in the root see: no variable of this machine's session
ROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LC_ALL": "C.UTF-8",
            "DEBIAN_FRONTEND": "noninteractive"}


def need(cond, why):
    """A test that cannot run here fails, naming what is missing: CI must not skip it."""
    if not cond:
        pytest.fail(why, pytrace=False)


def sh(*args, timeout=600, **kw):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kw)
    need(p.returncode == 0, f"{' '.join(map(str, args))}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def codename():
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip('"')
    pytest.fail("/etc/os-release has no VERSION_CODENAME: not a Debian release", pytrace=False)


def bootstrap_args(suite):
    """mmdebstrap's options and operands, the tarball's path left out."""
    mirrors = [f"deb http://deb.debian.org/debian {suite} main",
               f"deb http://deb.debian.org/debian {suite}-updates main",
               f"deb http://deb.debian.org/debian-security {suite}-security main"]
    opts = ["--variant=apt", f"--include={','.join(INCLUDE)}",
            # apt's lists stay, so that the package's dependencies can be installed
            "--skip=cleanup/apt/lists"]
    return opts, suite, mirrors


@pytest.fixture(scope="session")
def debs():
    """build/deb/ of make deb: {package name: .deb path} and the .changes."""
    d = Path(os.environ.get("NTPROF_DEB_DIR", REPO / "build" / "deb"))
    version = (REPO / "VERSION").read_text().strip()
    found = {p.name.split("_")[0]: p for p in d.glob(f"*_{version}_*.deb")}
    changes = list(d.glob(f"ntprof_{version}_*.changes"))
    need("ntprof" in found and len(changes) == 1,
         f"no ntprof {version} package in {d}: build it with `make deb`")
    return {"deb": found, "changes": changes[0], "version": version}


def root_tarball():
    """The cached tarball of a fresh root, made when missing or older than a week."""
    need(os.geteuid() == 0, "the package test needs root (mmdebstrap, chroot)")
    need(shutil.which("mmdebstrap"), "mmdebstrap not found: apt-get install mmdebstrap (or: make deps)")
    opts, suite, mirrors = bootstrap_args(codename())
    key = hashlib.sha256(json.dumps([opts, suite, mirrors]).encode()).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    tar = CACHE / f"root-{suite}-{key}.tar"
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not tar.exists() or time.time() - tar.stat().st_mtime > MAX_AGE_S:
            for old in CACHE.glob(f"root-{suite}-*.tar"):
                old.unlink()
            part = tar.with_suffix(".part.tar")
            sh("mmdebstrap", "--quiet", *opts, suite, part, *mirrors, timeout=1200)
            part.rename(tar)
    return tar


@pytest.fixture(scope="session")
def fresh_root(debs):
    """A fresh root with the package installed (apt-get, its Depends from the mirror)."""
    tar = root_tarball()
    archives = CACHE / "archives"
    archives.mkdir(exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="root-", dir=CACHE))
    try:
        sh("tar", "-xf", tar, "-C", root)
        shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")
        for deb in archives.glob("*.deb"):
            shutil.copy(deb, root / "var" / "cache" / "apt" / "archives")
        deb = debs["deb"]["ntprof"]
        shutil.copy(deb, root / "tmp")
        apt = ["chroot", root, "apt-get", "-q", "-o", "Dpkg::Use-Pty=0"]
        sh(*apt, "update", env=ROOT_ENV)
        sh(*apt, "install", "-y", "--no-install-recommends", f"/tmp/{deb.name}", env=ROOT_ENV)
        for got in (root / "var" / "cache" / "apt" / "archives").glob("*.deb"):
            shutil.copy(got, archives)
        yield root
    finally:
        shutil.rmtree(root)


@pytest.fixture(scope="session")
def in_root(fresh_root):
    """in_root("ntprof", "version") -> CompletedProcess: the command run in the root."""
    def run(*args, env=None):
        return subprocess.run(["chroot", str(fresh_root), *map(str, args)], capture_output=True,
                              text=True, timeout=120, env={**ROOT_ENV, **(env or {})})
    return run
