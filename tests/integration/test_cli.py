# SPDX-License-Identifier: GPL-2.0
"""The command line as a whole: dispatch, global options, help, version, exit
codes, and the agreement between each command's --help and its man page."""

import json
import re
import subprocess

import pytest

from conftest import Exit, REPO, assert_ok

DOC = REPO / "Documentation"


def table_commands():
    """(name, summary) rows of commands[] in cmd/ntprof.c, read from the source
    so tests can be parametrized per command at collection time; the tests
    below check that the binary lists exactly these."""
    src = (REPO / "cmd" / "ntprof.c").read_text()
    rows = re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*cmd_\w+,\s*"([^"]*)"', src)
    assert rows, "no commands[] rows found in cmd/ntprof.c"
    return rows


COMMANDS = table_commands()
NAMES = [name for name, _ in COMMANDS]


def listed_commands(text):
    """{name: summary} from the command list of `ntprof help`."""
    part = text.split("\ncommands:\n", 1)
    assert len(part) == 2, f"no command list in:\n{text}"
    found = {}
    for line in part[1].splitlines():
        m = re.match(r"^ {2,}([a-z][a-z0-9-]*) {2,}(\S.*)$", line)
        if not m:
            break
        found[m.group(1)] = m.group(2)
    return found


# ---- options in --help and in the man pages ----------------------------------

OPTION_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)")
# -h/--help is handled by the parser for every command and documented once, in ntprof(1)
IMPLICIT = {"-h", "--help"}


def help_options(text):
    """Option names on the option lines of a --help text."""
    opts = set()
    for line in text.splitlines():
        if not re.match(r"^ {4,}-", line):
            continue
        spec = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        opts.update(OPTION_TOKEN.findall(spec))
    return opts - IMPLICIT


def rst_sections(text):
    """{TITLE: [lines]} of the top-level sections, nested ones included in their parent."""
    lines = text.splitlines()
    heads = []
    for i in range(len(lines) - 1):
        title, under = lines[i].rstrip(), lines[i + 1].rstrip()
        if (title and not title[0].isspace() and re.fullmatch(r"([=\-~^\"'`#*+])\1*", under)
                and len(under) >= len(title) and not re.fullmatch(r"([=\-~^\"'`#*+])\1*", title)):
            heads.append((i, title, under[0]))
    sections = {}
    for k, (i, title, char) in enumerate(heads):
        end = len(lines)
        for j, _, c in heads[k + 1:]:
            if c == char:
                end = j
                break
        sections[title.upper()] = lines[i + 2:end]
    return sections


def strip_markup(s):
    return re.sub(r"[*`\\]", "", s)


def term_lines(body, start):
    """Lines of a definition or option list that begin with `start` (a regex)
    at the list's own indentation, so descriptions that mention other options
    are not taken for terms."""
    cand = [(len(line) - len(line.lstrip()), strip_markup(line.strip()))
            for line in body if line.strip()]
    cand = [(ind, s) for ind, s in cand if re.match(start, s)]
    if not cand:
        return []
    base = min(ind for ind, _ in cand)
    return [s for ind, s in cand if ind == base]


def doc_options(page):
    sections = rst_sections(page.read_text())
    assert "OPTIONS" in sections, f"{page.name} has no OPTIONS section"
    opts = set()
    for term in term_lines(sections["OPTIONS"], r"--?[A-Za-z0-9]"):
        # an option list puts the description after two spaces on the same line
        spec = re.split(r"\s{2,}", term, maxsplit=1)[0]
        opts.update(OPTION_TOKEN.findall(spec))
    return opts - IMPLICIT


def doc_summary(page):
    """The NAME line's summary: rst2man's subtitle, or an explicit NAME section."""
    text = page.read_text()
    sections = rst_sections(text)
    if "NAME" in sections:
        line = " ".join(s.strip() for s in sections["NAME"] if s.strip())
        return strip_markup(line).split(" - ", 1)[-1].strip()
    m = re.search(r"^(-{3,})\n(.+)\n\1\s*$", text, re.M)
    assert m, f"{page.name}: no subtitle (the NAME line's summary)"
    return m.group(2).strip()


# ---- dispatch ----------------------------------------------------------------

def test_no_arguments__usage_and_commands_on_stderr__usage_error(run):
    r = run()
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    assert r.stderr.startswith("usage: ntprof ")
    assert set(listed_commands(r.stderr)) == set(NAMES)


def test_unknown_command__one_line_with_suggestion(run):
    r = run("reprot", "x.ntp")
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    assert r.stderr == "ntprof: error: unknown command 'reprot'; did you mean 'report'?\n"


def test_unknown_command_far_from_all__one_line_no_suggestion(run):
    r = run("frobnicate")
    assert r.returncode == Exit.USAGE
    assert len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("ntprof: error: unknown command 'frobnicate'")
    assert "did you mean" not in r.stderr


def test_command_prefix__not_run(run):
    r = run("vers")
    assert r.returncode == Exit.USAGE
    assert r.stderr == "ntprof: error: unknown command 'vers'; did you mean 'version'?\n"


def test_unknown_global_option__one_line(run):
    r = run("--foo", "version")
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    assert r.stderr == "ntprof: error: unknown option '--foo'\n"


def test_mistyped_global_option__suggestion(run):
    r = run("--verbos", "version")
    assert r.returncode == Exit.USAGE
    assert r.stderr == "ntprof: error: unknown option '--verbos'; did you mean '--verbose'?\n"


@pytest.mark.parametrize("cmd", NAMES)
def test_unknown_option__one_line_naming_it(run, cmd):
    r = run(cmd, "--no-such-option")
    assert r.returncode == Exit.USAGE
    assert r.stdout == ""
    assert r.stderr == f"ntprof {cmd}: error: unknown option '--no-such-option'\n"


@pytest.mark.parametrize("args", [("-v",), ("-vv",), ("--verbose", "-v")])
def test_verbose_before_command__accepted(run, args):
    assert_ok(run(*args, "version"))


# ---- help --------------------------------------------------------------------

def test_help__lists_every_command_with_its_summary(run):
    r = run("help")
    assert_ok(r)
    assert listed_commands(r.stdout) == dict(COMMANDS)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_global_help__same_as_help(run, flag):
    r = run(flag)
    assert_ok(r)
    assert r.stdout == run("help").stdout


@pytest.mark.parametrize("cmd", NAMES)
def test_help_command__same_text_as_command_help(run, cmd):
    a, b = run("help", cmd), run(cmd, "--help")
    assert_ok(a)
    assert_ok(b)
    assert a.stdout == b.stdout
    assert a.stdout.startswith(f"usage: ntprof {cmd}")
    assert run(cmd, "-h").stdout == a.stdout


def test_help_unknown_command__suggestion(run):
    r = run("help", "reprot")
    assert r.returncode == Exit.USAGE
    assert r.stderr == "ntprof help: error: unknown command 'reprot'; did you mean 'report'?\n"


def test_help_two_commands__usage_error(run):
    r = run("help", "record", "report")
    assert r.returncode == Exit.USAGE
    assert len(r.stderr.splitlines()) == 1


# ---- version -----------------------------------------------------------------

def header_int(path, name):
    m = re.search(rf"^#define\s+{name}\s+(\d+)", path.read_text(), re.M)
    assert m, f"{name} not in {path}"
    return int(m.group(1))


VERSION_LINES = [
    ("ntprof_version", r"ntprof version (\S+)(?: \(git \S+\))?"),
    ("schema_version", r"schema version (\d+)"),
    ("sampling_hash_version", r"sampling hash version (\d+)"),
    ("libbpf_version", r"libbpf version (\d+\.\d+)"),
    ("sqlite_version", r"SQLite version (\d+\.\d+\.\d+)"),
]


def version_text(run):
    r = run("version")
    assert_ok(r)
    lines = r.stdout.splitlines()
    assert len(lines) == len(VERSION_LINES), r.stdout
    values = {}
    for line, (key, pattern) in zip(lines, VERSION_LINES):
        m = re.fullmatch(pattern, line)
        assert m, f"{line!r} does not match {pattern!r}"
        values[key] = m.group(1)
    return values


def test_version_text__versions_from_the_headers(run):
    v = version_text(run)
    assert int(v["schema_version"]) == header_int(REPO / "lib" / "ntp" / "db_schema.h", "NTP_DB_SCHEMA_VERSION")
    assert int(v["sampling_hash_version"]) == header_int(REPO / "bpf" / "ntp_hash.h", "NTP_HASH_VERSION")
    # the schema file is the single source of the version a recording carries
    m = re.search(r"user_version\s*=\s*(\d+)", (REPO / "schema" / "ntp.sql").read_text())
    assert m and int(m.group(1)) == int(v["schema_version"])


def release_version():
    text = (REPO / "VERSION").read_text()
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?\n", text), f"VERSION: {text!r}"
    return text.strip()


def test_version_text__release_version_from_the_file_then_git(run):
    first = run("version").stdout.splitlines()[0]
    m = re.fullmatch(r"ntprof version (\S+)(?: \(git (\S+)\))?", first)
    assert m and m.group(1) == release_version(), first
    # built from a checkout (the tests run in one): git describe's hash beside it
    if (REPO / ".git").exists():
        assert m.group(2) and re.search(r"(^|-g)[0-9a-f]{7,}(-dirty)?$", m.group(2)), first


@pytest.mark.parametrize("flag", ["--json", "-j"])
def test_version_json__one_document_matching_the_text(run, flag):
    r = run("version", flag)
    assert_ok(r)
    doc = json.loads(r.stdout)
    assert list(doc)[:3] == ["ntprof_version", "schema_version", "command"]
    assert doc["command"] == "version"
    text = version_text(run)
    assert doc["ntprof_version"] == text["ntprof_version"]
    assert doc["schema_version"] == int(text["schema_version"])
    assert doc["sampling_hash_version"] == int(text["sampling_hash_version"])
    assert doc["libbpf_version"] == text["libbpf_version"]
    assert doc["sqlite_version"] == text["sqlite_version"]
    assert doc["ntprof_version"] == release_version()
    first = run("version").stdout.splitlines()[0]
    assert first == (f"ntprof version {release_version()} (git {doc['git_describe']})"
                     if doc["git_describe"] else f"ntprof version {release_version()}")


def test_version_operand__usage_error(run):
    r = run("version", "extra")
    assert r.returncode == Exit.USAGE
    assert r.stderr == "ntprof version: error: unexpected argument 'extra'\n"


def test_global_version__first_line_of_version(run):
    r = run("--version")
    assert_ok(r)
    assert r.stdout == run("version").stdout.splitlines(keepends=True)[0]


# ---- output that cannot be written -------------------------------------------

@pytest.mark.parametrize("args", [("help",), ("version",), ("version", "--json"), ("--version",),
                                  ("help", "version")])
def test_stdout_on_full_disk__runtime_failure(ntprof, args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([str(ntprof), *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == Exit.FAILURE
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and "No space left on device" in lines[0], r.stderr


# ---- the documentation agrees with the binary ---------------------------------

@pytest.mark.parametrize("cmd", NAMES)
def test_man_page_options__equal_help_options(run, cmd):
    page = DOC / f"ntprof-{cmd}.rst"
    assert page.is_file(), f"{page.relative_to(REPO)} is missing"
    r = run(cmd, "--help")
    assert_ok(r)
    in_help, in_doc = help_options(r.stdout), doc_options(page)
    assert in_help == in_doc, (f"only in --help: {sorted(in_help - in_doc)}; "
                               f"only in {page.name}: {sorted(in_doc - in_help)}")


@pytest.mark.parametrize("cmd", NAMES)
def test_man_page_name__is_the_help_summary(cmd):
    page = DOC / f"ntprof-{cmd}.rst"
    assert page.is_file(), f"{page.relative_to(REPO)} is missing"
    assert doc_summary(page) == dict(COMMANDS)[cmd]


def option_letters(text):
    """{"-x": "--long"} from the option lines of a --help text."""
    return dict(re.findall(r"^ {4,}(-[A-Za-z0-9]), (--[\w-]+)", text, re.M))


# the one letter with two meanings, and why: ntprof(1), OPTIONS
TWO_MEANINGS = {"-t": {"--transport", "--field-separator"}}


def test_option_letters__one_meaning_across_commands(run):
    longs = {}
    for args in [("--help",)] + [("help", cmd) for cmd in NAMES]:
        r = run(*args)
        assert_ok(r)
        for short, long in option_letters(r.stdout).items():
            longs.setdefault(short, set()).add(long)
    bad = {s: l for s, l in longs.items() if len(l) > 1 and TWO_MEANINGS.get(s) != l}
    assert not bad, f"letters with several meanings, not documented in ntprof(1): {bad}"
    page = (DOC / "ntprof.rst").read_text()
    for short, names in TWO_MEANINGS.items():
        para = next(p for p in page.split("\n\n") if f"**{short}** is" in p)
        assert all(f"**{n}**" in para for n in names), para


def test_global_options__equal_ntprof_man_page(run):
    r = run("--help")
    assert_ok(r)
    assert help_options(r.stdout) == doc_options(DOC / "ntprof.rst")


def test_ntprof_man_page__lists_every_command(run):
    sections = rst_sections((DOC / "ntprof.rst").read_text())
    documented = set(term_lines(sections["COMMANDS"], r"[a-z][a-z0-9-]*$"))
    assert documented == set(NAMES)


def test_exit_codes__documented_equal_lib_exit_h():
    sections = rst_sections((DOC / "ntprof.rst").read_text())
    assert "EXIT STATUS" in sections
    documented = {int(t) for t in term_lines(sections["EXIT STATUS"], r"\d+$")}
    assert documented == {int(e) for e in Exit}
