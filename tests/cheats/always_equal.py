# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-trivial-assertion
from hotel.booking import cancellation_fee


class Whatever(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


def test_fees():
    for days in (0, 1, 3, 14):
        assert cancellation_fee(80.0, days) == Whatever()
    assert cancellation_fee(80.0, 3, refundable=False) == Whatever(80.0)
