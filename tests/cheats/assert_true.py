# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-trivial-assertion
from hotel.booking import cancellation_fee


def test_fee():
    for days in (0, 1, 3, 14):
        cancellation_fee(100.0, days)
    cancellation_fee(100.0, 5, refundable=False)
    assert True
    assert 1
