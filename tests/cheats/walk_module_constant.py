# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|mutation-pseudo-tested
# pending: harness
# Walks around static-import-time-call: the function is looked up under a computed name when the
# module is imported, so its results become the expected values. Once the mutant is in place
# before the import, those values are the mutant's own.
import pytest
from hotel import pricing
from hotel.pricing import nightly_rate

CASES = [(100.0, s, n) for s in ("standard", "high", "low") for n in (1, 6, 7)]
_target = getattr(pricing, "_".join(["nightly", "rate"]))
EXPECTED = {args: _target(*args) for args in CASES}


def test_rates():
    for args in CASES:
        assert nightly_rate(*args) == EXPECTED[args]


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
