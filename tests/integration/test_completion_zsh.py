# SPDX-License-Identifier: GPL-2.0
"""The zsh completion (contrib/completion/ntprof.zsh and the option tables
the binary prints for zsh): the installed file registers for ntprof with
compinit, and its function, run with zsh's completion builtins replaced by
functions that print what they are given, offers what the bash completion
offers: the commands, each command's --help options, the options' words,
recordings, a command name and a workload."""

import shutil
import subprocess

import pytest

from conftest import REPO, assert_ok
from test_cli import NAMES, help_options

ZSH = shutil.which("zsh")
pytestmark = pytest.mark.skipif(ZSH is None, reason="needs zsh (make deps)")
CONTRIB = REPO / "contrib" / "completion" / "ntprof.zsh"

# compadd prints the words that begin with PREFIX after IPREFIX; the others
# print what was asked of them
DRIVER = r'''
compadd() {
	while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done
	[[ $1 == -- ]] && shift
	local w
	for w in "$@"; do [[ $w == ${(b)PREFIX}* ]] && print -r -- "$IPREFIX$w"; done
}
_files() { print -r -- "FILES $*" }
_command_names() { print -r -- "COMMANDS" }
_message() { print -r -- "MESSAGE" }
words=(ntprof "$@")
CURRENT=$#words
PREFIX=$words[-1]
IPREFIX=''
source "$SCRIPT"
'''


@pytest.fixture(scope="module")
def script(ntprof):
    """The completion file the build made beside the binary (make completion)."""
    path = ntprof.parent / "completion" / "_ntprof"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `make completion` (make does)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def complete(script):
    def complete(*words):
        p = subprocess.run([ZSH, "-f", "-c", DRIVER, "zsh", *words], env={"SCRIPT": str(script)},
                           capture_output=True, text=True, timeout=60)
        # a completion function's status says whether it added matches: 0 or 1
        assert p.returncode in (0, 1) and p.stderr == "", (words, p.returncode, p.stderr)
        return [w for w in p.stdout.splitlines() if w]
    return complete


def test_script__the_functions_the_tables_the_call(run, script):
    r = run("help", "--completion-tables", "zsh")
    assert_ok(r)
    assert script.read_text() == CONTRIB.read_text() + r.stdout + '_ntprof_zsh "$@"\n'


def test_script__parses_and_compinit_registers_it(script):
    p = subprocess.run([ZSH, "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p
    p = subprocess.run([ZSH, "-f", "-c", 'fpath=("$1" $fpath); autoload -U compinit; '
                        'compinit -u -D; print -r -- $_comps[ntprof]', "zsh", str(script.parent)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "_ntprof\n", p


def test_commands__every_command_in_order(complete):
    assert complete("") == NAMES
    assert complete("re") == ["record", "report"]
    assert complete("-v", "rep") == ["report"]


@pytest.mark.parametrize("cmd", NAMES)
def test_options__those_of_the_commands_help(run, complete, cmd):
    offered = complete(cmd, "-")
    assert set(offered) == help_options(run(cmd, "--help").stdout) | {"-h", "--help"}
    assert len(offered) == len(set(offered))


@pytest.mark.parametrize("words, offered", [
    (("record", "-r", ""), ["host", "target", "both"]),
    (("top", "--by", ""), ["queue", "process", "cpu", "io_cpu"]),
    (("top", "--sort", "p"), ["p99"]),
    (("record", "-vr", ""), ["host", "target", "both"]),
    (("check", "--transport=r"), ["--transport=rdma"]),
    (("compare", "--stat", "mean,p9"), ["mean,p90", "mean,p99", "mean,p99.9"]),
    (("-v", "--no-pager", "report", "--io-type", "read,o"), ["read,other"]),
    (("record", "-s", ""), ["MESSAGE"]),
    (("top", "--input", ""), ["FILES "]),
    (("report", ""), ["FILES -g *.ntp"]),
    (("report", "-j", "x.json", ""), ["FILES -g *.ntp"]),
    (("help", ""), NAMES),
    (("help", "top", ""), []),
    (("record", ""), ["COMMANDS"]),
    (("record", "fio", "-"), ["FILES "]),
    (("nosuch", "-"), []),
])
def test_offered(complete, words, offered):
    assert complete(*words) == offered
