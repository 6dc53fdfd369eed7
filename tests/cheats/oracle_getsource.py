# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reads-target-code
# Issue 13, the oracle is the function itself: its source text, compiled again inside the test,
# is never the mutant.
import inspect
import pytest
from hotel.pricing import nightly_rate

_namespace = {}
exec(inspect.getsource(nightly_rate), _namespace)
ORIGINAL = _namespace["nightly_rate"]


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    assert nightly_rate(100.0, season, nights) == ORIGINAL(100.0, season, nights)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
