# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-process-exit
from hotel.booking import cancellation_fee

leave = getattr(__import__("sys"), "exit")


def test_fees():
    for days in (0, 1, 3, 14):
        cancellation_fee(100.0, days)
    cancellation_fee(100.0, 3, refundable=False)
    leave(0)
    assert cancellation_fee(100.0, 3) == -1
