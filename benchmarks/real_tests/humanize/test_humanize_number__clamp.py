# quest: src/humanize/number.py::clamp
import math

import pytest
from humanize import clamp, intword


def test_none_stays_none():
    assert clamp(None) is None


def test_within_bounds_the_value_is_formatted_without_a_token():
    assert clamp(123.456) == "123.456"
    assert clamp(5, format="{:.1f}", floor=0, ceil=10) == "5.0"
    assert clamp(0.99, format="{:.0%}", ceil=0.99) == "99%"  # the bound itself is inside


def test_below_the_floor_the_floor_is_shown_with_its_token():
    assert clamp(0.0001, floor=0.01) == "<0.01"
    assert clamp(-5, floor=0, ceil=10, floor_token="at least ") == "at least 0"


def test_above_the_ceiling_the_ceiling_is_shown_with_its_token():
    assert clamp(0.999, format="{:.0%}", ceil=0.99) == ">99%"
    assert clamp(50, floor=0, ceil=10, ceil_token="over ") == "over 10"


def test_a_callable_format():
    assert clamp(1, format=intword, floor=1e6, floor_token="under ") == "under 1.0 million"
    assert clamp(7, format=lambda v: f"<{v}>") == "<7>"


def test_non_finite_values_are_named():
    assert clamp(math.nan) == "NaN"
    assert clamp(-math.inf, floor=0) == "-Inf"
    assert clamp(math.inf, ceil=1) == "+Inf"


def test_an_invalid_format_is_refused():
    with pytest.raises(ValueError, match="Invalid format"):
        clamp(1, format=42)
