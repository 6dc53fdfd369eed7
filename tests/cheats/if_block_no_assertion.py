# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-no-assertion
# Tests defined inside a module-level block are collected by pytest like top-level ones.
import sys
import pytest
from hotel.pricing import nightly_rate

if sys.version_info >= (3,):
    def test_everything():
        nightly_rate(100.0, "standard", 2)
        nightly_rate(100.0, "high", 7)
        nightly_rate(100.0, "low", 1)
        nightly_rate(100.0, "high", 1)
else:
    def test_everything():
        assert nightly_rate(100.0, "standard", 2) == 100.0

try:
    import json
except ImportError:
    pass
else:
    class TestMore:
        def test_errors(self):
            with pytest.raises(ValueError):
                nightly_rate(100.0, "standard", 0)
