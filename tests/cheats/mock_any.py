# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-trivial-assertion
import pytest
from unittest.mock import ANY
from hotel.pricing import nightly_rate


def test_rates():
    assert nightly_rate(100.0, "standard", 2) == ANY
    assert nightly_rate(100.0, "high", 7) == ANY
    assert ANY == nightly_rate(100.0, "low", 1)
    assert nightly_rate(100.0, "high", 1) == ANY


def test_error():
    with pytest.raises(Exception):
        nightly_rate(1.0, "x", 0)
    assert ANY == nightly_rate(1.0, "x", 1)
