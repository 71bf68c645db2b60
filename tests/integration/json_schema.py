# SPDX-License-Identifier: GPL-2.0
"""The JSON Schemas of schema/ (report -j, compare -j), and the check that
conftest.py's run fixture applies to every document a test makes ntprof
write: stdout with -j -, the file with -j FILE.  A document that does not
validate fails the test that produced it, whatever that test checks.

    from json_schema import validate
    validate("report", doc)
"""

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = {cmd: REPO / "schema" / f"{cmd}.schema.json" for cmd in ("report", "compare")}
# record ends with the report of what it recorded, the same document
DOCUMENT_OF = {"report": "report", "record": "report", "compare": "compare"}

_validators = {}
# how many documents were validated, per command (test_json_schema.py reads it)
validated = {"report": 0, "compare": 0}


def validator(cmd):
    if cmd not in _validators:
        try:
            import jsonschema
        except ImportError:
            pytest.fail("python3-jsonschema is missing (make deps installs it)", pytrace=False)
        schema = json.loads(SCHEMAS[cmd].read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        _validators[cmd] = jsonschema.Draft202012Validator(schema)
    return _validators[cmd]


def validate(cmd, doc):
    """Raise AssertionError naming every place where doc breaks cmd's schema."""
    errors = list(validator(cmd).iter_errors(doc))
    # a document that is neither: name what breaks the one it means to be
    for e in list(errors):
        if e.validator == "oneOf" and e.context:
            # oneOf's first choice is the command's document, its second the error's
            want = 1 if isinstance(doc, dict) and "error" in doc else 0
            errors.remove(e)
            errors += [c for c in e.context if c.schema_path[0] == want] or e.context
    errors.sort(key=lambda e: list(map(str, e.absolute_path)))
    assert not errors, f"{cmd} -j output breaks schema/{cmd}.schema.json:\n" + "\n".join(
        f"  at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}"
        for e in errors[:20])
    validated[cmd] += 1


def json_target(args):
    """The -j/--json value of a command line, or None."""
    for i, a in enumerate(args):
        if a in ("-j", "--json") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--json="):
            return a.split("=", 1)[1]
        if a.startswith("-j") and len(a) > 2 and not a.startswith("--"):
            return a[2:]
        if a == "--":
            break
    return None


def _document(args):
    """(command whose schema applies, the -j value) of a command line, or None."""
    args = [str(a) for a in args]
    # global options (-v, --no-pager) may come before the command
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] not in DOCUMENT_OF:
        return None
    target = json_target(args[args.index(words[0]) + 1:])
    return None if target is None else (DOCUMENT_OF[words[0]], target)


def _stamp(path):
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def before_run(args):
    """What the -j FILE was before the run: a file ntprof did not write is not checked."""
    d = _document(args)
    return _stamp(Path(d[1])) if d and d[1] != "-" else None


def check_run(args, returncode, stdout, before=None):
    """After ntprof ran with args: validate the JSON document it wrote, if any."""
    d = _document(args)
    if d is None:
        return
    cmd, target = d
    if target == "-":
        text = stdout.decode("utf-8", "replace") if isinstance(stdout, bytes) else stdout
        if not text.strip():
            # only a bad command line the option parser refused leaves no document
            assert returncode != 0, f"{args}: exit 0 and no JSON on stdout"
            return
    else:
        path = Path(target)
        if not path.is_file() or _stamp(path) == before:
            # a device (/dev/null, /dev/full), a refused output place, or a file the
            # failed run left as it was
            return
        text = path.read_text(encoding="utf-8", errors="replace")
    validate(cmd, json.loads(text))
