# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-target-replaced
from hotel.pricing import nightly_rate


def fake(base, season, nights):
    return 1.0


def test_rate():
    nightly_rate.__code__ = fake.__code__
    assert nightly_rate(100.0, "high", 7) == 1.0
