# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-machinery-detected
# A condition object pytest asks again at every test, true only in a forked child: the
# strict xfail makes the test "fail" (XPASS) under every mutant, so each would look killed.
# The unchanged null mutant is "killed" the same way, which gives the trick away.
import os
import pytest
from hotel.pricing import nightly_rate

PID = os.getpid()


class InChild:
    def __bool__(self):
        return os.getpid() != PID


@pytest.mark.xfail(InChild(), reason="flaky on some platforms", strict=True)
def test_rates():
    nightly_rate(100.0, "standard", 2)
    nightly_rate(100.0, "high", 7)
    nightly_rate(100.0, "low", 1)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
    assert nightly_rate(100.0, "high", 1) > 0
