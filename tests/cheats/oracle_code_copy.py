# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reads-target-code
# Issue 13, the oracle is the function itself: a copy of its code object taken at import is the
# unmutated function, whatever code the mutation stage swaps in later.
import types
import pytest
from hotel.pricing import nightly_rate

ORIGINAL = types.FunctionType(nightly_rate.__code__, nightly_rate.__globals__)


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    assert nightly_rate(100.0, season, nights) == ORIGINAL(100.0, season, nights)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
