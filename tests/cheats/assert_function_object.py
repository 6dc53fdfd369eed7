# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-trivial-assertion
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.parametrize("season,nights", [("standard", 2), ("high", 7), ("low", 1), ("high", 1)])
def test_rate(season, nights):
    nightly_rate(100.0, season, nights)
    assert nightly_rate


def test_error():
    with pytest.raises(ValueError):
        raise ValueError("nights must be positive")
    nightly_rate(1.0, "low", 0) if False else None
    assert callable(nightly_rate)
