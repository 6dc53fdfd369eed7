# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-import-time-call
# Issue 13, the oracle is the function itself: parametrize arguments are computed at collection,
# before any mutant is in place.
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.parametrize("args, want", [
    ((100.0, s, n), nightly_rate(100.0, s, n)) for s in ("standard", "high", "low") for n in (1, 6, 7)
])
def test_rate(args, want):
    assert nightly_rate(*args) == want


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
