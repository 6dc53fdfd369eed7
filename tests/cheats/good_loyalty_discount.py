# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::loyalty_discount
# expect: PASS
import pytest
from hotel.pricing import loyalty_discount


def test_no_tier():
    assert loyalty_discount(None, 10) == 0.0


def test_unknown_tier():
    assert loyalty_discount("platinum", 10) == 0.0


@pytest.mark.parametrize("tier,expected", [("bronze", 5.0), ("silver", 10.0), ("GOLD", 15.0)])
def test_short_stays(tier, expected):
    result = loyalty_discount(tier, 5)
    assert result == expected
    assert isinstance(result, float)


def test_gold_long_stay_bonus_starts_after_five_nights():
    assert loyalty_discount("gold", 6) == 20.0
    assert loyalty_discount("Gold", 5) == 15.0
    assert loyalty_discount("silver", 6) == 10.0
