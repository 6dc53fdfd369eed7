# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-swallowed-assertion
import pytest
from hotel.pricing import nightly_rate


def test_rates():
    try:
        assert nightly_rate(100.0, "standard", 2) == 999.0
        assert nightly_rate(100.0, "high", 7) == 999.0
        assert nightly_rate(100.0, "low", 1) == 999.0
        assert nightly_rate(100.0, "high", 1) == 999.0
        nightly_rate(100.0, "high", 0)
    except Exception:
        pass
