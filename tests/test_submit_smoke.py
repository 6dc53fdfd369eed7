"""End-to-end submit on example_project with real pytest subprocesses."""

from __future__ import annotations

from pytest_quest.states import Outcome, State

PARTIAL = """
from hotel.pricing import nightly_rate

def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0
"""

FULL = """
import pytest
from hotel.pricing import nightly_rate

def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0

def test_high_long_stay():
    assert nightly_rate(100.0, "high", 7) == 112.5

def test_high_short():
    assert nightly_rate(100.0, "high", 6) == 125.0

def test_low():
    assert nightly_rate(100.0, "low", 1) == 80.0

def test_long_stay_discount_boundary():
    assert nightly_rate(100.0, "standard", 7) == 90.0

def test_one_night_is_allowed():
    assert nightly_rate(10.0, "standard", 1) == 10.0

def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""


def test_partial_test_fails_with_exact_missing_lines(submit_test):
    result = submit_test("hotel/pricing.py::nightly_rate", PARTIAL)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.quest.state is State.TODO and result.quest.tries == 1
    (fact,) = result.verdict.facts
    assert fact.rule == "coverage-lines"
    assert fact.where == "hotel/pricing.py:7,9,11,15"


def test_full_test_passes_and_locks(submit_test):
    result = submit_test("hotel/pricing.py::nightly_rate", FULL)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    assert result.quest.state is State.PASS
    assert result.quest.evidence["test"] == "tests/quest/test_hotel_pricing__nightly_rate.py"
