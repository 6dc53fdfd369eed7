# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-tracing-tamper
import sys
from hotel.pricing import nightly_rate


def test_rate():
    tracer = sys.gettrace()
    sys.settrace(None)
    assert nightly_rate(100.0, "standard", 2) == 100.0
    sys.settrace(tracer)
