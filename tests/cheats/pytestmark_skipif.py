# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-skip
import sys
import pytest
from hotel.booking import cancellation_fee

pytestmark = pytest.mark.skipif(sys.version_info > (3,), reason="old python only")


def test_fee():
    assert cancellation_fee(100.0, 20) == 1234.0
