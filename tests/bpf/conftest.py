# SPDX-License-Identifier: GPL-2.0
"""BPF tests on this machine's own kernel.  They share everything of
tests/integration's conftest (run, ntprof, Exit, assert_ok, the --ntprof option,
the bpf/root markers): it is loaded under another module name and re-exported,
so `from conftest import ...` means the same in both directories, whichever
one pytest imported first."""
import importlib.util
from pathlib import Path

_path = Path(__file__).resolve().parents[1] / "integration" / "conftest.py"
_spec = importlib.util.spec_from_file_location("ntp_integration_conftest", _path)
_ic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ic)
globals().update({k: v for k, v in vars(_ic).items() if not k.startswith("__")})


def pytest_addoption(parser):  # noqa: F811 (wraps the integration one)
    try:
        _ic.pytest_addoption(parser)
    except ValueError:
        pass    # tests/integration's conftest, in the same session, added --ntprof
