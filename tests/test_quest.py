"""The quest record: round trips through the ledger's dict form, older ledgers migrate."""

from __future__ import annotations

from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from tests.test_ratchet import FACT, NOW, quest


def test_quest_round_trips_through_dict() -> None:
    q = quest(facts=(FACT,), evidence=Evidence.suite([2], "h", NOW, branches=2), tries=2)
    assert Quest.from_dict(q.to_dict()) == q


def test_missing_lines_round_trip_and_older_ledgers_migrate() -> None:
    q = quest(tries=1, missing=(7, 9))
    data = q.to_dict()
    assert data["missing"] == [7, 9]
    assert Quest.from_dict(data) == q
    assert "missing" not in quest().to_dict()  # never measured: no key
    assert Quest.from_dict(quest(missing=()).to_dict()).missing == ()  # measured, all covered
    older = {**quest().to_dict(), "extra": {"missing": [4], "note": "kept"}}
    migrated = Quest.from_dict(older)
    assert migrated.missing == (4,) and migrated.extra == {"note": "kept"}
