"""The read-only views behind status, show, export and the HTML page, on quests built by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_quest.errors import UsageError
from pytest_quest.export import (
    check_output,
    coverage_text,
    dumps,
    file_rows,
    mutation_text,
    quest_row,
    review_reasons,
    to_csv,
)
from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.ledger import Ledger
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from pytest_quest.states import State

NOW = "2026-03-01T12:00:00Z"
CLAIM = Fact("coverage-unreachable-claim", REVIEW, "m.py:4", "executed", "claimed unreachable")
LINES = Fact("coverage-lines", FAIL, "m.py:5", "executed", "not executed")


def quest(name: str = "f", **kw: object) -> Quest:
    return Quest(id=f"m.py::{name}", path="m.py", qualname=name, lines=(1, 6), body=(2, 6), **kw)


def test_coverage_text_reads_the_one_record_of_missing_lines() -> None:
    assert coverage_text(quest()) == ""
    assert coverage_text(quest(tries=1, missing=(4, 5), facts=(LINES,))) == "missing 2 lines"
    # The fact's place is not re-parsed: the structured field is the truth.
    assert coverage_text(quest(tries=1, missing=(), facts=(LINES,))) == ""
    locked = quest(state=State.PASS, evidence=Evidence.suite([2, 3, 4], "h", NOW))
    assert coverage_text(locked) == "full (3 lines)"


def test_mutation_text() -> None:
    figures = {"score": 0.95, "threshold": 0.6, "classic_killed": 19, "classic_total": 20,
               "extreme_killed": 2, "extreme_total": 2, "survivors": ["line 4: x"]}
    evidence = Evidence.submitted("t.py", "ab", [2], "h", NOW, mutation=figures)
    assert mutation_text(evidence) == ("score 0.95 (threshold 0.6), 19/20 classic killed, "
                                       "2/2 extreme killed, 1 survived")
    assert mutation_text(Evidence.submitted("t.py", "ab", [2], "h", NOW,
                                            mutation={"mode": "fork"})) == "mode=fork"
    selected = {**figures, "left_out": 449, "whole_file": None}
    assert mutation_text(Evidence.submitted("t.py", "ab", [2], "h", NOW, mutation=selected)
                         ).endswith("1 survived, 449 tests left out of every run but the "
                                    "measuring one")
    rerun = {**selected, "again": 2}
    assert mutation_text(Evidence.submitted("t.py", "ab", [2], "h", NOW, mutation=rerun)
                         ).endswith("measuring one, 2 extreme or reach mutants survived "
                                    "without them and ran again with every test")
    again = {**selected, "whole_file": "a clean control failed with the selected tests"}
    assert mutation_text(Evidence.submitted("t.py", "ab", [2], "h", NOW, mutation=again)
                         ).endswith("449 tests left out of the first schedule, run again with "
                                    "every test (a clean control failed with the selected tests)")
    assert mutation_text(Evidence.suite([2], "h", NOW)) == "" and mutation_text(None) == ""


def test_review_reasons_prefer_the_review_facts() -> None:
    assert review_reasons(quest(facts=(LINES, CLAIM))) == [CLAIM]
    assert review_reasons(quest(facts=(LINES,))) == [LINES]


def test_quest_row_adds_the_evidence_only_when_full() -> None:
    evidence = Evidence.submitted("tests/quest/t.py", "ab", [2], "h", NOW)
    locked = quest(state=State.PASS, evidence=evidence)
    assert quest_row(locked)["evidence"] == evidence.to_dict()
    short = quest_row(locked, full=False)
    assert "evidence" not in short and short["test"] == "tests/quest/t.py"


def test_file_rows_count_states_without_retired() -> None:
    rows = file_rows([quest("a", tries=2), quest("b", state=State.PASS),
                      quest("c", state=State.RETIRED)])
    assert rows == [{"path": "m.py", "quests": 2, "tries": 2, "TODO": 1, "PASS": 1, "REVIEW": 0,
                     "DONE": 0}]


def test_dumps_is_valid_json_with_one_list_item_per_line() -> None:
    text = dumps({"b": [{"x": 1}, {"x": 2}], "a": 1, "c": []})
    assert json.loads(text) == {"a": 1, "b": [{"x": 1}, {"x": 2}], "c": []}
    assert '    {"x": 1},\n    {"x": 2}' in text


def _ledger(root: Path) -> Ledger:
    ledger = Ledger.for_root(root)
    ledger.put(quest("f", state=State.PASS,
                     evidence=Evidence.submitted("tests/quest/t.py", "ab", [2], "h", NOW)))
    ledger.put(quest("g", decision={"action": "reject", "by": "=cmd()", "note": "+1", "time": NOW},
                     tries=1))
    ledger.snapshot = {"m.py": "00" * 32}
    return ledger


def test_csv_defuses_formulas_and_flattens_lists(tmp_path: Path) -> None:
    text = to_csv(_ledger(tmp_path))
    header, first, second = text.splitlines()
    assert header.startswith("id,path,qualname")
    assert "tests/quest/t.py" in first
    assert ",'=cmd(),'+1," in second  # a spreadsheet reads them as text, never as formulas


@pytest.mark.parametrize("target", ["m.py", "tests/quest/t.py", ".quest/ledger.json"])
def test_an_export_never_overwrites_a_protected_file(tmp_path: Path, target: str) -> None:
    with pytest.raises(UsageError):
        check_output(tmp_path / target, _ledger(tmp_path))


def test_an_export_may_go_anywhere_else(tmp_path: Path) -> None:
    assert check_output(tmp_path / "report.html", _ledger(tmp_path)) == tmp_path / "report.html"
