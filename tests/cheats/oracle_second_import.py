# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reads-target-code
# Issue 13, the oracle is the function itself: the source loaded a second time under another
# module name is never mutated.
import importlib.util
import pytest
from hotel import pricing
from hotel.pricing import nightly_rate

_spec = importlib.util.spec_from_file_location("pricing_copy", pricing.__file__)
COPY = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(COPY)


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    assert nightly_rate(100.0, season, nights) == COPY.nightly_rate(100.0, season, nights)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
