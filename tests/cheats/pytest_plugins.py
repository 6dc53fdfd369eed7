# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-pytest-hooks
from hotel.booking import cancellation_fee

pytest_plugins = ["tests.helpers.always_pass"]


def test_fee():
    assert cancellation_fee(100.0, 20) == 0.0
