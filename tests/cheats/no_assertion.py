# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-no-assertion
# Calls every branch, checks nothing: full coverage, zero verification.
import pytest
from hotel.pricing import nightly_rate


def test_everything():
    nightly_rate(100.0, "standard", 2)
    nightly_rate(100.0, "high", 7)
    nightly_rate(100.0, "low", 1)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
    nightly_rate(100.0, "high", 1)


def test_more():
    result = nightly_rate(10.0, "high", 2)
    print(result)
