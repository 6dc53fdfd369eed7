import pytest

from hotel.pricing import apply_discount, nightly_rate, round_to_cents


def test_standard_season_rate_is_base():
    assert nightly_rate(100.0, "standard", 2) == 100.0


def test_round_to_cents_rounds_half_up():
    assert round_to_cents(2.125) == 2.13
    assert round_to_cents(-1.125) == -1.13
    assert round_to_cents(3) == 3.0


def test_apply_discount():
    assert apply_discount(200.0, 10) == 180.0
    assert apply_discount(99.99, 0) == 99.99


def test_apply_discount_rejects_bad_percent():
    with pytest.raises(ValueError):
        apply_discount(100.0, 120)
