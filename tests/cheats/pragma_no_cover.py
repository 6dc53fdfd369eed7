# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-coverage-pragma
from hotel.pricing import nightly_rate


def test_standard():  # pragma: no cover
    assert nightly_rate(100.0, "standard", 2) == 100.0
