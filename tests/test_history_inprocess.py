"""``--quest-base``, narrowed runs and ``--quest-update``'s quest folder, in-process.

The same scenarios as test_history_git / test_history_locks, run by pytester
in this process so the plugin's own lines are measured (see
docs/development.md: subprocess runs of the ratchet are not).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_quest.config import load_settings
from pytest_quest.gitbase import BaseRefError, check_history
from pytest_quest.ledger import Ledger, transaction
from pytest_quest.scan import scan
from pytest_quest.states import State
from tests.test_plugin import make_project, set_quest
from tests.test_plugin_inprocess import run

pytestmark = pytest.mark.slow  # git and pytester runs


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Ann", "-c", "user.email=ann@example.org",
                    "-c", "commit.gpgsign=false", *args], cwd=root, check=True,
                   capture_output=True)


def committed(pytester: pytest.Pytester) -> Path:
    root = make_project(pytester)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_a_pass_set_back_fails_against_the_base(pytester: pytest.Pytester) -> None:
    root = committed(pytester)
    with transaction(Ledger.for_root(root).path) as ledger:
        ledger.put(ledger.get("pkg/mod.py::covered").with_(state=State.TODO, evidence=None))
    result = run(pytester, "--quest-check", "--quest-base", "main")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*quest ratchet: the ledger went back against main: 1 violation(s)*",
        "  [[]history-pass-lost[]] where: pkg/mod.py::covered; *PASS -> TODO*",
    ])


def test_a_deleted_function_is_a_notice(pytester: pytest.Pytester) -> None:
    root = committed(pytester)
    source = root / "pkg" / "mod.py"
    set_quest(root, "pkg/mod.py::gone")
    git(root, "commit", "-q", "-am", "lock gone")
    source.write_text(source.read_text().replace("def gone(x):\n    return x - 1\n", ""))
    scan(load_settings(root), baseline=False)  # retires it
    result = run(pytester, "--quest-check", "--quest-base=main")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*quest ratchet: history checked against main: the ledger only moved forward*",
        "  notice [[]history-retired[]] where: pkg/mod.py::gone;*",
    ])


def test_unreadable_base_is_a_usage_error(pytester: pytest.Pytester) -> None:
    committed(pytester)
    result = run(pytester, "--quest-check", "--quest-base=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--quest-base nope: no such commit or branch*"])


def test_history_not_checked_is_said(pytester: pytest.Pytester,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester)
    monkeypatch.delenv("GITHUB_BASE_REF", raising=False)
    result = run(pytester, "--quest-check")
    result.stdout.fnmatch_lines(["*quest ratchet: history not checked: no --quest-base given*"])


def test_narrowed_run_skips_the_suite_locks(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "--quest-check", "-k", "test_partial")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*quest ratchet: narrowed run (-k): judged the 0 lock(s) whose test ran, skipped 2*"])


def test_a_selection_in_the_projects_addopts_is_not_a_narrowed_run(
        pytester: pytest.Pytester) -> None:
    """click 8.5.1 keeps ``addopts = "-m 'not stress'"``: that is how its suite always runs
    (the baseline's too), so ``--quest-check`` must judge every lock, not skip them all."""
    root = make_project(pytester)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'filterwarnings = ["error"]',
        'filterwarnings = ["error"]\naddopts = "-m \'not stress\'"\n'
        'markers = ["stress: long runs"]'), encoding="utf-8")
    (root / "tests" / "test_stress.py").write_text(
        "import pytest\n\n\n@pytest.mark.stress\ndef test_long():\n    assert False\n")
    result = run(pytester, "--quest-check")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*quest ratchet: all 2 locked function(s) fully covered*"])
    result.stdout.no_fnmatch_line("*narrowed run*")
    narrowed = run(pytester, "--quest-check", "-m", "not stress and not slow", "-k", "partial")
    narrowed.stdout.fnmatch_lines(["*quest ratchet: narrowed run (-k)*"])
    by_marker = run(pytester, "--quest-check", "-m", "stress")
    by_marker.stdout.fnmatch_lines(["*quest ratchet: narrowed run (-m)*"])


def test_update_leaves_out_unjudged_quest_folder_tests(pytester: pytest.Pytester) -> None:
    root = make_project(pytester, lock=())
    folder = root / "tests" / "quest"
    folder.mkdir()
    (folder / "test_scratch.py").write_text("from pkg.mod import other\n\n\n"
                                            "def test_scratch():\n    other(3)\n")
    result = run(pytester, "--quest-update")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*left out 1 quest-folder test file(s) no PASS was locked by: test_scratch.py*"])
    ledger = Ledger.load(Ledger.for_root(root).path)
    assert ledger.get("pkg/mod.py::covered").state is State.PASS  # tests/test_mod.py covers it
    assert ledger.get("pkg/mod.py::other").state is State.TODO  # only the scratch file does


def test_ledger_with_a_space_outside_keeps_rootdir(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path_factory: pytest.TempPathFactory
                                                   ) -> None:
    root = make_project(pytester)
    (root / "tests" / "conftest.py").write_text("import pkg.mod  # needs pythonpath\n")
    outside = tmp_path_factory.mktemp("elsewhere")
    shutil.copy(Ledger.for_root(root).path, outside / "ledger.json")
    monkeypatch.chdir(root / "tests")
    result = run(pytester, "--quest-check", "--quest-ledger", str(outside / "ledger.json"),
                 "--quest-json", str(outside / "out.json"))
    assert result.ret == 0, result.stdout.str()
    assert json.loads((outside / "out.json").read_text())["checked"] == 2


def test_check_history_edge_cases(tmp_path: Path) -> None:
    with pytest.raises(BaseRefError, match="is not inside a git repository"):
        check_history(tmp_path, tmp_path / ".quest" / "ledger.json", "main")
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "pyproject.toml").write_text("not = [toml\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "no ledger yet")
    Ledger.for_root(tmp_path).save()
    done = check_history(tmp_path, Ledger.for_root(tmp_path).path, "main")
    assert done.ok and done.note == "no ledger at main: every quest is new"
    (tmp_path / "sub").mkdir()
    with pytest.raises(BaseRefError, match="outside the project"):
        check_history(tmp_path / "sub", Ledger.for_root(tmp_path).path, "main")
    Ledger.for_root(tmp_path).path.write_text("{broken")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "broken ledger")
    with pytest.raises(BaseRefError, match="the ledger at main is not JSON"):
        check_history(tmp_path, Ledger.for_root(tmp_path).path, "main")
