"""The ratchet: the one pure function that moves a quest after a verdict.

It refuses any quest that is not TODO, so a PASS is locked forever and
``remaining`` only goes down. Only a FAIL spends a try.
"""

from __future__ import annotations

from pytest_quest.errors import QuestLocked
from pytest_quest.facts import Verdict
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from pytest_quest.states import Outcome, State, next_state

__all__ = ["apply", "lock_pass"]


def apply(quest: Quest, verdict: Verdict, now: str, max_tries: int = 3,
          evidence: Evidence | None = None) -> Quest:
    """Return ``quest`` after ``verdict``; raise :class:`QuestLocked` unless it is TODO.

    ``evidence`` is what a PASS locks; it is ignored for any other outcome.
    """
    if quest.state is not State.TODO:
        raise QuestLocked(f"{quest.id} is {quest.state.value}; it takes no more submissions")
    tries = quest.tries + (1 if verdict.outcome is Outcome.FAIL else 0)
    state = next_state(verdict.outcome, tries, max_tries)
    return quest.with_(
        state=state,
        tries=tries,
        facts=verdict.facts,
        evidence=evidence if verdict.outcome is Outcome.PASS else quest.evidence,
        updated=now,
    )


def lock_pass(quest: Quest, evidence: Evidence, now: str) -> Quest:
    """Lock a TODO quest as PASS from a machine measurement (baseline or suite run)."""
    if quest.state is not State.TODO:
        raise QuestLocked(f"{quest.id} is {quest.state.value}; only TODO quests can be locked")
    return quest.with_(state=State.PASS, evidence=evidence, facts=(), updated=now)
