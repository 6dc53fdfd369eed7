"""Hand one quest to an agent: what ``next``, ``loop`` and the MCP server share.

It reads the ledger as plain JSON and builds a :class:`Quest` only for the
quest it hands out: on a 14,000-quest ledger, choosing costs one pass over
dictionaries, and the answer costs reading one source file.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_quest.config import Settings, find_root, load_settings
from pytest_quest.ledger import Ledger, read_document
from pytest_quest.pool import Leases, Shard, Survey, pick
from pytest_quest.prompt import Brief, brief
from pytest_quest.quest import Quest
from pytest_quest.states import State

__all__ = ["Handout", "hand_out"]

_STATES = tuple(s.value for s in State)


class Handout:
    """The quest handed out (``brief`` is None when none is free) and where the pool stands."""

    __slots__ = ("agent", "brief", "counts", "lease", "leased", "settings", "shard")

    def __init__(self, settings: Settings, brief: Brief | None, survey: Survey,
                 agent: str | None = None, shard: Shard | None = None,
                 lease: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.brief = brief
        #: Every state -> number of quests (zeros included, in the ledger's state order).
        self.counts = {s: survey.counts.get(s, 0) for s in _STATES}
        #: TODO quests leased to other agents right now.
        self.leased = survey.leased
        self.agent = agent
        self.shard = shard
        self.lease = lease

    @property
    def remaining(self) -> int:
        return self.counts[State.TODO.value]

    @property
    def total(self) -> int:
        return sum(n for state, n in self.counts.items() if state != State.RETIRED.value)

    def to_dict(self) -> dict[str, Any]:
        """The ``next --json`` document (the MCP ``next_quest`` tool returns the same)."""
        common = {"remaining": self.remaining, "agent": self.agent,
                  "shard": str(self.shard) if self.shard else None}
        if self.brief is None:
            return {"quest": None, "total": self.total, "counts": self.counts,
                    "leased": self.leased, **common}
        data = self.brief.to_dict()
        data.update(common, lease_until=self.lease["until"] if self.lease else None)
        return data


def hand_out(root: Path | None, agent: str | None = None, shard: Shard | None = None,
             exclude: Iterable[str] = (), now: datetime | None = None) -> Handout:
    """The next quest for ``agent`` (leased to it when named) in ``shard``, skipping ``exclude``.

    Without an agent nothing is written. With one, choosing and leasing happen
    under the lease lock, and the ledger is read inside it: a quest another
    agent just locked is seen locked, because that agent frees its lease only
    after the ledger says so.
    """
    base = find_root(root)
    path = Ledger.for_root(base).path
    leases = Leases(path.parent)
    moment = now or datetime.now(UTC)
    lease = None
    if agent is None:
        data = read_document(path) or {}
        settings = load_settings(base, data.get("settings"))
        survey = pick(data.get("quests", ()), leases.live(moment), None, shard, exclude)
    else:
        with leases.edit(moment) as held:
            data = read_document(path) or {}
            settings = load_settings(base, data.get("settings"))
            survey = pick(data.get("quests", ()), held, agent, shard, exclude)
            if survey.chosen is not None:
                lease = leases.grant(held, agent, survey.chosen["id"], settings.lease_seconds,
                                     moment)
    chosen = survey.chosen
    ids = [str(q.get("id")) for q in data.get("quests", ())]
    item = (brief(Quest.from_dict(chosen), settings, ids, data.get("quests", ()))
            if chosen is not None else None)
    return Handout(settings, item, survey, agent, shard, lease)
