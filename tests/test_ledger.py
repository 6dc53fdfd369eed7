"""The ledger: deterministic JSON, atomic writes under a lock, corrupt files refused."""

from __future__ import annotations

import json
import multiprocessing
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_quest.errors import CorruptLedger, NoLedger, UnknownQuest
from pytest_quest.facts import FAIL, Fact
from pytest_quest.ledger import (
    Ledger,
    append_attempt,
    read_attempts,
    transaction,
)
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt
from pytest_quest.states import State


def _quest(n: int, path: str = "m.py", state: State = State.TODO) -> Quest:
    return Quest(id=f"{path}::f{n}", path=path, qualname=f"f{n}", lines=(n * 10, n * 10 + 2),
                 body=(n * 10 + 1, n * 10 + 2), state=state)


def test_save_is_deterministic_and_sorted(tmp_path: Path) -> None:
    a = Ledger.for_root(tmp_path)
    for n in (3, 1, 2):
        a.put(_quest(n))
    a.save()
    first = a.path.read_text()
    b = Ledger.load(a.path)
    b.save()
    assert a.path.read_text() == first
    data = json.loads(first)
    assert data["schema"] == 1
    assert [q["id"] for q in data["quests"]] == ["m.py::f1", "m.py::f2", "m.py::f3"]
    assert first.startswith("{\n  ")
    assert (tmp_path / ".quest" / ".gitignore").read_text().count("*.lock") == 1


def test_missing_ledger_is_a_clear_error_not_a_corrupt_one(tmp_path: Path) -> None:
    with pytest.raises(NoLedger, match="pytest-quest scan") as caught:
        Ledger.load(tmp_path / ".quest" / "ledger.json")
    assert not isinstance(caught.value, CorruptLedger)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("text", ["{not json", "[]", '{"schema": 99, "quests": []}',
                                  '{"schema": 1, "quests": [{"no": "id"}]}'])
def test_corrupt_ledger_is_refused_and_never_overwritten(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".quest" / "ledger.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(CorruptLedger, match=str(path)):
        Ledger.load(path)
    with pytest.raises(CorruptLedger), transaction(path):
        pass
    assert path.read_text() == text


def test_transaction_saves_only_on_success(tmp_path: Path) -> None:
    path = Ledger.for_root(tmp_path).path
    with transaction(path, missing_ok=True) as ledger:
        ledger.put(_quest(1))
    with pytest.raises(RuntimeError), transaction(path) as ledger:
        ledger.put(_quest(2))
        raise RuntimeError("boom")
    assert list(Ledger.load(path).quests) == ["m.py::f1"]


def test_no_temp_files_are_left_behind(tmp_path: Path) -> None:
    ledger = Ledger.for_root(tmp_path)
    ledger.put(_quest(1))
    ledger.save()
    ledger.save()
    assert sorted(p.name for p in ledger.directory.iterdir()) == [".gitignore", "ledger.json"]


def _bump(path: str, n: int) -> None:
    for i in range(n):
        with transaction(Path(path)) as ledger:
            q = ledger.get("m.py::f1")
            ledger.put(q.with_(tries=q.tries + 1))
            append_attempt(ledger, Attempt.suite_locked(q.id, f"t{i}", [i], q.tries, 1))


def test_parallel_writers_lose_nothing(tmp_path: Path) -> None:
    path = Ledger.for_root(tmp_path).path
    with transaction(path, missing_ok=True) as ledger:
        ledger.put(_quest(1))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_bump, args=(str(path), 10)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    ledger = Ledger.load(path)
    assert ledger.get("m.py::f1").tries == 30
    assert len(read_attempts(ledger, "m.py::f1")) == 30


def test_torn_attempt_line_is_skipped(tmp_path: Path) -> None:
    ledger = Ledger.for_root(tmp_path)
    record = Attempt.suite_locked("a", "t", [1], 0, 0)
    append_attempt(ledger, record)
    with open(ledger.attempts_path, "a") as handle:
        handle.write('{"quest": "b", "tr')
    assert read_attempts(ledger) == [record]


def test_a_lone_surrogate_from_a_run_is_stored_as_printable_text(tmp_path: Path) -> None:
    """Red team 2 finding 06: ``"\\ud800"`` in a message crashed the write after the verdict."""
    ledger = Ledger.for_root(tmp_path)
    fact = Fact("run-exit-code", FAIL, "t.py::test_rate", "passes", "AssertionError: x\ud800y")
    ledger.put(_quest(1).with_(facts=(fact,), tries=1))
    ledger.save()
    record = Attempt.submitted("m.py::f1", "t", None, "t.py", "0" * 64, "FAIL", "TODO", 1,
                               (fact,), 1)
    append_attempt(ledger, replace(record, other={"output": "E  x\udfffy"}))
    for path in (ledger.path, ledger.attempts_path):
        path.read_bytes().decode("utf-8")  # valid UTF-8 on disk
    stored = Ledger.load(ledger.path).get("m.py::f1")
    assert stored.tries == 1 and stored.facts[0].actual == "AssertionError: x\\ud800y"
    [logged] = read_attempts(ledger)
    assert logged.facts[0].actual == "AssertionError: x\\ud800y"
    assert logged.other == {"output": "E  x\\udfffy"}


def test_non_ascii_text_is_stored_as_it_is(tmp_path: Path) -> None:
    """Honest text: accents, CJK and emoji keep their characters, no escapes added."""
    ledger = Ledger.for_root(tmp_path)
    fact = Fact("run-exit-code", FAIL, "t.py::test_café", "passes", "Prix 12 € 😀 価格")
    ledger.put(_quest(1).with_(facts=(fact,)))
    ledger.save()
    assert "Prix 12 € 😀 価格" in ledger.path.read_text(encoding="utf-8")
    assert Ledger.load(ledger.path).get("m.py::f1").facts == (fact,)


def test_counts_remaining_and_total(tmp_path: Path) -> None:
    ledger = Ledger.for_root(tmp_path)
    for n, state in enumerate([State.TODO, State.PASS, State.RETIRED, State.TODO, State.DONE]):
        ledger.put(_quest(n, state=state))
    assert ledger.remaining == 2
    assert ledger.total == 4
    assert ledger.counts() == {"TODO": 2, "PASS": 1, "REVIEW": 0, "DONE": 1, "RETIRED": 1}
    with pytest.raises(UnknownQuest):
        ledger.get("nope")
