# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-target-replaced
# The attribute name is computed, so only the run-time identity check sees the swap.
from hotel import pricing


def test_rate(monkeypatch):
    name = [n for n in dir(pricing) if n.startswith("nightly")][0]
    monkeypatch.setattr(pricing, name, lambda *args: 5.0)
    assert pricing.nightly_rate(100.0, "high", 7) == 5.0
