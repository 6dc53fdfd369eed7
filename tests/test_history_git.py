"""History in real git repositories: ``--quest-base``, ``check --base``, the merge driver.

Every tampering of a pull request that ``--quest-check`` alone lets through
(issue: the ratchet holds against the pull request itself) must fail against
the base branch with a precise fact; an honest branch must pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pytest_quest import ratchet
from pytest_quest.cli import cli
from pytest_quest.config import load_settings
from pytest_quest.gitbase import BaseRefError, auto_base, check_history
from pytest_quest.ledger import Ledger, now_iso, transaction
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


def doubled(x):
    return x * 2


def tripled(x):
    return x * 3
'''

LIB = '''\
def helper(x):
    return x + 1
'''

TESTS = '''\
from pkg.lib import helper
from pkg.mod import covered, doubled


def test_covered():
    assert covered(1) == "up"
    assert covered(-1) == "down"


def test_doubled():
    assert doubled(2) == 4


def test_helper():
    assert helper(1) == 2
'''

QUEST_TEST = '''\
from pkg.mod import covered


def test_quest_covered():
    assert covered(2) == "up"
    assert covered(0) == "down"
'''


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=Ann", "-c", "user.email=ann@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=root, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def lock(root: Path, name: str, test: str | None = None) -> None:
    """Lock ``pkg/mod.py::name`` as a submit (with its test) or a suite lock would."""
    evidence = Evidence.suite((), "", now_iso())
    if test is not None:
        evidence = Evidence.submitted(test, str(file_sha256(root / test)), (), "", now_iso())
    with transaction(Ledger.for_root(root).path) as ledger:
        ledger.put(ratchet.lock_pass(ledger.get(f"pkg/mod.py::{name}"), evidence, now_iso()))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository on ``main``: a scanned project with two locked quests, one by a test."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "tests" / "quest").mkdir(parents=True)
    (root / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.pytest.ini_options]
        testpaths = ["tests"]
        pythonpath = ["."]

        [tool.pytest-quest]
        sources = ["pkg"]
        """), encoding="utf-8")
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "mod.py").write_text(MOD, encoding="utf-8")
    (root / "pkg" / "lib.py").write_text(LIB, encoding="utf-8")
    (root / "tests" / "test_mod.py").write_text(TESTS, encoding="utf-8")
    (root / "tests" / "quest" / "test_covered.py").write_text(QUEST_TEST, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    scan(load_settings(root), baseline=False)
    lock(root, "covered", "tests/quest/test_covered.py")
    lock(root, "doubled")
    with transaction(Ledger.for_root(root).path) as ledger:
        ledger.put(ledger.get("pkg/mod.py::tripled").with_(tries=2))
    commit(root, "quests")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def pytest_run(root: Path, *args: str, env: dict[str, str] | None = None
               ) -> tuple[int, dict[str, Any], str]:
    out = root.parent / "verdict.json"
    out.unlink(missing_ok=True)
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("COVERAGE_", "GITHUB_", "PYTEST_ADDOPTS"))}
    environ.update(env or {})
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "--quest-check", f"--quest-json={out}", *args], cwd=root,
                          capture_output=True, text=True, env=environ, check=False)
    data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    return done.returncode, data, done.stdout + done.stderr


def edit_ledger(root: Path, change: Any) -> None:
    with transaction(Ledger.for_root(root).path) as ledger:
        change(ledger)


def set_state(ledger: Ledger, quest_id: str, **changes: Any) -> None:
    ledger.put(ledger.get(quest_id).with_(**changes))


def drop_pass(root: Path) -> None:
    (root / "tests" / "quest" / "test_covered.py").unlink()
    edit_ledger(root, lambda ledger: ledger.quests.pop("pkg/mod.py::covered"))


def pass_to_todo(root: Path) -> None:
    edit_ledger(root, lambda ledger: set_state(ledger, "pkg/mod.py::doubled",
                                               state=State.TODO, evidence=None))


def lower_tries(root: Path) -> None:
    edit_ledger(root, lambda ledger: set_state(ledger, "pkg/mod.py::tripled", tries=0))


def shrink_sources(root: Path) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('sources = ["pkg"]',
                                                       'sources = ["pkg/lib.py"]'))
    scan(load_settings(root), baseline=False)


def mutation_off(root: Path) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "mutation = false\n")


@pytest.mark.parametrize(("tamper", "rule", "where", "actual"), [
    (drop_pass, "history-quest-vanished", "pkg/mod.py::covered",
     "the quest (PASS) is missing from the ledger; covered is still defined in pkg/mod.py"),
    (pass_to_todo, "history-pass-lost", "pkg/mod.py::doubled",
     "PASS -> TODO with no review decision logged in .quest/attempts.jsonl"),
    (lower_tries, "history-tries-lowered", "pkg/mod.py::tripled", "tries 2 -> 0"),
    (shrink_sources, "history-scope-narrowed", "[tool.pytest-quest] sources",
     "sources: ['pkg'] -> ['pkg/lib.py'] (folders left out of the scan)"),
    (mutation_off, "history-scope-narrowed", "[tool.pytest-quest] mutation",
     "mutation: True -> False (turned off)"),
])
def test_each_tampering_fails_against_the_base(repo: Path, tamper: Any, rule: str, where: str,
                                               actual: str) -> None:
    tamper(repo)
    commit(repo, "tamper")
    code, _data, _out = pytest_run(repo)
    assert code == 0  # what the pull request alone shows: green
    code, data, out = pytest_run(repo, "--quest-base", "main")
    assert code == 1, out
    facts = {(f["rule"], f["where"]): f for f in data["history"]["violations"]}
    assert facts[(rule, where)]["actual"] == actual
    assert "the ledger went back against main" in out


def test_shrunk_sources_rescan_also_names_each_retired_pass(repo: Path) -> None:
    shrink_sources(repo)
    report = check_history(repo, Ledger.for_root(repo).path, "main").report
    lost = {f.where for f in report.violations if f.rule == "history-pass-lost"}
    assert lost == {"pkg/mod.py::covered", "pkg/mod.py::doubled"}


def test_honest_branch_locks_new_quests_and_retires_a_deleted_function(repo: Path) -> None:
    (repo / "pkg" / "mod.py").write_text(MOD.replace("def doubled(x):\n    return x * 2\n\n\n",
                                                     ""))
    (repo / "tests" / "test_mod.py").write_text(
        TESTS.replace(", doubled", "").replace(
            "def test_doubled():\n    assert doubled(2) == 4\n\n\n", ""))
    scan(load_settings(repo), baseline=False)
    with transaction(Ledger.for_root(repo).path) as ledger:
        quest = ledger.get("pkg/lib.py::helper")
        ledger.put(ratchet.lock_pass(quest, Evidence.suite((), "", now_iso()), now_iso()))
    commit(repo, "honest work")
    code, data, out = pytest_run(repo, "--quest-base=main")
    assert code == 0, out
    history = data["history"]
    assert history["ok"] and history["base"] == "main" and history["violations"] == []
    assert [(n["rule"], n["where"]) for n in history["notices"]] == [
        ("history-retired", "pkg/mod.py::doubled")]
    assert "history checked against main: the ledger only moved forward" in out


def test_without_a_base_the_run_says_history_was_not_checked(repo: Path) -> None:
    code, data, out = pytest_run(repo)
    assert code == 0 and data["history"]["checked"] is False
    assert "history not checked" in out


def test_github_pull_request_uses_the_fetched_base(repo: Path, tmp_path: Path) -> None:
    pass_to_todo(repo)
    commit(repo, "tamper")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    code, data, out = pytest_run(repo, env={"GITHUB_BASE_REF": "main"})
    assert code == 1, out
    assert data["history"]["note"] == "history checked against origin/main (GITHUB_BASE_REF)"
    assert auto_base({"GITHUB_BASE_REF": "nope"}, repo)[0] is None
    assert "origin/nope is not in this clone" in auto_base({"GITHUB_BASE_REF": "nope"}, repo)[1]


def test_shallow_clone_without_the_base_ref_is_a_clear_error(repo: Path, tmp_path: Path) -> None:
    (repo / "pkg" / "lib.py").write_text(LIB + "\n")
    commit(repo, "feature work")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch=feature", repo.as_uri(), str(clone))
    code, _data, out = pytest_run(clone, "--quest-base=origin/main")
    assert code == 4
    assert "shallow clone without origin/main" in out and "fetch-depth: 0" in out
    result = CliRunner().invoke(cli, ["check", "--root", str(clone), "--base", "origin/main",
                                      "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["kind"] == "BaseRefError"
    with pytest.raises(BaseRefError, match="no such commit"):
        check_history(repo, Ledger.for_root(repo).path, "no-such-branch")


def test_cli_check_base_fails_on_tampering(repo: Path) -> None:
    pass_to_todo(repo)
    done = subprocess.run([sys.executable, "-m", "pytest_quest", "check", "--base", "main",
                           "--json", "--", "-p", "no:cacheprovider", "-q"], cwd=repo,
                          capture_output=True, text=True, check=False,
                          env={k: v for k, v in os.environ.items()
                               if not k.startswith("GITHUB_")})
    assert done.returncode == 1, done.stderr
    verdict = json.loads(done.stdout)
    assert [f["rule"] for f in verdict["history"]["violations"]] == ["history-pass-lost"]


# ------------------------------------------------------------ the merge driver
def test_init_installs_the_driver_and_says_so(repo: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["init", "--root", str(repo)])
    assert first.exit_code == 0, first.output
    assert ".quest/ledger.json merge=pytest-quest-ledger" in first.stdout
    assert "git config --local merge.pytest-quest-ledger.driver = " in first.stdout
    attributes = (repo / ".gitattributes").read_text()
    assert attributes.splitlines() == [".quest/ledger.json merge=pytest-quest-ledger",
                                       ".quest/attempts.jsonl merge=union"]
    assert "merge-ledger %O %A %B %P" in git(repo, "config", "merge.pytest-quest-ledger.driver")
    again = runner.invoke(cli, ["init", "--root", str(repo)])
    assert "nothing to do" in again.stdout and (repo / ".gitattributes").read_text() == attributes


def test_real_git_merge_keeps_every_pass_and_the_max_tries(repo: Path) -> None:
    assert CliRunner().invoke(cli, ["init", "--root", str(repo)]).exit_code == 0
    commit(repo, "merge driver")
    git(repo, "checkout", "-q", "-b", "left")
    lock(repo, "tripled")
    commit(repo, "left locks tripled")
    git(repo, "checkout", "-q", "feature")
    git(repo, "checkout", "-q", "-b", "right")
    (repo / "pkg" / "mod.py").write_text(MOD + "\n\ndef quadrupled(x):\n    return x * 4\n")
    scan(load_settings(repo), baseline=False)  # the rescan adds a quest
    with transaction(Ledger.for_root(repo).path) as ledger:
        ledger.put(ledger.get("pkg/mod.py::tripled").with_(tries=3, state=State.DONE))
        ledger.put(ratchet.lock_pass(ledger.get("pkg/lib.py::helper"),
                                     Evidence.suite((), "", now_iso()), now_iso()))
    commit(repo, "right rescans, locks helper")
    git(repo, "merge", "-q", "--no-edit", "left")
    merged = Ledger.load(Ledger.for_root(repo).path)
    states = {q.qualname: (q.state.value, q.tries) for q in merged.quests.values()}
    assert states == {"covered": ("PASS", 0), "doubled": ("PASS", 0), "tripled": ("PASS", 3),
                      "quadrupled": ("TODO", 0), "helper": ("PASS", 0)}
    assert not git(repo, "status", "--porcelain")
    assert check_history(repo, Ledger.for_root(repo).path, "left").ok
    assert check_history(repo, Ledger.for_root(repo).path, "main").ok


def test_merge_driver_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("")
    ours.write_text('{"schema": 1, "quests": []}\n')
    theirs.write_text("not json")
    result = CliRunner().invoke(cli, ["merge-ledger", str(base), str(ours), str(theirs)])
    assert result.exit_code == 1 and "left as a conflict" in result.output
    assert ours.read_text() == '{"schema": 1, "quests": []}\n'


def test_merge_driver_names_contradictions_and_refuses_mixed_schemas(tmp_path: Path) -> None:
    def doc(evidence: dict[str, Any] | None, schema: int = 1) -> str:
        quest = {"id": "m.py::f", "path": "m.py", "qualname": "f", "lines": [1, 2],
                 "body": [2, 2], "state": "PASS" if evidence else "TODO"}
        if evidence:
            quest["evidence"] = evidence
        return json.dumps({"schema": schema, "quests": [quest]})

    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text(doc(None))
    ours.write_text(doc({"source": "submit", "time": "t2", "sha256": "b"}))
    theirs.write_text(doc({"source": "submit", "time": "t1", "sha256": "a"}))
    runner = CliRunner()
    result = runner.invoke(cli, ["merge-ledger", str(base), str(ours), str(theirs), "x.json"])
    assert result.exit_code == 0, result.output
    assert "1 quest(s) locked differently on both sides kept the first lock" in result.output
    merged = json.loads(ours.read_text())["quests"][0]
    assert merged["evidence"]["time"] == "t1"
    assert merged["extra"]["other_pass_evidence"]["time"] == "t2"
    theirs.write_text(doc(None, schema=2))
    result = runner.invoke(cli, ["merge-ledger", str(base), str(ours), str(theirs)])
    assert result.exit_code == 1 and "different schemas" in result.output
    ours.write_text("")
    assert runner.invoke(cli, ["merge-ledger", str(base), str(ours), str(theirs)]).exit_code == 1


def test_init_outside_git_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["init", "--root", str(tmp_path), "--json"])
    assert result.exit_code == 2 and "not inside a git repository" in result.output
