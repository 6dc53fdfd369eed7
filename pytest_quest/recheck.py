"""Judge again the locked tests that changed since their lock.

A PASS locked by a submitted test holds only while that test is the one the
gate judged: ``--quest-check`` fails with ``ratchet-test-changed`` (old ->
new sha256) as soon as the file differs. ``recheck`` runs the gate on the
file as it is now. A PASS relocks the quest with fresh evidence (the old
digest kept in ``rechecked_from``); anything else leaves the lock and its
old evidence as they were, so the ratchet keeps failing until the test is
restored or good again. Nothing is ever unlocked and no try is spent. A lock
a maintainer approved (unreachable lines) comes back as REVIEW: a changed
test needs a person again, so it stays a failure until it is restored.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.errors import UsageError
from pytest_quest.facts import Fact
from pytest_quest.ledger import Ledger, append_attempt, now_iso, transaction
from pytest_quest.lockcheck import locked_test
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt, Evidence
from pytest_quest.sandbox import sha256
from pytest_quest.states import Outcome, State
from pytest_quest.submission import Claim

__all__ = ["Recheck", "changed_locks", "recheck"]


@dataclass
class Recheck:
    """The gate's answer for one changed locked test."""

    quest: str
    test: str
    old: str
    new: str | None
    verdict: str
    facts: list[Fact] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"quest": self.quest, "test": self.test, "old_sha256": self.old,
                "new_sha256": self.new, "verdict": self.verdict,
                "facts": [f.to_dict() for f in self.facts]}


def changed_locks(ledger: Ledger) -> list[Quest]:
    """PASS quests whose locked test file differs from the one the gate judged."""
    out = []
    for quest in ledger.ordered():
        test = locked_test(quest) if quest.state is State.PASS else None
        old = quest.evidence.sha256 if quest.evidence else None
        if test is None or not old:
            continue
        try:
            now = sha256((ledger.root / test).read_bytes())
        except OSError:
            now = None
        if now != old:
            out.append(quest)
    return out


def recheck(settings: Settings, quest_ids: tuple[str, ...] = ()) -> list[Recheck]:
    """Run the gate on every changed locked test (or only ``quest_ids``); relock the PASSes."""
    from pytest_quest.submit import evidence_of, judge

    path = Ledger.for_root(settings.root).path
    ledger = Ledger.load(path)
    todo = changed_locks(ledger)
    if quest_ids:
        wanted = set(quest_ids)
        for quest_id in wanted:
            ledger.get(quest_id)  # an unknown id is a usage error
        todo = [q for q in todo if q.id in wanted]
    results = []
    for quest in todo:
        test = locked_test(quest) or ""
        old = str(quest.evidence.sha256 if quest.evidence else "")
        try:
            data = (settings.root / test).read_bytes()
        except OSError:
            results.append(Recheck(quest.id, test, old, None, "MISSING"))
            continue
        verdict, sub = judge(settings, quest, test, data, ledger, _claims(quest))
        verdict = verdict.printable()  # run text, shown and logged (red team 2, finding 06)
        result = Recheck(quest.id, test, old, sha256(data), verdict.outcome.value,
                         list(verdict.facts))
        results.append(result)
        if verdict.outcome is Outcome.PASS:
            _relock(path, quest.id, replace(evidence_of(sub), rechecked_from=old))
        with contextlib.suppress(OSError):
            append_attempt(ledger, Attempt.rechecked(
                quest.id, now_iso(), test, result.new, old, result.verdict, quest.state.value,
                quest.tries, result.facts, ledger.remaining))
    return results


def _claims(quest: Quest) -> tuple[Claim, ...]:
    """The approved unreachable-line claims, offered again: the gate answers REVIEW for them."""
    out = []
    for claim in quest.evidence.unreachable if quest.evidence else ():
        if isinstance(claim.get("offset"), int):
            out.append(Claim(quest.lines[0] + claim["offset"], str(claim.get("reason", ""))))
    return tuple(out)


def _relock(path: Path, quest_id: str, evidence: Evidence) -> None:
    with transaction(path) as ledger:
        quest = ledger.get(quest_id)
        if quest.state is not State.PASS:
            raise UsageError(f"{quest_id} is {quest.state.value} now: not relocked")
        ledger.put(quest.with_(evidence=evidence, updated=evidence.time))
