# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-builtins-patched
import builtins
from hotel.pricing import nightly_rate


def test_rate(monkeypatch):
    monkeypatch.setattr(builtins, "round", lambda value, digits=0: 7.0)
    assert nightly_rate(100.0, "standard", 2) == 7.0
    assert nightly_rate(100.0, "high", 7) == 7.0
