# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-swallowed-assertion
import contextlib
from hotel.booking import cancellation_fee


def check(days, expected, refundable=True):
    assert cancellation_fee(100.0, days, refundable) == expected


def test_fees():
    with contextlib.suppress(AssertionError):
        check(20, 1.0)
        check(5, 1.0)
        check(1, 1.0)
        check(0, 1.0)
        check(9, 1.0, refundable=False)
