# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-skip
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.xfail(strict=False)
def test_all():
    nightly_rate(100.0, "high", 7)
    nightly_rate(100.0, "low", 1)
    nightly_rate(100.0, "standard", 0)
    assert False
