"""The ratchet's engine on plain data: coverage entries in, a verdict out (no pytest run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import coverage
import pytest

from pytest_quest import ratchet
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger, now_iso, read_attempts, transaction
from pytest_quest.lockcheck import check_locks, lock_covered, read_entries, source_dirs
from pytest_quest.records import Evidence
from pytest_quest.scan import scan
from pytest_quest.states import State
from tests.test_plugin import MOD

PATH = "pkg/mod.py"
#: Statement lines of MOD's functions (bodies): covered 2-4, partial 8-11, other 15, gone 19.
ALL = [2, 3, 4, 8, 9, 10, 11, 15, 19]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest-quest]\nsources = ["pkg"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MOD)
    scan(load_settings(tmp_path), baseline=False)
    with transaction(Ledger.for_root(tmp_path).path) as ledger:
        for name in ("covered", "partial"):
            quest = ledger.get(f"{PATH}::{name}")
            ledger.put(ratchet.lock_pass(quest, Evidence.suite((), "", now_iso()), now_iso()))
    return tmp_path


def ledger_of(root: Path) -> Ledger:
    return Ledger.load(Ledger.for_root(root).path)


def entry(executed: list[int]) -> dict[str, Any]:
    return {"executed_lines": executed, "missing_lines": [x for x in ALL if x not in executed]}


def test_everything_covered_is_ok(root: Path) -> None:
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    assert report.ok and report.checked == 2 and report.problems == []


def test_lost_lines_name_the_function_and_lines(root: Path) -> None:
    report = check_locks(ledger_of(root), {PATH: entry([2, 3, 8, 9, 11])}, branch=False)
    assert not report.ok
    by_quest = {p.quest: p for p in report.problems}
    assert set(by_quest) == {f"{PATH}::covered", f"{PATH}::partial"}
    facts = by_quest[f"{PATH}::covered"].facts
    assert [(f.rule, f.where) for f in facts] == [("coverage-lines", f"{PATH}:4")]


def test_file_never_measured_is_a_problem(root: Path) -> None:
    report = check_locks(ledger_of(root), {PATH: None}, branch=False)
    assert {p.quest for p in report.problems} == {f"{PATH}::covered", f"{PATH}::partial"}


def test_locked_test_file_missing(root: Path) -> None:
    with transaction(Ledger.for_root(root).path) as ledger:
        quest = ledger.get(f"{PATH}::other")
        evidence = Evidence.submitted("tests/quest/t.py", "0" * 64, (), "", now_iso())
        ledger.put(ratchet.lock_pass(quest, evidence, now_iso()))
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    (problem,) = report.problems
    assert problem.quest == f"{PATH}::other" and problem.test == "tests/quest/t.py"
    assert problem.facts[0].rule == "ratchet-test-missing"


def test_forged_pass_without_evidence_is_caught(root: Path) -> None:
    with transaction(Ledger.for_root(root).path) as ledger:
        quest = ledger.get(f"{PATH}::other")
        ledger.put(quest.with_(state=State.PASS, evidence=None))
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    (problem,) = report.problems
    assert problem.quest == f"{PATH}::other"
    assert "ratchet-no-evidence" in {f.rule for f in problem.facts}


def test_changed_function_keeps_its_lock_and_says_so(root: Path) -> None:
    mod = root / PATH
    mod.write_text(mod.read_text().replace('return "down"', 'z = 1\n    return "down"'))
    report = check_locks(ledger_of(root), {PATH: entry([2, 3])}, branch=False)
    problem = next(p for p in report.problems if p.quest.endswith("::covered"))
    assert problem.changed
    said = "function changed since it was locked: source hash"
    assert any(said in f.actual for f in problem.facts), problem.facts


def test_deleted_function_is_a_notice(root: Path) -> None:
    mod = root / PATH
    mod.write_text(mod.read_text().replace("def covered(x):", "def renamed(x):"))
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    assert report.vanished == [f"{PATH}::covered"] and report.ok


def test_unparsable_source_is_a_problem(root: Path) -> None:
    (root / PATH).write_text("def covered(:\n")
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    assert {f.rule for p in report.problems for f in p.facts} == {"ratchet-unparsable"}


def test_update_locks_what_the_run_covers_and_never_unlocks(root: Path) -> None:
    path = Ledger.for_root(root).path
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False, want_todo=True)
    assert set(report.coverable) == {f"{PATH}::other", f"{PATH}::gone"}
    locked = lock_covered(path, report, branch=False)
    ledger = ledger_of(root)
    assert sorted(locked) == [f"{PATH}::gone", f"{PATH}::other"]
    assert ledger.counts()["PASS"] == 4 and ledger.remaining == 0
    assert ledger.get(f"{PATH}::other").evidence.source == "suite"
    logged = [a for a in read_attempts(ledger) if a.kind == "suite-lock"]
    assert {a.quest for a in logged} == set(locked)
    assert {(a.state, a.tries, a.remaining) for a in logged} == {("PASS", 0, 0)}
    again = check_locks(ledger_of(root), {PATH: entry([2, 3])}, branch=False, want_todo=True)
    assert lock_covered(path, again, branch=False) == []
    assert ledger_of(root).counts()["PASS"] == 4  # nothing unlocked


def test_lock_covered_skips_quests_no_longer_todo(root: Path) -> None:
    path = Ledger.for_root(root).path
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False, want_todo=True)
    with transaction(path) as ledger:
        quest = ledger.get(f"{PATH}::other")
        ledger.put(quest.with_(state=State.DONE))
    assert lock_covered(path, report, branch=False) == [f"{PATH}::gone"]


def test_read_entries_from_a_real_data_file(root: Path, tmp_path: Path) -> None:
    data_file = tmp_path / "cov.data"
    data = coverage.CoverageData(basename=str(data_file))
    data.add_lines({str((root / PATH).resolve()): [1, 2, 3, 4, 7, 8, 9, 11]})
    data.write()
    entries = read_entries(data_file, root, [PATH, "pkg/other.py"], branch=False)
    assert entries["pkg/other.py"] is None
    got = entries[PATH]
    assert got is not None
    assert 4 in got["executed_lines"] and 10 in got["missing_lines"]
    report = check_locks(ledger_of(root), entries, branch=False)
    (problem,) = report.problems
    assert problem.quest == f"{PATH}::partial" and problem.facts[0].where == f"{PATH}:10"


def test_read_entries_with_branches(root: Path, tmp_path: Path) -> None:
    data_file = tmp_path / "cov.data"
    data = coverage.CoverageData(basename=str(data_file))
    mod = str((root / PATH).resolve())
    data.add_arcs({mod: [(-1, 1), (1, -1), (-2, 2), (2, 3), (3, -2)]})
    data.write()
    entries = read_entries(data_file, root, [PATH], branch=True)
    got = entries[PATH]
    assert got is not None and [2, 4] in got["missing_branches"]
    report = check_locks(ledger_of(root), entries, branch=True)
    problem = next(p for p in report.problems if p.quest.endswith("::covered"))
    assert {f.rule for f in problem.facts} >= {"coverage-lines", "coverage-branches"}


def test_source_dirs(root: Path) -> None:
    assert source_dirs(ledger_of(root)) == [str((root / "pkg").resolve())]
    bare = ledger_of(root)
    bare.settings = {}
    # A module stands for its folder: coverage.py's source= measures no single file.
    assert source_dirs(bare) == [str((root / "pkg").resolve())]
    bare.settings = {"sources": ["pkg/mod.py", "pkg", "."]}
    assert source_dirs(bare) == [str((root / "pkg").resolve()), str(root.resolve())]


def test_report_to_dict(root: Path) -> None:
    report = check_locks(ledger_of(root), {PATH: entry([2])}, branch=False)
    data = report.to_dict()
    assert data["ok"] is False and data["checked"] == 2
    assert data["problems"][0]["facts"][0]["rule"] == "coverage-lines"


def test_source_too_deep_to_parse_is_a_problem_not_a_traceback(root: Path) -> None:
    (root / PATH).write_text("x = a" + ".b" * 100_000 + "\n")
    report = check_locks(ledger_of(root), {PATH: entry(ALL)}, branch=False)
    assert {f.rule for p in report.problems for f in p.facts} == {"ratchet-unparsable"}
