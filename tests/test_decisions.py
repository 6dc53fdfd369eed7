"""Review decisions (pure): only REVIEW quests are decided; each says who, when and why."""

from __future__ import annotations

import pytest

from pytest_quest.decisions import (
    REJECTED_RULE,
    Action,
    Decision,
    approval_evidence,
    decide,
    last_submission,
    review_record,
)
from pytest_quest.errors import QuestLocked, UsageError
from pytest_quest.facts import Fact
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt, Evidence
from pytest_quest.states import State

NOW = "2026-02-01T10:00:00Z"
CLAIM = Fact("coverage-unreachable-claim", "review", "pkg/m.py:7", "a line the test executes",
             "claimed unreachable: defensive")
QUEST = Quest(id="pkg/m.py::f", path="pkg/m.py", qualname="f", lines=(3, 9), body=(4, 9),
              source_hash="h1", state=State.REVIEW, tries=1, facts=(CLAIM,))
EVIDENCE = Evidence.approved("tests/quest/test_f.py", "ab" * 32, "h", NOW,
                             {"action": "approve", "by": "Ada", "note": "ok", "time": NOW})


def decision(action: Action, note: str = "line 7 guards a file",
             by: str = "Ada") -> Decision:
    return Decision(action, by, note, NOW)


def test_approve_locks_pass_as_a_human_decision() -> None:
    after = decide(QUEST, decision(Action.APPROVE), EVIDENCE)
    assert after.state is State.PASS and after.tries == 1
    assert after.decision == {"action": "approve", "by": "Ada", "note": "line 7 guards a file",
                              "time": NOW}
    assert after.evidence is EVIDENCE
    assert QUEST.state is State.REVIEW  # records are never mutated


def test_reject_sends_back_to_todo_with_the_note_as_a_fact() -> None:
    after = decide(QUEST, decision(Action.REJECT, note="cover line 7 with a corrupt file"))
    assert after.state is State.TODO and after.tries == 1
    (fact,) = after.facts
    assert fact.rule == REJECTED_RULE == "review-rejected"
    assert (fact.level, fact.where) == ("fail", QUEST.id)
    assert fact.expected == "cover line 7 with a corrupt file"
    assert "rejected in review by Ada" in fact.actual
    assert "coverage-unreachable-claim at pkg/m.py:7" in fact.actual


def test_reject_note_with_expected_and_actual_keeps_both_halves() -> None:
    note = "Expected: a test that opens a corrupt file; actual: a claim with no reason"
    (fact,) = decide(QUEST, decision(Action.REJECT, note=note)).facts
    assert fact.expected == "a test that opens a corrupt file"
    assert fact.actual == "a claim with no reason"


def test_close_sends_to_done() -> None:
    after = decide(QUEST, decision(Action.CLOSE))
    assert after.state is State.DONE and after.decision["action"] == "close"
    assert Action.CLOSE.target is State.DONE and Action.APPROVE.target is State.PASS


@pytest.mark.parametrize("state", [State.PASS, State.DONE, State.RETIRED])
def test_locked_quests_cannot_be_decided(state: State) -> None:
    with pytest.raises(QuestLocked) as info:
        decide(QUEST.with_(state=state), decision(Action.APPROVE), EVIDENCE)
    assert info.value.exit_code == 4


def test_todo_quest_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="only REVIEW"):
        decide(QUEST.with_(state=State.TODO), decision(Action.REJECT))


@pytest.mark.parametrize(("note", "by", "message"), [
    ("  ", "Ada", "--note"), ("why", " ", "--by"),
])
def test_a_decision_needs_a_reason_and_a_name(note: str, by: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        decide(QUEST, decision(Action.CLOSE, note=note, by=by))


def test_approve_without_evidence_is_refused() -> None:
    with pytest.raises(UsageError, match="reject it instead"):
        decide(QUEST, decision(Action.APPROVE), None)


def test_last_submission_is_the_newest_review_verdict() -> None:
    attempts = [Attempt.from_dict(a) for a in (
        {"kind": "submit", "verdict": "FAIL", "test": "a.py"},
        {"verdict": "REVIEW", "test": "b.py", "sha256": "1"},  # an early log line: no kind
        {"kind": "review", "action": "reject"},
        {"kind": "submit", "verdict": "REVIEW", "test": "c.py", "sha256": "2"},
        {"kind": "suite-lock"},
    )]
    found = last_submission(attempts)
    assert found is not None and found.test == "c.py"
    assert last_submission(attempts[:3]) is attempts[1]
    assert last_submission(attempts[:1]) is None


def test_approval_evidence_requires_the_reviewed_file_unchanged() -> None:
    sub = Attempt.submitted(QUEST.id, NOW, None, "tests/quest/test_f.py", "aa", "REVIEW",
                            "REVIEW", 1, (), 3)
    approve = decision(Action.APPROVE)
    evidence = approval_evidence(QUEST, sub, "aa", approve)
    assert (evidence.source, evidence.test, evidence.sha256) == ("review", sub.test, "aa")
    assert evidence.source_hash == QUEST.source_hash and evidence.source_hash
    assert evidence.decision == approve.to_dict() and evidence.time == NOW
    with pytest.raises(UsageError, match="changed since"):
        approval_evidence(QUEST, sub, "bb", approve)
    with pytest.raises(UsageError, match="is gone"):
        approval_evidence(QUEST, sub, None, approve)
    with pytest.raises(UsageError, match="no submission"):
        approval_evidence(QUEST, None, "aa", approve)


def test_review_record_is_an_attempts_log_line() -> None:
    after = decide(QUEST, decision(Action.REJECT))
    record = review_record(QUEST, after, decision(Action.REJECT), remaining=5)
    line = record.to_dict()
    assert line["kind"] == "review" and line["quest"] == QUEST.id
    assert (line["from"], line["state"], line["action"]) == ("REVIEW", "TODO", "reject")
    assert line["by"] == "Ada" and line["remaining"] == 5 and line["agent"] is None
    assert line["facts"][0]["rule"] == REJECTED_RULE
    assert Attempt.from_dict(line) == record
