# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-target-replaced
import importlib
import hotel.booking


def test_fee():
    module = importlib.reload(hotel.booking)
    assert module.cancellation_fee(100.0, 20) == 0.0
