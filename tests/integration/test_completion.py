# SPDX-License-Identifier: GPL-2.0
"""The bash completion (contrib/completion/ntprof.bash and the option tables
the binary prints), driven as bash drives it: the script sourced in a bash,
COMP_WORDS and COMP_CWORD set, _ntprof called, COMPREPLY read back.

The options offered are those of each command's --help, the values offered
are accepted by the option's parser, and the operands are recordings, a
command name or a workload, as each command takes them."""

import shutil
import subprocess

import pytest

from conftest import Exit, REPO, assert_ok
from test_cli import NAMES, help_options

CONTRIB = REPO / "contrib" / "completion" / "ntprof.bash"

DRIVER = r'''
source "$SCRIPT" || exit 99
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_ntprof ntprof "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || exit 98
printf '%s\n' "${COMPREPLY[@]}"
'''


@pytest.fixture(scope="module")
def script(ntprof):
    """The completion script the build made beside the binary (make completion)."""
    path = ntprof.parent / "completion" / "ntprof.bash"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `make completion` (make does)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A directory with a recording, another file and a subdirectory."""
    d = tmp_path_factory.mktemp("files")
    (d / "host.ntp").write_bytes(b"")
    (d / "notes.txt").write_text("")
    (d / "runs").mkdir()
    return d


@pytest.fixture(scope="module")
def complete(script, files):
    """complete("report", "--stat", "") -> the words bash would offer for the
    last word, the command line being `ntprof report --stat |`."""
    def complete(*words, cwd=files):
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", DRIVER, "bash", "ntprof", *words],
                           env={"SCRIPT": str(script), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                           cwd=cwd, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and p.stderr == "", (words, p.returncode, p.stderr)
        return [w for w in p.stdout.splitlines() if w]
    return complete


def tables(script):
    """{(command, option): spec} of the script's _ntprof_args, as bash reads them."""
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                        'source "$1" && for k in "${!_ntprof_args[@]}"; do '
                        'printf "%s\\t%s\\n" "$k" "${_ntprof_args[$k]}"; done', "bash", str(script)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    out = {}
    for line in p.stdout.splitlines():
        key, spec = line.split("\t")
        cmd, opt = key.split(" ")
        out[cmd, opt] = spec
    return out


# ---- the script -----------------------------------------------------------------

def test_script__the_functions_then_the_binarys_tables(run, script):
    r = run("help", "--completion-tables", "bash")
    assert_ok(r)
    assert script.read_text() == CONTRIB.read_text() + r.stdout


def test_script__registers_for_ntprof(script):
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", 'source "$1" && complete -p ntprof',
                        "bash", str(script)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "complete -F _ntprof ntprof", p


def test_script__shellcheck_clean(script):
    if not shutil.which("shellcheck"):
        pytest.fail("shellcheck not found: apt-get install shellcheck (or: make deps)", pytrace=False)
    p = subprocess.run(["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("args", [("help", "--completion-tables", "fish"),
                                  ("help", "--completion-tables", "bash", "report")])
def test_tables_bad_command_line__usage(run, args):
    r = run(*args)
    assert r.returncode == Exit.USAGE and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr


# ---- commands and options: those of --help ------------------------------------------

def test_commands__every_command_in_order(complete):
    assert complete("") == NAMES


def test_command_prefix__the_commands_it_begins(complete):
    assert complete("re") == ["record", "report"]
    assert complete("-v", "rep") == ["report"]


def test_global_options__those_of_ntprof_help(run, complete):
    offered = complete("-")
    assert set(offered) == help_options(run("--help").stdout) | {"-h", "--help"}
    assert len(offered) == len(set(offered))


@pytest.mark.parametrize("cmd", NAMES)
def test_options__those_of_the_commands_help(run, complete, cmd):
    offered = complete(cmd, "-")
    assert set(offered) == help_options(run(cmd, "--help").stdout) | {"-h", "--help"}
    assert len(offered) == len(set(offered))


def test_options_prefix__the_options_it_begins(complete):
    assert complete("compare", "--sta") == ["--stat", "--stages"]


def test_hidden_option__never_offered(complete):
    assert complete("help", "-") == ["-h", "--help"]
    assert complete("help", "--comp") == []


def test_unknown_command__nothing(complete):
    assert complete("reprot", "") == []
    assert complete("reprot", "-") == []


# ---- option values ------------------------------------------------------------------------

@pytest.mark.parametrize("words, offered", [
    (("record", "-r", ""), ["host", "target", "both"]),
    (("record", "--role", "t"), ["target"]),
    (("check", "-t", ""), ["tcp", "rdma"]),
    (("record", "--transport", "r"), ["rdma"]),
    (("report", "-S", ""), ["summary", "detail"]),
    (("compare", "--stages", "d"), ["detail"]),
    (("compare", "--stat", ""), ["mean", "p50", "p90", "p99", "p99.9"]),
    (("report", "--sort", "p99"), ["p99", "p99.9"]),
    (("report", "-F", "s"), ["share", "stddev"]),
    (("dump", "--io-type", "w"), ["write"]),
])
def test_value__the_options_words(complete, words, offered):
    assert complete(*words) == offered


def test_value_list__completes_after_the_last_comma(complete):
    assert complete("compare", "--stat", "mean,p9") == ["mean,p90", "mean,p99", "mean,p99.9"]
    assert complete("report", "--io-type", "read,o") == ["read,other"]


@pytest.mark.parametrize("words", [
    ("check", "--transport", "=", ""),      # bash split --transport= at the '='
    ("check", "--transport", "="),
    ("check", "--transport=",),             # COMP_WORDBREAKS without '=': one word
])
def test_value_after_equals__the_options_words(complete, words):
    offered = complete(*words)
    prefix = words[-1] if words[-1].startswith("--") else ""
    assert offered == [prefix + "tcp", prefix + "rdma"]


def test_value_after_equals_and_prefix(complete):
    assert complete("check", "--transport", "=", "r") == ["rdma"]
    assert complete("check", "--transport=r") == ["--transport=rdma"]


def test_value_of_short_option_in_a_cluster(complete):
    assert complete("record", "-vr", "") == ["host", "target", "both"]
    assert complete("record", "-vs", "") == []          # a number: nothing to offer


def test_value_of_number_or_name__nothing(complete):
    assert complete("record", "-s", "") == []
    assert complete("series", "--interval", "") == []
    assert complete("report", "--session", "") == []


def test_value_of_file_option__any_file(complete):
    assert sorted(complete("report", "-j", "")) == ["host.ntp", "notes.txt", "runs"]
    assert complete("join", "--output", "n") == ["notes.txt"]


def test_values_offered__accepted_by_the_options_parser(run, script):
    """Every word offered for an option's value is one its parser accepts
    (the option then --help: exit 0 once the value parsed)."""
    checked = 0
    for (cmd, opt), spec in sorted(tables(script).items()):
        kind, *words = spec.split()
        if kind not in ("w", "l"):
            continue
        assert words, (cmd, opt, spec)
        for word in words:
            r = run(cmd, opt, word, "--help")
            assert r.returncode == Exit.OK and r.stderr == "", (cmd, opt, word, r.stderr)
            checked += 1
    assert checked > 40, checked


# ---- operands -------------------------------------------------------------------------------

def test_recordings__ntp_files_and_directories(complete):
    assert sorted(complete("report", "")) == ["host.ntp", "runs"]
    assert complete("compare", "-q", "h") == ["host.ntp"]


def test_recordings_after_a_files_option__recordings_again(complete):
    assert sorted(complete("report", "-j", "out.json", "")) == ["host.ntp", "runs"]
    assert sorted(complete("report", "--json=out.json", "")) == ["host.ntp", "runs"]


def test_recordings_after_comma__compares_pair(complete):
    assert complete("compare", "a.ntp,h") == ["a.ntp,host.ntp"]


def test_recordings_in_a_subdirectory(complete, files):
    (files / "runs" / "before.ntp").write_bytes(b"")
    assert complete("report", "runs/") == ["runs/before.ntp"]


def test_help__command_names_then_nothing(complete):
    assert complete("help", "") == NAMES
    assert complete("help", "rep") == ["report"]
    assert complete("help", "report", "") == []


def test_record_workload__a_command_then_its_files(complete):
    assert "true" in complete("record", "tru")
    assert "true" in complete("record", "--", "tru")
    assert "true" in complete("record", "-s", "10", "tru")
    assert sorted(complete("record", "fio", "")) == ["host.ntp", "notes.txt", "runs"]
    # the workload's own options are not record's
    assert complete("record", "fio", "--s") == []
