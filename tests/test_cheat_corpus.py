"""The cheat corpus through the real gate: no cheat may PASS, each fails on its own rule.

Every file in ``tests/cheats/`` names its quest (``# quest: path::qualname``)
and what the gate must answer (``# expect: <rule-id>`` or ``# expect: PASS``).
Good tests are there too, so the rules are shown to stay quiet on strong
tests (and strong tests survive the later stages).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_quest.gate import CATALOG
from pytest_quest.states import Outcome
from pytest_quest.submit import Result

CORPUS = Path(__file__).resolve().parent / "cheats"
_HEADER = re.compile(r"^# (quest|expect): (\S+)\s*$", re.MULTILINE)


def _header(path: Path) -> dict[str, str]:
    found = dict(_HEADER.findall(path.read_text(encoding="utf-8")))
    assert {"quest", "expect"} <= found.keys(), f"{path.name}: missing # quest / # expect header"
    return found


FILES = sorted(CORPUS.glob("*.py"))
CHEATS = [p for p in FILES if _header(p)["expect"] != "PASS"]
GOOD = [p for p in FILES if _header(p)["expect"] == "PASS"]


def test_corpus_size_and_rules_exist() -> None:
    assert len(CHEATS) >= 20 and len(GOOD) >= 5
    known = {rule.id for rule in CATALOG}
    for path in CHEATS:
        assert _header(path)["expect"] in known, path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", CHEATS, ids=[p.stem for p in CHEATS])
def test_cheat_fails_on_its_rule(path: Path, submit_test: Callable[..., Result]) -> None:
    header = _header(path)
    result = submit_test(header["quest"], path.read_text(encoding="utf-8"))
    verdict = result.verdict
    fired = [f.rule for f in verdict.facts]
    assert verdict.outcome is Outcome.FAIL, (path.name, verdict.facts)
    assert header["expect"] == verdict.root_cause or header["expect"] in fired, (path.name, fired)
    fact = next(f for f in verdict.facts if f.rule == header["expect"])
    assert fact.where and fact.expected and fact.actual


@pytest.mark.slow
@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_good_test_passes(path: Path, submit_test: Callable[..., Result]) -> None:
    header = _header(path)
    result = submit_test(header["quest"], path.read_text(encoding="utf-8"))
    assert result.verdict.outcome is Outcome.PASS, (path.name, result.verdict.facts)
