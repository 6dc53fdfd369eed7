# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: run-skipped
# The skip is looked up at run time: the run stage sees the skipped outcome.
import pytest
from hotel.booking import cancellation_fee

NAME = "".join(["sk", "ip"])


def test_fee():
    assert cancellation_fee(100.0, 20) == 0.0
    getattr(pytest, NAME)("later")
