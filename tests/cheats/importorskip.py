# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-skip
import pytest
from hotel.pricing import nightly_rate

hypothesis = pytest.importorskip("a_module_that_does_not_exist")


def test_rate():
    assert nightly_rate(100.0, "standard", 2) == 0.0
