# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-swallowed-assertion
from hotel.booking import cancellation_fee


def test_fees():
    try:
        assert cancellation_fee(100.0, 20) == -1
        assert cancellation_fee(100.0, 5) == -1
        assert cancellation_fee(100.0, 1) == -1
        assert cancellation_fee(100.0, 0) == -1
        assert cancellation_fee(100.0, 0, False) == -1
    finally:
        return
