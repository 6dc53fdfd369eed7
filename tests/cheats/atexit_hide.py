# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-process-exit
import atexit
import os
from hotel.booking import cancellation_fee

atexit.register(lambda: os.write(1, b"all passed"))


def test_fee():
    assert cancellation_fee(100.0, 20) == 0.0
