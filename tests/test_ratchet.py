"""The ratchet: a PASS is locked forever, only FAIL spends a try."""

from __future__ import annotations

import pytest

from pytest_quest import ratchet
from pytest_quest.errors import QuestLocked
from pytest_quest.facts import FAIL, Fact, Verdict
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from pytest_quest.states import Outcome, State

NOW = "2026-11-30T00:00:00Z"
FACT = Fact("coverage-lines", FAIL, "m.py:3", "executed", "not executed")


def quest(**kw: object) -> Quest:
    return Quest(id="m.py::f", path="m.py", qualname="f", lines=(1, 3), body=(2, 3), **kw)


def test_fail_spends_a_try_and_keeps_facts() -> None:
    after = ratchet.apply(quest(), Verdict(Outcome.FAIL, (FACT,)), NOW)
    assert (after.state, after.tries, after.facts, after.updated) == (State.TODO, 1, (FACT,), NOW)


def test_third_fail_ends_in_done() -> None:
    q = quest(tries=2)
    assert ratchet.apply(q, Verdict(Outcome.FAIL, (FACT,)), NOW).state is State.DONE


def test_pass_locks_with_evidence_and_spends_nothing() -> None:
    evidence = Evidence.submitted("t.py", "ab", [2], "h", NOW)
    after = ratchet.apply(quest(tries=1), Verdict(Outcome.PASS), NOW, evidence=evidence)
    assert (after.state, after.tries, after.evidence) == (State.PASS, 1, evidence)


def test_evidence_is_locked_only_by_a_pass() -> None:
    evidence = Evidence.submitted("t.py", "ab", [2], "h", NOW)
    after = ratchet.apply(quest(), Verdict(Outcome.FAIL, (FACT,)), NOW, evidence=evidence)
    assert after.evidence is None


def test_review_spends_no_try() -> None:
    after = ratchet.apply(quest(), Verdict(Outcome.REVIEW), NOW)
    assert (after.state, after.tries) == (State.REVIEW, 0)


@pytest.mark.parametrize("state", [State.PASS, State.REVIEW, State.DONE, State.RETIRED])
def test_ratchet_refuses_everything_but_todo(state: State) -> None:
    with pytest.raises(QuestLocked):
        ratchet.apply(quest(state=state), Verdict(Outcome.PASS), NOW)
    with pytest.raises(QuestLocked):
        ratchet.lock_pass(quest(state=state), Evidence.suite((), "", NOW), NOW)


def test_lock_pass_from_a_measurement() -> None:
    evidence = Evidence.baseline([2, 3], "h", NOW)
    after = ratchet.lock_pass(quest(facts=(FACT,)), evidence, NOW)
    assert (after.state, after.facts, after.evidence) == (State.PASS, (), evidence)
