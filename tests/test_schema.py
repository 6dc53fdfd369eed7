"""Bug 9: the whole ledger is checked on load and refused, untouched, by every command.

A damaged value must never travel: not into a traceback (``tries: "2"`` crashed
``status``), not into a silent rewrite (a ledger that lost ``quests`` in a bad
merge was read as empty and the next ``scan`` wrote an empty ledger over it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.errors import CorruptLedger
from pytest_quest.ledger import Ledger
from pytest_quest.schema import loads, validate


def _quest(n: int = 1, **changes: Any) -> dict[str, Any]:
    quest = {"id": f"m.py::f{n}", "path": "m.py", "qualname": f"f{n}", "state": "TODO",
             "tries": 0, "lines": [n * 10, n * 10 + 2], "body": [n * 10 + 1, n * 10 + 2]}
    quest.update(changes)
    return {k: v for k, v in quest.items() if v is not _DROP}


_DROP = object()


def _ledger(*quests: dict[str, Any], **top: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"schema": 1, "tool": "pytest-quest", "settings": {}, "scans": [],
                            "snapshot": {}, "quests": list(quests)}
    data.update(top)
    return {k: v for k, v in data.items() if v is not _DROP}


DAMAGED = {
    "tries is text": (_ledger(_quest(tries="2")), "quests[0].tries"),
    "tries negative": (_ledger(_quest(tries=-1)), "quests[0].tries"),
    "tries a bool": (_ledger(_quest(tries=True)), "quests[0].tries"),
    "tries a float": (_ledger(_quest(tries=1.0)), "quests[0].tries"),
    "duplicate ids": (_ledger(_quest(1), _quest(1)), "appears twice"),
    "no quests key": (_ledger(quests=_DROP), "'quests' is missing"),
    "quests not a list": (_ledger(quests={}), "quests: expected a list"),
    "missing state": (_ledger(_quest(state=_DROP)), "'state' is missing"),
    "unknown state": (_ledger(_quest(state="LOCKED")), "quests[0].state"),
    "lines reversed": (_ledger(_quest(lines=[9, 3])), "quests[0].lines"),
    "empty id": (_ledger(_quest(id="")), "quests[0].id"),
    "fact not text": (_ledger(_quest(facts=[{"rule": 1}])), "quests[0].facts[0]"),
    "lease time garbage": (_ledger(_quest(lease={"agent": "a", "until": "soon"})),
                           "lease.until"),
    "evidence not an object": (_ledger(_quest(evidence=[1])), "quests[0].evidence"),
    "snapshot not an object": (_ledger(snapshot=[]), "snapshot"),
    "snapshot digest a number": (_ledger(snapshot={"m.py": 3}), "snapshot['m.py']"),
    "missing lines not ints": (_ledger(_quest(missing=["7"])), "quests[0].missing"),
    "old missing lines not ints": (_ledger(_quest(extra={"missing": ["7"]})), "extra.missing"),
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_every_damage_is_named_with_its_place(name: str) -> None:
    data, place = DAMAGED[name]
    with pytest.raises(ValueError, match=place.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(")):
        validate(data)


def test_a_sound_ledger_passes() -> None:
    full = _quest(2, facts=[{"rule": "r", "level": "fail", "where": "w", "expected": "e",
                             "actual": "a"}], lease={"agent": "a", "until": "2026-01-01T00:00:00Z"},
                  evidence={"source": "baseline"}, extra={"missing": [21]}, missing=[21])
    validate(_ledger(_quest(1), full, skipped=[{"id": "m.py::g", "reason": "pragma"}]))


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',
                                  '{"a": 1e999}'])
def test_numbers_that_are_not_finite_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not"):
        loads(text)
    assert loads('{"a": 1.5}') == {"a": 1.5}


def _write(root: Path, data: Any) -> tuple[Path, str]:
    path = Ledger.for_root(root).path
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2)
    path.write_text(text)
    return path, text


def test_infinite_number_in_a_ledger_file_is_corrupt(tmp_path: Path) -> None:
    path = Ledger.for_root(tmp_path).path
    path.parent.mkdir()
    text = json.dumps(_ledger(_quest(extra={"score": 1.0}))).replace("1.0", "Infinity")
    path.write_text(text)
    with pytest.raises(CorruptLedger, match="Infinity"):
        Ledger.load(path)


@pytest.mark.parametrize("args", [("status",), ("status", "--json"), ("next",),
                                  ("next", "--json"), ("show", "m.py::f1"), ("export",),
                                  ("review",), ("scan", "--no-baseline")])
def test_every_command_refuses_a_damaged_ledger_and_leaves_it(tmp_path: Path,
                                                              args: tuple[str, ...]) -> None:
    (tmp_path / "m.py").write_text("def f1():\n    return 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.pytest-quest]\nsources = ["m.py"]\n')
    path, text = _write(tmp_path, _ledger(_quest(1, tries="2")))
    result = CliRunner().invoke(cli, [*args, "--root", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "is corrupt (quests[0].tries: expected a whole number" in result.stderr
    assert "left as it was" in result.stderr
    assert path.read_text() == text
    if "--json" in args:
        assert json.loads(result.stdout)["kind"] == "CorruptLedger"


def test_scan_never_rewrites_a_ledger_that_lost_its_quests(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f1():\n    return 1\n")
    path, text = _write(tmp_path, _ledger(quests=_DROP))
    result = CliRunner().invoke(cli, ["scan", "--no-baseline", "--source", "m.py",
                                      "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "'quests' is missing" in result.stderr
    assert path.read_text() == text
