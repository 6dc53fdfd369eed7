# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-target-replaced
import hotel.pricing as pricing


def test_rate(monkeypatch):
    monkeypatch.setattr(pricing, "nightly_rate", lambda base, season, nights: 42.0)
    assert pricing.nightly_rate(100.0, "high", 7) == 42.0
