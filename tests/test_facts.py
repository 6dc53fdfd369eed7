"""Facts and verdicts: the unit of feedback, aggregated by level."""

from __future__ import annotations

from pytest_quest.facts import FAIL, REVIEW, Fact, Verdict, aggregate
from pytest_quest.states import Outcome

FACT = Fact("coverage-lines", FAIL, "m.py:3", "executed", "not executed")


def test_aggregate_by_level() -> None:
    review = Fact("coverage-unreachable-claim", REVIEW, "m.py:3", "a", "b")
    assert aggregate([]) is Outcome.PASS
    assert aggregate([review]) is Outcome.REVIEW
    assert aggregate([review, FACT]) is Outcome.FAIL


def test_fact_round_trips_and_reads_one_line() -> None:
    assert Fact.from_dict(FACT.to_dict()) == FACT
    assert Fact.from_dict({"rule": "r", "where": 3}) == Fact("r", "", "3", "", "")
    assert FACT.line() == "[coverage-lines] m.py:3: expected executed; actual not executed"


def test_verdict_dict_is_the_json_contract() -> None:
    verdict = Verdict(Outcome.FAIL, (FACT,), "coverage-lines", "add cases")
    assert verdict.to_dict() == {"verdict": "FAIL", "facts": [FACT.to_dict()],
                                 "root_cause": "coverage-lines", "hint": "add cases"}
