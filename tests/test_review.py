"""The review service: the queue it lists, and a decision written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_quest.decisions import REJECTED_RULE, Action
from pytest_quest.errors import QuestLocked, UsageError
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.review import queue, record_decision
from pytest_quest.states import State
from tests.test_cli_review import REVIEWED
from tests.test_cli_review import synthetic as synthetic  # the fixture: a reviewed test on disk

NOW = "2026-02-01T10:00:00Z"


def _load(root: Path) -> Ledger:
    return Ledger.load(Ledger.for_root(root).path)


def test_queue_holds_every_review_quest_with_the_submission_that_sent_it(
        synthetic: Path) -> None:
    ledger = _load(synthetic)
    items = queue(ledger)
    assert [i["id"] for i in items] == [q.id for q in ledger.ordered()
                                        if q.state is State.REVIEW]
    (item,) = [i for i in items if i["id"] == REVIEWED]
    assert item["submission"]["test"] == "tests/quest/test_8.py"
    assert queue(ledger, REVIEWED) == [item]


def test_a_rejection_is_written_with_its_log_line(synthetic: Path) -> None:
    before = len(read_attempts(_load(synthetic)))
    decided = record_decision(synthetic, REVIEWED, Action.REJECT, " cover the loop ", " Ada ",
                              now=NOW)
    ledger = _load(synthetic)
    quest = ledger.get(REVIEWED)
    assert quest == decided.after and quest.state is State.TODO
    assert quest.decision == {"action": "reject", "by": "Ada", "note": "cover the loop",
                              "time": NOW}
    assert [f.rule for f in quest.facts] == [REJECTED_RULE]
    (line,) = read_attempts(ledger)[before:]
    assert (line.kind, line.quest, line.state) == ("review", REVIEWED, "TODO")
    assert decided.to_dict()["remaining"] == ledger.remaining


def test_an_approval_locks_the_reviewed_bytes(synthetic: Path) -> None:
    decided = record_decision(synthetic, REVIEWED, Action.APPROVE, "fine", "Ada", now=NOW)
    assert decided.after.state is State.PASS
    assert decided.after.evidence is not None
    assert decided.after.evidence.test == "tests/quest/test_8.py"


@pytest.mark.parametrize(("change", "error"), [
    ("edit", UsageError),  # the file is no longer what was reviewed
    ("twice", QuestLocked),  # already decided: PASS
])
def test_a_refused_decision_writes_nothing(synthetic: Path, change: str,
                                           error: type[Exception]) -> None:
    if change == "edit":
        (synthetic / "tests" / "quest" / "test_8.py").write_text("def test_x():\n    pass\n")
    else:
        record_decision(synthetic, REVIEWED, Action.APPROVE, "fine", "Ada", now=NOW)
    ledger_bytes = Ledger.for_root(synthetic).path.read_bytes()
    log_bytes = _load(synthetic).attempts_path.read_bytes()
    with pytest.raises(error):
        record_decision(synthetic, REVIEWED, Action.APPROVE, "fine", "Ada", now=NOW)
    assert Ledger.for_root(synthetic).path.read_bytes() == ledger_bytes
    assert _load(synthetic).attempts_path.read_bytes() == log_bytes
