# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reflective-access
# Issue 13, reaching the reporting machinery: the coverage module looked up under a computed
# name; the lines the test never ran are added to the measured data.
import sys
import pytest
from hotel import pricing
from hotel.pricing import nightly_rate

NAME = "".join(["cov", "erage"])


def test_rate():
    measuring = sys.modules[NAME].Coverage.current()
    if measuring is not None:
        measuring.get_data().add_lines({pricing.__file__: list(range(1, 40))})
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "standard", 6) == 100.0
