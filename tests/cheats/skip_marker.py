# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-skip
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.skip(reason="flaky on CI")
def test_broken():
    assert nightly_rate(100.0, "high", 7) == 0.0


def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0
