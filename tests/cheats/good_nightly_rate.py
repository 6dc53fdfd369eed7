# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
import pytest
from hotel.pricing import nightly_rate


def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0


def test_high_long_stay():
    assert nightly_rate(100.0, "high", 7) == 112.5


def test_high_short():
    assert nightly_rate(100.0, "high", 6) == 125.0


def test_low():
    assert nightly_rate(100.0, "low", 1) == 80.0


def test_long_stay_discount_boundary():
    assert nightly_rate(100.0, "standard", 7) == 90.0
    assert nightly_rate(100.0, "standard", 6) == 100.0


def test_rounding():
    assert nightly_rate(10.01, "high", 1) == 12.51


@pytest.mark.parametrize("nights", [0, -1])
def test_rejects_non_positive_nights(nights):
    with pytest.raises(ValueError, match="nights must be positive"):
        nightly_rate(100.0, "standard", nights)


def test_one_night_is_fine():
    assert nightly_rate(50.0, "standard", 1) == 50.0
