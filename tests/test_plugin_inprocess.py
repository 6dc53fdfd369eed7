"""The ratchet plugin in-process: the same checks as test_plugin, without a subprocess.

pytester's in-process runs nest the inner pytest-cov collector inside the
outer one (started after it, stopped before it), which coverage supports; the
subprocess tests in test_plugin.py cover xdist and the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_quest.ledger import Ledger
from tests.test_plugin import make_project


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # In-process, pytest_quest is already imported by the outer session; the
    # project's ``filterwarnings = error`` must not turn pytest's notice about
    # that into an error.
    return pytester.runpytest("-p", "no:cacheprovider",
                              "-W", "ignore::pytest.PytestAssertRewriteWarning", *args)


def test_holding_locks_print_one_line(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--quest-check")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*quest ratchet: all 2 locked function(s) fully covered*"])


def test_lost_coverage_fails_the_run(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    tests = root / "tests" / "test_mod.py"
    tests.write_text(tests.read_text().replace('    assert covered(-1) == "down"\n', ""))
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*pkg/mod.py::covered*", "*pkg/mod.py:4*"])


def test_update_locks_what_the_suite_covers(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    (root / "tests" / "test_other.py").write_text(
        "from pkg.mod import other\n\n\ndef test_other():\n    assert other(2) == 4\n")
    result = run(pytester, "--quest-update")
    assert result.ret == 0
    ledger = Ledger.load(Ledger.for_root(Path(root)).path)
    assert ledger.get("pkg/mod.py::other").state.value == "PASS"


def test_without_pytest_cov_nothing_can_be_verified(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--quest-check", "-p", "no:pytest_cov")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*pytest-cov is not active*"])


#: A conftest that prints who measures while the tests run: a sys.monitoring tool, or a
#: trace function (``core: SysMonitor`` or ``core: CTracer``).
SAYS_CORE = (
    "import sys\n\n\n"
    "def pytest_collection_finish(session):\n"
    "    monitoring = getattr(sys, 'monitoring', None)\n"
    "    tools = [monitoring.get_tool(i) for i in range(6)] if monitoring else []\n"
    "    print('core:', 'SysMonitor' if 'coverage.py' in tools\n"
    "          else type(sys.gettrace()).__name__)\n"
)


@pytest.mark.parametrize("branch", [False, True])
def test_the_ratchet_measures_through_sys_monitoring_where_it_can(
        pytester: pytest.Pytester, branch: bool) -> None:
    make_project(pytester, branch=branch, lock=("covered",))
    pytester.makeconftest(SAYS_CORE)
    result = run(pytester, "--quest-check", "-s")
    assert result.ret == 0
    # sys.monitoring on 3.12+ for lines; for branches only from 3.14 (measure.coverage_core).
    sysmon = sys.version_info >= ((3, 14) if branch else (3, 12))
    result.stdout.fnmatch_lines([f"core: {'SysMonitor' if sysmon else 'CTracer'}"])


def test_an_update_measures_with_a_core_that_records_each_test(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--quest-update`` locks through the project's own tests only, so it needs coverage's
    per-test contexts, which sys.monitoring does not record (on 3.12 and 3.13 coverage.py
    warned at every test and ``filterwarnings = error`` failed them): the C tracer, even
    where a COVERAGE_CORE in the environment asks for sys.monitoring."""
    pytester.makeconftest(SAYS_CORE)
    if sys.version_info >= (3, 12):
        monkeypatch.setenv("COVERAGE_CORE", "sysmon")
    root = make_project(pytester, lock=())
    result = run(pytester, "--quest-update", "-s")  # the project has filterwarnings = error
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["core: CTracer"])
    ledger = Ledger.load(Ledger.for_root(Path(root)).path)
    assert ledger.get("pkg/mod.py::covered").state.value == "PASS"
