"""Steering the queue by hand: take a named quest, or defer one without spending a try.

``next`` hands out TODO quests in ledger order (:func:`pytest_quest.pool.pick`).
A person, or an agent that knows better, sometimes needs another order:
``next --id QUEST`` takes a named quest, ``skip QUEST`` sends one to the back
of the queue (``pick`` orders deferred quests last, longest deferred first).
Neither is a verdict: no try is spent, nothing is locked, and the attempts log
records a skip so a maintainer can see which quests keep being put off.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_quest.config import find_root, load_settings
from pytest_quest.errors import QuestLocked, UsageError
from pytest_quest.handout import Handout
from pytest_quest.ledger import Ledger, now_iso, read_document, unknown_message
from pytest_quest.pool import Leases, Survey
from pytest_quest.prompt import brief
from pytest_quest.quest import Quest
from pytest_quest.states import State

__all__ = ["DEFERRED", "SKIP", "defer", "take"]

#: The key in a quest's ``extra`` holding when it was last deferred (ISO time).
DEFERRED = "deferred"
#: The attempts-log kind of a deferral (no verdict, no try).
SKIP = "skip"


def _todo(raw: dict[str, object] | None, quest_id: str, ids: list[str]) -> dict[str, object]:
    if raw is None:
        raise UsageError(unknown_message(quest_id, ids))
    if raw.get("state") != State.TODO.value:
        raise QuestLocked(f"{quest_id} is {raw.get('state')}: only TODO quests are in the queue")
    return raw


def take(root: Path | None, quest_id: str, agent: str | None = None,
         now: datetime | None = None) -> Handout:
    """The TODO quest ``quest_id`` as ``next`` hands it out, leased to ``agent`` when named.

    A quest another agent holds a live lease on is refused: two agents must
    never work on one quest. The agent's lease on any other quest ends, as
    with ``next --agent``.
    """
    base = find_root(root)
    path = Ledger.for_root(base).path
    leases = Leases(path.parent)
    moment = now or datetime.now(UTC)
    lease = None
    ids: list[str] = []  # every quest of the ledger, for the test path
    records: list[dict[str, Any]] = []  # ... and their locks

    def choose(held: dict[str, dict[str, str]]
               ) -> tuple[dict[str, object], Survey, dict[str, object] | None]:
        data = read_document(path) or {}
        quests = data.get("quests", [])
        by_id = {q["id"]: q for q in quests}
        raw = _todo(by_id.get(quest_id), quest_id, list(by_id))
        holder = held.get(quest_id, {}).get("agent")
        if holder is not None and holder != agent and agent is not None:
            raise UsageError(f"{quest_id} is leased to {holder} until "
                             f"{held[quest_id]['until']}")
        counts: dict[str, int] = {}
        for q in quests:
            counts[q["state"]] = counts.get(q["state"], 0) + 1
        leased = sum(1 for k, v in held.items()
                     if k != quest_id and v.get("agent") != agent and k in by_id)
        recorded = data.get("settings")
        ids.extend(by_id)
        records.extend(quests)
        return raw, Survey(raw, counts, leased), recorded if isinstance(recorded, dict) else None

    if agent is None:
        raw, survey, recorded = choose(leases.live(moment))
        settings = load_settings(base, recorded)
    else:
        with leases.edit(moment) as held:
            raw, survey, recorded = choose(held)
            settings = load_settings(base, recorded)
            lease = leases.grant(held, agent, quest_id, settings.lease_seconds, moment)
    item = brief(Quest.from_dict(raw), settings, ids, records)
    return Handout(settings, item, survey, agent, None, lease)


def defer(ledger: Ledger, quest_id: str, now: str | None = None) -> Quest:
    """Send a TODO quest to the back of the queue (inside a ledger transaction)."""
    now = now or now_iso()
    quest = ledger.get(quest_id)
    if quest.state is not State.TODO:
        raise QuestLocked(f"{quest_id} is {quest.state.value}: only TODO quests are in the queue")
    quest = quest.with_(extra={**quest.extra, DEFERRED: now}, updated=now)
    ledger.put(quest)
    return quest
