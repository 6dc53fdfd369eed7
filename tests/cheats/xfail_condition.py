# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-skipped
# An xfail whose condition holds in the sandbox turns a failing test into "xfailed".
# Statically it looks like a platform guard; the run stage sees the xfail.
import sys
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.xfail(sys.platform != "os/2", reason="platform quirk")
def test_all():
    nightly_rate(100.0, "high", 7)
    nightly_rate(100.0, "low", 1)
    nightly_rate(100.0, "standard", 0)
    assert False
