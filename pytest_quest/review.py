"""The review service: the REVIEW queue, and a human decision recorded in one transaction.

REVIEW is where the deterministic gate stops (see :mod:`pytest_quest.decisions`
for the rules a decision follows). This module does the I/O around those pure
rules, the way :mod:`pytest_quest.submit` does for the gate: it reads the
ledger and the attempts log, hashes the reviewed test file, takes the ledger
lock, writes the decided quest and appends the ``review`` line. The CLI
(``pytest-quest review``) only parses options and renders what comes back, so
another front end (the MCP server, a script) gets the same transaction.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_quest.decisions import (
    Action,
    Decision,
    approval_evidence,
    approved_claims,
    decide,
    last_submission,
    review_record,
    submission_mutation,
)
from pytest_quest.errors import UsageError
from pytest_quest.export import review_reasons
from pytest_quest.ledger import Ledger, append_attempt, now_iso, read_attempts, transaction
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt
from pytest_quest.sandbox import file_sha256
from pytest_quest.states import State

__all__ = ["Decided", "git_user", "queue", "record_decision"]


@dataclass(frozen=True)
class Decided:
    """A recorded decision: the quest after it and how many quests remain."""

    before: Quest
    after: Quest
    decision: Decision
    remaining: int

    def to_dict(self) -> dict[str, Any]:
        """What ``review --json`` prints after a decision."""
        after = self.after
        return {
            "quest": after.id,
            "action": self.decision.action.value,
            "state": after.state.value,
            "decision": after.decision,
            "facts": [f.to_dict() for f in after.facts],
            "evidence": after.evidence.to_dict() if after.evidence else None,
            "remaining": self.remaining,
        }


def git_user(root: Path) -> str | None:
    """``git config user.name`` in ``root``: who is deciding, as git would record it."""
    try:
        done = subprocess.run(["git", "config", "user.name"], cwd=root, capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    name = done.stdout.strip()
    return name if done.returncode == 0 and name else None


def _entry(quest: Quest, attempts: list[Attempt]) -> dict[str, Any]:
    submission = last_submission(attempts)
    return {
        "id": quest.id,
        "path": quest.path,
        "qualname": quest.qualname,
        "lines": list(quest.lines),
        "state": quest.state.value,
        "tries": quest.tries,
        "reasons": [f.to_dict() for f in review_reasons(quest)],
        "facts": [f.to_dict() for f in quest.facts],
        "submission": None if submission is None else {
            "test": submission.test, "sha256": submission.sha256, "time": submission.time,
            "agent": submission.agent,
        },
        "evidence": quest.evidence.to_dict() if quest.evidence else None,
        # The mutation figures of the reviewed submission; None says plainly that no mutant
        # ran, so the reviewer knows the machine did not check the assertions.
        "mutation": _mutation(quest, submission),
        "decision": quest.decision,
    }


def _mutation(quest: Quest, submission: Attempt | None) -> dict[str, Any] | None:
    if quest.state is State.PASS:
        figures = quest.evidence.mutation if quest.evidence else None
    else:
        figures = submission_mutation(submission)
    return dict(figures) if figures else None


def queue(ledger: Ledger, quest_id: str | None = None) -> list[dict[str, Any]]:
    """Every REVIEW quest (or just ``quest_id``), in ledger order, with reasons and submission.

    The attempts log is read once and grouped: reading it per quest made a
    queue of 1,000 take half a minute on a 10,000-quest ledger.
    """
    if quest_id is not None:
        return [_entry(ledger.get(quest_id), read_attempts(ledger, quest_id))]
    quests = [q for q in ledger.ordered() if q.state is State.REVIEW]
    wanted = {q.id for q in quests}
    by_quest: dict[str, list[Attempt]] = {}
    for record in read_attempts(ledger) if wanted else []:
        if record.quest in wanted:
            by_quest.setdefault(record.quest, []).append(record)
    return [_entry(q, by_quest.get(q.id, [])) for q in quests]


def record_decision(root: Path, quest_id: str, action: Action, note: str, by: str,
                    now: str | None = None) -> Decided:
    """Decide ``quest_id`` under the ledger lock and log it; raise before writing anything.

    An approval locks the test file the quest was sent to REVIEW with, and
    only when it is still byte-identical to what was reviewed; its sha256 goes
    into the lock, so a later edit shows up as a changed test. The
    unreachable-line claims an approval accepts become part of the lock too.
    """
    decision = Decision(action, by.strip(), note.strip(), now or now_iso())
    with transaction(Ledger.for_root(root).path) as ledger:
        quest = ledger.get(quest_id)
        evidence = None
        # What the quest is comes first: a PASS quest is "already PASS", whatever the flags.
        if quest.state is State.REVIEW and not decision.note:
            raise UsageError("a review decision needs a reason: pass --note TEXT")
        if decision.action is Action.APPROVE and quest.state is State.REVIEW:
            submission = last_submission(read_attempts(ledger, quest_id))
            current = None
            if submission and submission.test:
                current = file_sha256(root / submission.test)
            claims = approved_claims(quest, _lines(root / quest.path))
            evidence = approval_evidence(quest, submission, current, decision, claims)
        after = decide(quest, decision, evidence)
        ledger.put(after)
        remaining = ledger.remaining
        append_attempt(ledger, review_record(quest, after, decision, remaining))
    return Decided(quest, after, decision, remaining)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
