"""``pytest-quest show``: source span, state, every attempt in order, evidence of a PASS."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_quest.export import NO_MUTATION
from pytest_quest.ledger import Ledger
from tests.test_cli_status import build_ledger, invoke
from tests.test_submit import FULL, PARTIAL

QUEST = "hotel/pricing.py::nightly_rate"


@pytest.mark.slow
def test_attempts_in_order_then_pass_evidence(project: Path, submit_test) -> None:  # type: ignore[no-untyped-def]
    submit_test(QUEST, PARTIAL)
    submit_test(QUEST, FULL)
    result = invoke(project, "show", QUEST, "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["id"] == QUEST and data["state"] == "PASS" and data["tries"] == 1
    assert data["max_tries"] == 3
    assert [a["verdict"] for a in data["attempts"]] == ["FAIL", "PASS"]
    first, second = data["attempts"]
    assert first["facts"][0]["where"] == "hotel/pricing.py:7,9,11,15"
    assert first["sha256"] != second["sha256"] and len(first["sha256"]) == 64
    assert first["time"] <= second["time"]
    source = data["source"]
    assert source["lines"][0] == {"n": 4, "text": source["lines"][0]["text"]}
    assert source["lines"][0]["text"].startswith("def nightly_rate(")
    assert source["lines"][-1]["n"] == 16
    evidence = data["evidence"]
    assert evidence["test"] == "tests/quest/test_hotel_pricing__nightly_rate.py"
    assert evidence["covered_lines"] and len(evidence["sha256"]) == 64
    human = invoke(project, "show", QUEST).stdout
    assert "Attempts (2)" in human and "Evidence" in human
    assert "def nightly_rate(" in human and "covered:" in human
    assert human.index("submit FAIL") < human.index("submit PASS")
    mutation = evidence["mutation"]  # the mutation stage is on by default
    assert mutation["classic_total"] > 0 and mutation["score"] >= mutation["threshold"]
    assert f"mutation: score {mutation['score']:g} (threshold {mutation['threshold']:g})" in human
    locked = Ledger.load(Ledger.for_root(project).path).get(QUEST)
    assert evidence["source_hash"] == locked.source_hash != ""


def test_todo_with_failed_try_marks_missing_lines(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    data = json.loads(invoke(tmp_path, "show", "pkg/mod_0000.py::func_1", "--json").stdout)
    assert data["state"] == "TODO" and data["tries"] == 1
    assert data["missing_lines"] == [8]
    assert [line["n"] for line in data["source"]["lines"]] == [6, 7, 8, 9]
    assert data["attempts"] == []
    human = invoke(tmp_path, "show", "pkg/mod_0000.py::func_1").stdout
    assert "No attempts yet." in human and "coverage-lines" in human


def test_pass_shows_mutation_figures(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    human = invoke(tmp_path, "show", "pkg/mod_0000.py::func_6").stdout
    assert "Evidence" in human and "tests/quest/test_6.py" in human
    assert "mutation: score 0.8, 4/5 classic killed" in human
    assert "covered: 32-34 (3 lines)" in human


def test_a_pass_without_mutation_figures_says_so_plainly(tmp_path: Path) -> None:
    # Red team 3, finding 04: a lock nobody mutated must not read like one that was.
    build_ledger(tmp_path, 10)
    path = Ledger.for_root(tmp_path).path
    ledger = Ledger.load(path)
    quest = ledger.get("pkg/mod_0000.py::func_6")
    assert quest.evidence is not None
    ledger.put(quest.with_(evidence=replace(quest.evidence, mutation=None)))
    ledger.save()
    human = " ".join(invoke(tmp_path, "show", "pkg/mod_0000.py::func_6").stdout.split())
    assert f"mutation: {NO_MUTATION}" in human


def test_review_decision_is_shown(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    path = Ledger.for_root(tmp_path).path
    ledger = Ledger.load(path)
    ledger.put(ledger.get("pkg/mod_0000.py::func_9").with_(
        decision={"action": "close", "by": "Ada", "note": "generated [code]", "time": "t"}))
    ledger.save()
    human = invoke(tmp_path, "show", "pkg/mod_0000.py::func_9").stdout
    assert "Reviewer's decision" in human and "generated [code]" in human


def test_source_file_gone_is_reported_not_a_crash(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    (tmp_path / "pkg" / "mod_0000.py").unlink()
    result = invoke(tmp_path, "show", "pkg/mod_0000.py::func_2", "--json")
    assert result.exit_code == 0
    source = json.loads(result.stdout)["source"]
    assert source["lines"] == [] and "cannot read" in source["error"]
    assert "cannot read" in invoke(tmp_path, "show", "pkg/mod_0000.py::func_2").stdout


def test_a_function_gone_from_its_file_says_rescan(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    (tmp_path / "pkg" / "mod_0000.py").write_text("x = 1\n")
    source = json.loads(invoke(tmp_path, "show", "pkg/mod_0000.py::func_2", "--json").stdout)[
        "source"]
    assert source["lines"] == []
    assert source["error"] == "func_2 is no longer defined in pkg/mod_0000.py: rescan with " \
        "`pytest-quest scan`"


def test_a_file_that_no_longer_parses_says_so(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    (tmp_path / "pkg" / "mod_0000.py").write_text("def broken(:\n")
    source = json.loads(invoke(tmp_path, "show", "pkg/mod_0000.py::func_2", "--json").stdout)[
        "source"]
    assert source["lines"] == [] and "no longer parses" in source["error"]


def test_a_changed_file_shows_the_quests_function_and_warns(tmp_path: Path) -> None:
    """Lines inserted above the function: the old span would show another function."""
    build_ledger(tmp_path, 10)
    path = Ledger.for_root(tmp_path).path
    ledger = Ledger.load(path)
    quest = ledger.get("pkg/mod_0000.py::func_2")
    ledger.put(quest.with_(source_hash="0123456789abcdef"))
    ledger.save()
    module = tmp_path / "pkg" / "mod_0000.py"
    module.write_text("def intruder(x):\n    return 'not func_2'\n\n\n\n" + module.read_text())
    data = json.loads(invoke(tmp_path, "show", "pkg/mod_0000.py::func_2", "--json").stdout)
    source = data["source"]
    assert source["lines"][0] == {"n": 16, "text": "def func_2(x):"}
    assert (source["first"], source["last"]) == (16, 19)
    assert source["warning"].startswith("func_2 changed since the scan (source hash "
                                        "0123456789abcdef -> ")
    assert source["warning"].endswith("rescan with `pytest-quest scan`")
    human = invoke(tmp_path, "show", "pkg/mod_0000.py::func_2").stdout
    assert "intruder" not in human and "func_2 changed since the scan" in human


def test_a_moved_function_is_found_and_the_move_named(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    module = tmp_path / "pkg" / "mod_0000.py"
    module.write_text("\n\n" + module.read_text())
    source = json.loads(invoke(tmp_path, "show", "pkg/mod_0000.py::func_1", "--json").stdout)[
        "source"]
    assert [line["n"] for line in source["lines"]] == [8, 9, 10, 11]
    assert "moved since the scan (lines 6-9 -> 8-11)" in source["warning"]


def test_unknown_quest_exit_2(tmp_path: Path) -> None:
    build_ledger(tmp_path, 3)
    result = invoke(tmp_path, "show", "nope.py::f")
    assert result.exit_code == 2 and "unknown quest" in result.stderr and result.stdout == ""
