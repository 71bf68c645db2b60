# SPDX-License-Identifier: GPL-2.0
"""The Debian package: lintian finds nothing, it holds what make install
installs, and in a fresh Debian root (conftest.py) it installs with its
declared dependencies alone, and ntprof runs there: its version, a man page,
the bash completion, and check's one line about what that root lacks."""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from conftest import REPO, need, sh

# lib/cli/exit.h: a kernel that lacks what is needed
EXIT_UNSUPPORTED = 3


def test_lintian__no_tag(debs):
    """Every tag, pedantic and experimental included, fails the test: there is
    none, and an override would have to say why in debian/."""
    need(shutil.which("lintian"), "lintian not found: apt-get install lintian (or: make deps)")
    # as nobody, with a home of its own: lintian warns when run as root
    with tempfile.TemporaryDirectory() as home:
        os.chown(home, 65534, 65534)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            "lintian", "--display-level", ">=pedantic", "--display-experimental",
                            "--fail-on", "error,warning,info,pedantic,experimental",
                            str(debs["changes"])],
                           capture_output=True, text=True, timeout=600, cwd=home,
                           env={"PATH": "/usr/bin:/bin", "HOME": home})
    assert p.returncode == 0 and p.stdout == "", p.stdout + p.stderr


def test_control__version_and_library_depends(debs):
    deb = debs["deb"]["ntprof"]
    fields = sh("dpkg-deb", "--field", deb, "Version", "Depends").stdout
    assert f"Version: {debs['version']}\n" in fields
    # from dpkg-shlibdeps: what the binary links
    for lib in ("libbpf1", "libsqlite3-0", "libc6"):
        assert re.search(rf"\b{lib}\b", fields), fields


def package_files(deb):
    """The files of the .deb, man pages without dh_compress's .gz; the package's docs
    and its lintian overrides (Debian's, not make install's) left out."""
    out = set()
    for line in sh("dpkg-deb", "--contents", deb).stdout.splitlines():
        path = line.split()[5].lstrip(".")
        if line.startswith("d") or path.startswith(("/usr/share/doc/", "/usr/share/lintian/")):
            continue
        out.add(re.sub(r"(/man/man\d/.*)\.gz$", r"\1", path))
    return out


def installed_files(top):
    return {"/" + str(p.relative_to(top)) for p in top.rglob("*") if not p.is_dir()}


def test_make_install__what_the_package_holds_and_uninstall_removes_it(debs, tmp_path):
    dest = tmp_path / "dest"
    make = ["make", "-s", "-C", REPO, f"DESTDIR={dest}", "PREFIX=/usr",
            "SYSTEMDUNITDIR=/lib/systemd/system"]
    sh(*make, "install")
    files = installed_files(dest)
    assert files == package_files(debs["deb"]["ntprof"])
    assert {"/usr/bin/ntprof", "/usr/share/bash-completion/completions/ntprof",
            "/usr/share/zsh/vendor-completions/_ntprof",
            "/usr/share/man/man1/ntprof-report.1", "/usr/share/man/man5/ntprof-ntp.5",
            "/usr/share/ntprof/grafana/ntprof.json",
            "/usr/share/ntprof/prometheus/ntprof-rules.yml"} <= files
    sh(*make, "uninstall")
    assert installed_files(dest) == set()


# ---- in a fresh root ---------------------------------------------------------------

def test_fresh_root__every_library_found(in_root):
    r = in_root("ldd", "/usr/bin/ntprof")
    assert r.returncode == 0 and "not found" not in r.stdout, r.stdout + r.stderr


def test_fresh_root__version(in_root, debs):
    r = in_root("ntprof", "version")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    first = r.stdout.splitlines()[0]
    assert re.fullmatch(rf"ntprof version {re.escape(debs['version'])}( \(git \S+\))?", first), first


def test_fresh_root__man_page_renders(in_root):
    r = in_root("man", "--warnings", "ntprof-report", env={"MANPAGER": "cat", "MANWIDTH": "80"})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    text = r.stdout
    assert text.startswith("NTPROF-REPORT(1)"), text[:200]
    assert "ntprof-report - report per-stage latencies from ntprof recordings" in text
    for section in ("SYNOPSIS", "OPTIONS", "EXIT STATUS"):
        assert f"\n{section}\n" in text, section


def test_fresh_root__check_names_what_is_missing(in_root):
    """A chroot has no /sys: no kernel BTF, one line saying so, exit 3."""
    r = in_root("ntprof", "check")
    assert r.returncode == EXIT_UNSUPPORTED, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("ntprof check: error: ") and "BTF" in lines[0], lines[0]


def test_fresh_root__bash_completion_installed(in_root):
    script = Path("/usr/share/bash-completion/completions/ntprof")
    r = in_root("bash", "--norc", "--noprofile", "-c",
                f'source {script} && COMP_WORDS=(ntprof record -r t) COMP_CWORD=3 && _ntprof && '
                'echo "${COMPREPLY[*]}"')
    assert r.returncode == 0 and r.stderr == "" and r.stdout == "target\n", r
