# quest: src/dateutil/parser/_parser.py::parserinfo.convertyear
from datetime import datetime

import pytest
from dateutil.parser import parse, parserinfo
from freezegun import freeze_time


@pytest.fixture
def info_2026():
    with freeze_time("2026-06-01"):
        yield parserinfo()


@pytest.mark.parametrize(("year", "expected"), [
    (0, 2000),
    (26, 2026),
    (75, 2075),   # 49 years ahead: still this century
    (76, 1976),   # 50 years ahead: too far in the future, a century back
    (99, 1999),
])
def test_two_digit_years_land_within_fifty_years_of_now(info_2026, year, expected):
    assert info_2026._year == 2026
    assert info_2026._century == 2000
    assert info_2026.convertyear(year) == expected


@freeze_time("2051-01-01")
@pytest.mark.parametrize(("year", "expected"), [
    (0, 2100),    # 51 years back: too far in the past, a century on
    (1, 2001),    # exactly 50 years back: kept
    (50, 2050),
    (99, 2099),
])
def test_too_far_in_the_past_moves_a_century_on(year, expected):
    assert parserinfo().convertyear(year) == expected


@pytest.mark.parametrize("year", [100, 999, 2026, 1776])
def test_years_of_three_digits_or_more_are_kept(info_2026, year):
    assert info_2026.convertyear(year) == year


@pytest.mark.parametrize("year", [0, 5, 76, 99])
def test_a_specified_century_keeps_the_year(info_2026, year):
    assert info_2026.convertyear(year, century_specified=True) == year


def test_negative_years_break_the_contract(info_2026):
    with pytest.raises(AssertionError):
        info_2026.convertyear(-1)


@freeze_time("2026-06-01")
def test_parse_uses_it_for_two_digit_years():
    assert parse("01/02/75") == datetime(2075, 1, 2)
    assert parse("01/02/76") == datetime(1976, 1, 2)
    assert parse("0076-01-02") == datetime(76, 1, 2)  # four digits: century given
