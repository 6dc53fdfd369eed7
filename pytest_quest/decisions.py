"""Human decisions on REVIEW quests: approve, reject back to TODO, or close.

REVIEW is where the deterministic gate stops: an agent claimed a line is
unreachable, or the run could not be verified. Only a person may move such a
quest on, and every move is recorded with who, when and why, both on the
quest (``decision``) and in the append-only attempts log (kind ``review``).

Pure functions on :class:`Quest`; the review service (:mod:`pytest_quest.review`)
does the I/O around them (ledger transaction, git user name, test file hash).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pytest_quest.errors import QuestLocked, UsageError
from pytest_quest.facts import FAIL, Fact
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt, AttemptKind, Evidence
from pytest_quest.states import State

__all__ = [
    "CLAIM_RULE",
    "REJECTED_RULE",
    "REOPENED_RULE",
    "Action",
    "Decision",
    "approval_evidence",
    "approved_claims",
    "decide",
    "last_submission",
    "review_record",
    "submission_mutation",
]

#: The rule id of the fact an agent sees in ``next`` after a rejection.
REJECTED_RULE = "review-rejected"
#: ... and after a maintainer withdrew a lock.
REOPENED_RULE = "review-reopened"
#: The coverage rule's fact for an agent's unreachable-line claim.
CLAIM_RULE = "coverage-unreachable-claim"


class Action(StrEnum):
    """What a maintainer can decide about a REVIEW quest."""

    APPROVE = "approve"  # -> PASS, locked, as a human decision
    REJECT = "reject"  # -> TODO, the note becomes a fact for the agent
    CLOSE = "close"  # -> DONE, nobody works on it any more
    REOPEN = "reopen"  # PASS -> TODO: a wrongly locked quest, withdrawn by a maintainer

    @property
    def target(self) -> State:
        return {Action.APPROVE: State.PASS, Action.REJECT: State.TODO,
                Action.CLOSE: State.DONE, Action.REOPEN: State.TODO}[self]


@dataclass(frozen=True)
class Decision:
    """One human decision: who, when, why, and what."""

    action: Action
    by: str
    note: str
    time: str

    def to_dict(self) -> dict[str, str]:
        return {"action": self.action.value, "by": self.by, "note": self.note, "time": self.time}


def _rejection_fact(quest: Quest, decision: Decision) -> Fact:
    """The note as a fact with a place, an expectation and what was seen.

    A note written as ``expected: X; actual: Y`` keeps both halves; a plain
    note is what the maintainer expects, and ``actual`` says what was refused,
    so the agent knows which claim not to repeat.
    """
    note = decision.note.strip()
    expected, actual = note, ""
    lowered = note.lower()
    if lowered.startswith("expected:") and "actual:" in lowered:
        cut = lowered.index("actual:")
        expected = note[len("expected:"):cut].strip().rstrip(";").strip()
        actual = note[cut + len("actual:"):].strip()
    if not actual:
        refused = "; ".join(f"{f.rule} at {f.where}" for f in quest.facts) or "the submission"
        actual = f"rejected in review by {decision.by}: {refused}"
    return Fact(REJECTED_RULE, FAIL, quest.id, expected, actual)


def decide(quest: Quest, decision: Decision, evidence: Evidence | None = None) -> Quest:
    """The quest after ``decision``; only a REVIEW quest can be decided.

    A locked quest (PASS, DONE, RETIRED) raises :class:`QuestLocked` (exit 4);
    a TODO quest is a usage error: there is nothing to review yet. Approval
    needs ``evidence`` (from :func:`approval_evidence`: the reviewed test file
    and its hash) so the plugin's ``--quest-check`` can keep the lock honest.
    The one decision on a PASS is ``reopen``: the lock is withdrawn (tries
    kept), and the ledger's history check accepts the step only because it is
    logged.
    """
    if decision.action is Action.REOPEN:
        return _reopen(quest, decision)
    if quest.state is State.TODO:
        raise UsageError(f"{quest.id} is TODO: only REVIEW quests can be decided")
    if quest.state is State.PASS and decision.action is Action.APPROVE:
        raise QuestLocked(f"{quest.id} is already PASS: there is nothing to approve")
    if quest.state is not State.REVIEW:
        raise QuestLocked(f"{quest.id} is {quest.state.value}: only REVIEW quests can be decided")
    _require_note_and_name(decision)
    record = decision.to_dict()
    if decision.action is Action.APPROVE:
        if evidence is None or not evidence.test:
            raise UsageError(f"{quest.id} has no reviewed test file to lock; reject it instead")
        return quest.with_(state=State.PASS, evidence=evidence, decision=record,
                           updated=decision.time)
    if decision.action is Action.REJECT:
        return quest.with_(state=State.TODO, facts=(_rejection_fact(quest, decision),),
                           decision=record, updated=decision.time)
    return quest.with_(state=State.DONE, decision=record, updated=decision.time)


def _require_note_and_name(decision: Decision) -> None:
    """Every decision is logged with why and by whom; neither may be blank."""
    if not decision.note.strip():
        raise UsageError("a review decision needs a reason: pass --note TEXT")
    if not decision.by.strip():
        raise UsageError("a review decision needs a name: pass --by NAME or set git user.name")


def _reopen(quest: Quest, decision: Decision) -> Quest:
    if quest.state is not State.PASS:
        raise UsageError(f"{quest.id} is {quest.state.value}: only a PASS quest can be reopened")
    _require_note_and_name(decision)
    record = decision.to_dict()
    fact = Fact(REOPENED_RULE, FAIL, quest.id, decision.note.strip(),
                f"the lock was withdrawn in review by {decision.by}; write a test that earns it")
    return quest.with_(state=State.TODO, evidence=None, facts=(fact,), decision=record,
                       updated=decision.time)


def approved_claims(quest: Quest, source_lines: list[str]) -> list[dict[str, Any]]:
    """The unreachable-line claims an approval accepts, as the ratchet reads them later.

    Each is kept as its offset from the ``def`` line and the line's text, so
    the lock follows the function when it moves and lapses when the claimed
    line is edited (see :func:`pytest_quest.lockcheck.approved_lines`).
    """
    out = []
    for fact in quest.facts:
        if fact.rule != CLAIM_RULE:
            continue
        try:
            line = int(fact.where.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            continue
        text = source_lines[line - 1].strip() if 0 < line <= len(source_lines) else ""
        out.append({"line": line, "offset": line - quest.lines[0], "text": text,
                    "reason": fact.actual.removeprefix("claimed unreachable: ")})
    return out


def last_submission(attempts: list[Attempt]) -> Attempt | None:
    """The submit attempt that sent the quest to REVIEW (the newest REVIEW verdict)."""
    for record in reversed(attempts):
        if record.kind == AttemptKind.SUBMIT and record.verdict == "REVIEW":
            return record
    return None


def approval_evidence(quest: Quest, submission: Attempt | None, current_sha256: str | None,
                      decision: Decision, claims: Sequence[Mapping[str, Any]] = ()) -> Evidence:
    """Evidence for approving ``quest``, from the submission that was reviewed.

    The test on disk must still be the one that was reviewed: approving a
    file that changed since would lock a PASS on something nobody looked at.
    ``claims`` (:func:`approved_claims`) become part of the lock.
    """
    if submission is None or not submission.test:
        raise UsageError("no submission sent this quest to REVIEW; reject it instead")
    test = submission.test
    if current_sha256 is None:
        raise UsageError(f"the reviewed test file {test} is gone: restore it or reject the quest")
    if submission.sha256 and current_sha256 != submission.sha256:
        raise UsageError(
            f"the test file {test} changed since it was submitted for review: "
            "restore it or reject the quest so the agent resubmits"
        )
    return Evidence.approved(test, current_sha256, quest.source_hash, decision.time,
                             decision.to_dict(), unreachable=claims, def_line=quest.lines[0],
                             mutation=submission_mutation(submission))


def submission_mutation(submission: Attempt | None) -> Mapping[str, Any] | None:
    """The mutation figures a REVIEW submission recorded (None: no mutant ran, or an older log)."""
    figures = submission.other.get("mutation") if submission is not None else None
    return figures if isinstance(figures, Mapping) and figures else None


def review_record(before: Quest, after: Quest, decision: Decision, remaining: int) -> Attempt:
    """The attempts-log line of a decision (kind ``review``), shaped like a submit line."""
    return Attempt.reviewed(
        quest=after.id, time=decision.time, by=decision.by, action=decision.action.value,
        note=decision.note, from_state=before.state.value, state=after.state.value,
        tries=after.tries, facts=after.facts, remaining=remaining,
    )
