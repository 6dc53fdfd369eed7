# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: PASS
import pytest
from hotel.booking import cancellation_fee


@pytest.mark.parametrize("days,expected", [
    (30, 0.0), (14, 0.0), (13, 50.0), (3, 50.0), (2, 100.0), (1, 100.0), (0, 200.0), (-1, 200.0),
])
def test_refundable(days, expected):
    assert cancellation_fee(200.0, days) == expected


def test_rounding_to_cents():
    assert cancellation_fee(10.01, 5) == 2.5
    assert cancellation_fee(10.01, 1) == 5.0


def test_non_refundable_always_pays_everything():
    assert cancellation_fee(200.0, 30, refundable=False) == 200.0
    assert cancellation_fee(200.0, 0, refundable=False) == 200.0
