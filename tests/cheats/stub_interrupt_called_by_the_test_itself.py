# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-no-report
# The same with KeyboardInterrupt, which pytest does not turn into a failed test: it ends the
# session. A first test covers every line and passes; the second interrupts the run through a
# stub it calls itself (through getattr, so the static rule takes it for a stub), hiding the
# failure that follows. The run never reports: the measured run ends without its answer.
import pytest
from hotel.pricing import nightly_rate


class Hooks:
    def halt(self):
        raise KeyboardInterrupt


def test_rates():
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "standard", 2) == 100.0
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)


def test_stop_here():
    getattr(Hooks(), "ha" + "lt")()
    assert nightly_rate(100.0, "standard", 2) == -1
