# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-process-exit
import os
import signal as sg
from hotel.pricing import nightly_rate


def test_rates():
    nightly_rate(100.0, "high", 7)
    nightly_rate(100.0, "low", 1)
    assert nightly_rate(100.0, "standard", 2) == 1.0
    os.kill(os.getpid(), sg.SIGKILL)
