# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-trivial-assertion
from hotel.booking import cancellation_fee


def test_fee():
    assert (cancellation_fee(100.0, 20) == 0.0, "no fee two weeks ahead")
    assert (cancellation_fee(100.0, 5) == 25.0, "quarter")
    assert (cancellation_fee(100.0, 1) == 50.0, "half")
    assert (cancellation_fee(100.0, 0) == 100.0, "full")
    assert (cancellation_fee(100.0, 30, False) == 100.0, "non refundable")
