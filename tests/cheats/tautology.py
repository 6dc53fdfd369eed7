# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-trivial-assertion
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.parametrize("season,nights", [("standard", 2), ("high", 7), ("low", 1), ("high", 2)])
def test_rate_is_stable(season, nights):
    assert nightly_rate(100.0, season, nights) == nightly_rate(100.0, season, nights)


def test_zero_nights():
    try:
        nightly_rate(1.0, "low", 0)
    except ValueError as exc:
        assert exc is exc
