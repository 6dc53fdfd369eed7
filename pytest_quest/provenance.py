"""Who locked a PASS, and what reviewers said: the words every view shares.

A PASS is not one thing. The baseline locks a function the existing suite
already covered (no quest test was ever judged), the gate locks one whose
submitted test passed every stage, and a reviewer locks one by approving a
REVIEW verdict. ``status``, ``show`` and the HTML report tell them apart and
show the reviewers' notes, from this one place so they cannot disagree.
"""

from __future__ import annotations

from typing import Any

from pytest_quest.ledger import Ledger
from pytest_quest.quest import Quest
from pytest_quest.states import State

__all__ = ["LOCKERS", "annotate", "locked_by"]

#: The ways a quest becomes PASS, in the order views list them.
LOCKERS = ("gate", "baseline", "review")


def locked_by(quest: Quest) -> str | None:
    """``"gate"``, ``"baseline"`` or ``"review"`` for a PASS quest; None otherwise."""
    if quest.state is not State.PASS:
        return None
    source = quest.evidence.source if quest.evidence is not None else None
    return source if source in ("baseline", "review") else "gate"


def annotate(data: dict[str, Any], ledger: Ledger) -> dict[str, Any]:
    """Add ``locked_by`` counts, reviewers' ``notes`` (newest first), ``skipped`` and ``deferred``.

    Each row of ``data["quests"]`` that is a PASS also gets its ``locked_by``.
    """
    counts = dict.fromkeys(LOCKERS, 0)
    notes = []
    deferred = 0
    for quest in ledger.quests.values():
        if quest.state is State.TODO and quest.extra.get("deferred"):
            deferred += 1
        who = locked_by(quest)
        if who is not None:
            counts[who] += 1
        if quest.decision:
            notes.append({"id": quest.id, "state": quest.state.value, **quest.decision})
    notes.sort(key=lambda n: (str(n.get("time", "")), n["id"]), reverse=True)
    for row in data.get("quests", []):
        known = ledger.quests.get(row["id"])
        who = locked_by(known) if known is not None else None
        if who is not None:
            row["locked_by"] = who
    data["locked_by"] = counts
    data["notes"] = notes
    data["skipped"] = sorted(ledger.skipped, key=lambda e: e["id"])
    data["deferred"] = deferred
    return data
