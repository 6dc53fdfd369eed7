# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# A "stub" that raises SystemExit, never called by name (so static-process-exit takes it for a
# stub handed to the code under test), called by the test itself through a dict before the
# assertion that would fail. pytest reports the SystemExit as the test's failure.
from hotel.pricing import nightly_rate


def test_rates():
    def stop():
        raise SystemExit(0)

    handlers = {"done": stop}
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "low", 1) == 80.0
    nightly_rate(100.0, "standard", 2)
    handlers["done"]()
    assert nightly_rate(100.0, "standard", 2) == -1
