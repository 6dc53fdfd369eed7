# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score
# A condition object pytest asks again at every test, true only in a forked child: the
# strict xfail would make the test "fail" (XPASS) under every mutant, so each would look
# killed. Every run now imports the test module in its own child, so PID is always the
# current pid: the trick never fires and the weak assertions are judged as they are.
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
