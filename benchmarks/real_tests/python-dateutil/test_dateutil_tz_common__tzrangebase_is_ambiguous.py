# quest: src/dateutil/tz/_common.py::tzrangebase.is_ambiguous
from datetime import datetime, timedelta

import pytest
from dateutil import tz

EASTERN = tz.tzstr("EST5EDT,M3.2.0,M11.1.0")  # DST ends 2023-11-05 02:00 EDT -> 01:00 EST


@pytest.mark.parametrize(("wall", "expected"), [
    (datetime(2023, 11, 5, 0, 59), False),
    (datetime(2023, 11, 5, 1, 0), True),     # the hour that happens twice starts
    (datetime(2023, 11, 5, 1, 30), True),
    (datetime(2023, 11, 5, 1, 59, 59), True),
    (datetime(2023, 11, 5, 2, 0), False),    # and ends, exclusive
    (datetime(2023, 3, 12, 2, 30), False),   # the skipped hour is not ambiguous
    (datetime(2023, 7, 1, 12, 0), False),
])
def test_the_repeated_hour_at_the_end_of_dst(wall, expected):
    assert EASTERN.is_ambiguous(wall) is expected


def test_an_aware_datetime_is_judged_on_its_wall_time():
    assert EASTERN.is_ambiguous(datetime(2023, 11, 5, 1, 30, tzinfo=EASTERN)) is True
    assert EASTERN.is_ambiguous(datetime(2023, 11, 5, 1, 30, tzinfo=tz.UTC)) is True
    assert tz.datetime_ambiguous(datetime(2023, 11, 5, 1, 30), EASTERN) is True


def test_each_year_has_its_own_transition():
    assert EASTERN.is_ambiguous(datetime(2024, 11, 3, 1, 15)) is True
    assert EASTERN.is_ambiguous(datetime(2024, 11, 5, 1, 15)) is False


def test_a_zone_without_dst_is_never_ambiguous():
    fixed = tz.tzstr("EST5")
    assert fixed.hasdst is False
    assert fixed.is_ambiguous(datetime(2023, 11, 5, 1, 30)) is False


def test_the_length_of_the_repeated_span_is_the_dst_offset():
    # a two-hour DST shift repeats two hours of wall time
    zone = tz.tzrange("X", timedelta(hours=1), "Y", timedelta(hours=3))
    end = zone.transitions(2023)[1]
    assert end == datetime(2023, 10, 29, 1, 0)
    assert zone.is_ambiguous(end - timedelta(minutes=1)) is False
    assert zone.is_ambiguous(end) is True
    assert zone.is_ambiguous(end + timedelta(minutes=119)) is True
    assert zone.is_ambiguous(end + timedelta(minutes=120)) is False


def test_fromutc_marks_the_second_pass_with_fold():
    first = datetime(2023, 11, 5, 5, 30, tzinfo=tz.UTC).astimezone(EASTERN)
    second = datetime(2023, 11, 5, 6, 30, tzinfo=tz.UTC).astimezone(EASTERN)
    assert first.replace(tzinfo=None) == second.replace(tzinfo=None) == datetime(2023, 11, 5, 1, 30)
    assert (first.fold, second.fold) == (0, 1)
    assert first.tzname() == "EDT" and second.tzname() == "EST"
