# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-skip
# A skipif whose "condition" is a constant skips unconditionally: caught statically.
import pytest
from hotel.booking import cancellation_fee


@pytest.mark.skipif(not False, reason="python 2 only")
def test_fee():
    assert cancellation_fee(100.0, 20) == 1234.0


@pytest.mark.xfail(reason="known bug")
def test_fee_late():
    assert cancellation_fee(100.0, 1) == 1234.0
