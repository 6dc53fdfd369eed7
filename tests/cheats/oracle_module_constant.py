# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-import-time-call
# Issue 13, the oracle is the function itself: expected values computed by the target while the
# module is imported; mutants swapped in after collection never reach them, so each one "fails".
import pytest
from hotel.pricing import nightly_rate

CASES = [(100.0, s, n) for s in ("standard", "high", "low") for n in (1, 6, 7)]
EXPECTED = {args: nightly_rate(*args) for args in CASES}


def test_rates():
    for args in CASES:
        assert nightly_rate(*args) == EXPECTED[args]


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
