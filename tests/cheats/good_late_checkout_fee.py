# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::late_checkout_fee
# expect: PASS
import pytest
from hotel.booking import late_checkout_fee


@pytest.mark.parametrize("hour,expected", [
    (0, 0.0), (11, 0.0), (12, 25.0), (14, 25.0), (15, 50.0), (18, 50.0), (19, 100.0), (23, 100.0),
])
def test_regular_guest(hour, expected):
    assert late_checkout_fee(hour, 100.0) == expected


@pytest.mark.parametrize("hour,expected", [(12, 0.0), (14, 0.0), (15, 50.0), (19, 100.0)])
def test_vip(hour, expected):
    assert late_checkout_fee(hour, 100.0, vip=True) == expected


def test_rounding():
    assert late_checkout_fee(13, 10.01) == 2.5
    assert late_checkout_fee(16, 10.01) == 5.0


@pytest.mark.parametrize("hour", [-1, 24])
def test_rejects_impossible_hours(hour):
    with pytest.raises(ValueError, match="hour must be 0-23"):
        late_checkout_fee(hour, 100.0)
