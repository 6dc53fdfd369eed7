"""The CI ratchet: ``pytest --quest-check`` / ``--quest-update`` on small pytester projects.

Runs go through ``runpytest_subprocess``: the plugin switches pytest-cov on,
and two coverage collectors in one process would stack.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_quest import ratchet
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger, now_iso, read_attempts, transaction
from pytest_quest.records import Evidence
from pytest_quest.sandbox import file_sha256
from pytest_quest.scan import scan
from pytest_quest.states import State

pytestmark = pytest.mark.slow

MOD = '''\
def covered(x):
    if x > 0:
        return "up"
    return "down"


def partial(x):
    y = 0
    if x > 0:
        y = 1
    return y


def other(x):
    return x * 2


def gone(x):
    return x - 1
'''

TESTS = '''\
from pkg.mod import covered, partial


def test_covered():
    assert covered(1) == "up"
    assert covered(-1) == "down"


def test_partial():
    assert partial(1) == 1
'''

QUEST_TEST = '''\
from pkg.mod import covered


def test_quest_covered():
    assert covered(2) == "up"
    assert covered(0) == "down"
'''


def make_project(pytester: pytest.Pytester, branch: bool = False,
                 lock: tuple[str, ...] = ("covered", "partial")) -> Path:
    """A scanned project (no baseline) with ``lock`` locked from a suite run."""
    root = pytester.path
    (root / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [tool.pytest.ini_options]
        testpaths = ["tests"]
        pythonpath = ["."]
        filterwarnings = ["error"]

        [tool.pytest-quest]
        sources = ["pkg"]
        branch = {"true" if branch else "false"}
        """), encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "mod.py").write_text(MOD, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text(TESTS, encoding="utf-8")
    scan(load_settings(root), baseline=False)
    for name in lock:
        set_quest(root, f"pkg/mod.py::{name}", evidence=Evidence.suite((), "", now_iso()))
    return root


def set_quest(root: Path, quest_id: str, evidence: Evidence | None = None,
              forge: bool = False) -> None:
    """Lock a TODO quest; ``forge`` writes PASS with no evidence, as a hand edit would."""
    with transaction(Ledger.for_root(root).path) as ledger:
        quest = ledger.get(quest_id)
        if forge:
            ledger.put(quest.with_(state=State.PASS, evidence=None))
        else:
            evidence = evidence or Evidence.suite((), "", now_iso())
            ledger.put(ratchet.lock_pass(quest, evidence, now_iso()))


def ledger_of(root: Path) -> Ledger:
    return Ledger.load(Ledger.for_root(root).path)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def lost_lines(result: pytest.RunResult) -> list[str]:
    """The ratchet's report lines, without the parts that vary between runs."""
    return [line for line in result.outlines if line.startswith(("LOST ", "  ["))]


def test_plain_pytest_does_not_register_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="""
        def test_plain(request):
            assert not request.config.pluginmanager.has_plugin("_quest")
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "quest ratchet" not in result.stdout.str()


def test_everything_covered_prints_one_line_and_keeps_exit_code(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--quest-check")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["quest ratchet: all 2 locked function(s) fully covered"])
    assert not (pytester.path / ".coverage").exists()  # our data lives in a temp dir


def test_lost_coverage_fails_naming_function_and_lines(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    tests = root / "tests" / "test_mod.py"
    tests.write_text(TESTS.replace('    assert covered(-1) == "down"\n', ""), encoding="utf-8")
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*quest ratchet: 1 of 2 locked function(s) no longer hold*",
        "LOST pkg/mod.py::covered",
        "  [[]coverage-lines[]] where: pkg/mod.py:4; expected: every line of covered (2-4)*;"
        " actual: lines 4 not executed",
    ])
    tests.write_text(TESTS, encoding="utf-8")
    assert run(pytester, "--quest-check").ret == 0


def test_failing_check_with_passing_tests_still_fails(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    (root / "tests" / "test_mod.py").write_text("def test_nothing():\n    pass\n",
                                                encoding="utf-8")
    result = run(pytester, "--quest-check")
    result.assert_outcomes(passed=1)
    assert result.ret == 1
    assert sorted(line for line in lost_lines(result) if line.startswith("LOST")) == [
        "LOST pkg/mod.py::covered", "LOST pkg/mod.py::partial"]


def test_locked_test_file_deleted_fails(pytester: pytest.Pytester) -> None:
    root = make_project(pytester, lock=())
    quest_test = root / "tests" / "quest" / "test_covered.py"
    quest_test.parent.mkdir(parents=True)
    quest_test.write_text(QUEST_TEST, encoding="utf-8")
    set_quest(root, "pkg/mod.py::covered",
              evidence=Evidence.submitted("tests/quest/test_covered.py",
                                          str(file_sha256(quest_test)), (), "", now_iso()))
    assert run(pytester, "--quest-check").ret == 0
    quest_test.unlink()
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "LOST pkg/mod.py::covered (locked test: tests/quest/test_covered.py)",
        "  [[]ratchet-test-missing[]] where: tests/quest/test_covered.py;*"
        "actual: the file is missing",
    ])


def test_update_locks_newly_covered_and_never_unlocks(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    before = ledger_of(root).remaining
    extra = root / "tests" / "test_other.py"
    extra.write_text("from pkg.mod import other\n\n\ndef test_other():\n"
                     "    assert other(2) == 4\n", encoding="utf-8")
    result = run(pytester, "--quest-update")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*locked 1 newly covered function(s): pkg/mod.py::other"])
    ledger = ledger_of(root)
    quest = ledger.get("pkg/mod.py::other")
    assert quest.state is State.PASS
    assert quest.evidence is not None
    assert quest.evidence.source == "suite"
    assert quest.evidence.covered_lines == (15,)
    assert quest.evidence.source_hash == quest.source_hash
    assert ledger.remaining == before - 1
    assert [a.kind for a in read_attempts(ledger, "pkg/mod.py::other")] == ["suite-lock"]
    # The test goes away: the update run fails and the lock stays.
    extra.unlink()
    result = run(pytester, "--quest-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["LOST pkg/mod.py::other"])
    after = ledger_of(root)
    assert after.get("pkg/mod.py::other").state is State.PASS
    assert after.remaining == before - 1


def test_update_locks_nothing_from_a_failing_suite(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    (root / "tests" / "test_other.py").write_text(
        "from pkg.mod import other\n\n\ndef test_other():\n    assert other(2) == 5\n",
        encoding="utf-8")
    result = run(pytester, "--quest-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*nothing locked: 1 test(s) failed*"])
    assert ledger_of(root).get("pkg/mod.py::other").state is State.TODO


@pytest.mark.parametrize("broken", [False, True])
def test_xdist_gives_the_serial_verdict(pytester: pytest.Pytester, broken: bool) -> None:
    # pytest-xdist is a test dependency (pyproject [test]): no importorskip, a missing one fails.
    root = make_project(pytester, branch=broken)  # branch mode: partial loses 9->11
    if broken:
        (root / "tests" / "test_mod.py").write_text(
            TESTS.replace('    assert covered(-1) == "down"\n', ""), encoding="utf-8")
    serial = run(pytester, "--quest-check")
    parallel = run(pytester, "--quest-check", "-n", "2")
    assert serial.ret == parallel.ret == (1 if broken else 0)
    assert lost_lines(serial) == lost_lines(parallel)
    assert bool(lost_lines(serial)) is broken


def test_branch_mode_reports_lost_branches(pytester: pytest.Pytester) -> None:
    make_project(pytester, branch=True)
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "LOST pkg/mod.py::partial",
        "  [[]coverage-branches[]] where: pkg/mod.py:9;*actual: branches 9->11 not taken",
    ])


def test_hand_forged_pass_is_caught(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    set_quest(root, "pkg/mod.py::other", forge=True)
    set_quest(root, "pkg/mod.py::gone",
              evidence=Evidence.submitted("tests/test_mod.py", "", [19], "", now_iso()))
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "LOST pkg/mod.py::other",
        "  [[]ratchet-no-evidence[]]*locked without evidence*",
        "  [[]coverage-lines[]] where: pkg/mod.py:15;*",
        "LOST pkg/mod.py::gone (locked test: tests/test_mod.py)",
        "  [[]coverage-lines[]] where: pkg/mod.py:19;*",
    ])


def test_works_with_pytest_cov_active(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    result = run(pytester, "--quest-check", "--cov=pkg", "--cov-report=term")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*tests coverage*", "quest ratchet: all 2 locked*"])
    (root / "tests" / "test_mod.py").write_text(
        TESTS.replace('    assert covered(-1) == "down"\n', ""), encoding="utf-8")
    for extra in ((), ("-n", "2")):
        result = run(pytester, "--quest-check", "--cov=pkg", *extra)
        assert result.ret == 1
        result.stdout.fnmatch_lines(["LOST pkg/mod.py::covered", "*actual: lines 4 not executed"])


def test_works_with_a_paths_section_in_the_coverage_config(pytester: pytest.Pytester) -> None:
    """yarl 1.25.1: ``[paths]`` and ``relative_files`` in its .coveragerc, ``--cov`` in its
    addopts.

    pytest-cov saves the run to the configured data file, then its terminal report remaps
    the data through ``[paths]`` into an in-memory database, which is what the ratchet
    asked for the file name: it read nothing ("pytest-cov recorded no coverage data for
    this run"). Read from the right file, the data names files relative to the root, which
    the ratchet looked up as absolute paths: every lock read as lost.
    """
    root = make_project(pytester)
    (root / ".coveragerc").write_text(
        "[run]\nparallel = true\nbranch = true\nrelative_files = true\n\n"
        "[paths]\nsource =\n    pkg\n    */site-packages/pkg\n", encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'filterwarnings = ["error"]',
        'filterwarnings = ["error"]\n'
        'addopts = "--cov=pkg --cov-config=.coveragerc --cov-context=test"'),
        encoding="utf-8")
    for extra in ((), ("-n", "2")):
        result = run(pytester, "--quest-check", *extra)
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(["quest ratchet: all 2 locked*"])


def test_changed_function_keeps_its_lock_and_says_it_changed(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    mod = root / "pkg" / "mod.py"
    mod.write_text(MOD.replace('    return "down"\n',
                               '    if x < -10:\n        return "deep"\n    return "down"\n'),
                   encoding="utf-8")
    result = run(pytester, "--quest-check")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "LOST pkg/mod.py::covered",
        "*actual: lines 5 not executed (the function changed since it was locked: source hash *",
    ])


def test_deleted_function_is_a_notice_not_a_failure(pytester: pytest.Pytester) -> None:
    root = make_project(pytester, lock=("covered", "partial", "gone"))
    (root / "tests" / "test_mod.py").write_text(
        TESTS + "\n\nfrom pkg.mod import gone\n\n\ndef test_gone():\n    assert gone(1) == 0\n",
        encoding="utf-8")
    assert run(pytester, "--quest-check").ret == 0
    mod = root / "pkg" / "mod.py"
    mod.write_text(MOD.split("def gone")[0], encoding="utf-8")
    (root / "tests" / "test_mod.py").write_text(TESTS, encoding="utf-8")
    result = run(pytester, "--quest-check")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*1 locked function(s) no longer exist (run `pytest-quest scan`"
                                 " to retire them): pkg/mod.py::gone"])


def test_json_report_and_ledger_elsewhere(pytester: pytest.Pytester) -> None:
    root = make_project(pytester, branch=True)
    moved = root / "elsewhere.json"
    Ledger.for_root(root).path.rename(moved)
    result = run(pytester, "--quest-check", "--quest-ledger", "elsewhere.json",
                 "--quest-json", "verdict.json")
    assert result.ret == 1
    data = json.loads((root / "verdict.json").read_text(encoding="utf-8"))
    assert data["ok"] is False
    assert data["checked"] == 2
    assert [p["quest"] for p in data["problems"]] == ["pkg/mod.py::partial"]
    assert data["problems"][0]["facts"][0]["rule"] == "coverage-branches"


def test_missing_ledger_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, "--quest-check")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pytest-quest: no ledger at*"])


def test_no_cov_cannot_verify(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--quest-check", "--no-cov")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*quest ratchet: cannot verify*", "*disabled by --no-cov*"])


def test_unimported_source_is_a_fact_not_a_warning(pytester: pytest.Pytester) -> None:
    root = make_project(pytester)
    (root / "tests" / "test_mod.py").write_text("def test_nothing():\n    pass\n",
                                                encoding="utf-8")
    result = run(pytester, "--quest-check", "-W", "error")
    assert result.ret == 1
    # A source folder is measured whole, so a never-imported file counts as not executed.
    result.stdout.fnmatch_lines(["  [[]coverage-lines[]] where: pkg/mod.py:2-4;*"])
    assert "Warning" not in result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str()
