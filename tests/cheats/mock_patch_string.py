# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-target-replaced
from unittest import mock
from hotel import booking


def test_fee():
    with mock.patch("hotel.booking.cancellation_fee", return_value=0.0):
        assert booking.cancellation_fee(100.0, 0) == 0.0
