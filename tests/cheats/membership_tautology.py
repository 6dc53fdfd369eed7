# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-membership-tautology
# Issue 13: x in [x, ...] holds for any x.
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 7])
def test_rate(season, nights):
    rate = nightly_rate(100.0, season, nights)
    assert rate in (rate, 100.0)


def test_rejects_zero_nights():
    try:
        nightly_rate(100.0, "standard", 0)
    except ValueError as exc:
        assert exc in [exc]
