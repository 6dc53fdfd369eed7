# quest: src/dateutil/tz/tz.py::tzical._parse_offset
from io import StringIO

import pytest
from dateutil import tz


@pytest.fixture
def cal():
    return tz.tzical(StringIO("BEGIN:VCALENDAR\nEND:VCALENDAR\n"))


@pytest.mark.parametrize(("text", "seconds"), [
    ("0000", 0),
    ("+0000", 0),
    ("-0000", 0),
    ("0130", 5400),
    ("+0130", 5400),
    ("-0130", -5400),
    ("-0500", -18000),
    ("+1400", 50400),
    ("013015", 5415),
    ("-013015", -5415),
    ("+000001", 1),
    ("  +0100  ", 3600),   # surrounding whitespace is stripped
])
def test_valid_offsets(cal, text, seconds):
    assert cal._parse_offset(text) == seconds


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_empty(cal, text):
    with pytest.raises(ValueError, match=r"^empty offset$"):
        cal._parse_offset(text)


@pytest.mark.parametrize(("text", "shown"), [
    ("+01a0", "01a0"),
    ("1:00", "1:00"),
    ("+", ""),
    ("--0100", "-0100"),
    ("+\u0661\u0662\u0663\u0664", "\u0661\u0662\u0663\u0664"),  # digits, but not ASCII
])
def test_not_digits(cal, text, shown):
    with pytest.raises(ValueError) as info:
        cal._parse_offset(text)
    assert str(info.value) == "invalid offset: " + shown


@pytest.mark.parametrize(("text", "shown"), [
    ("1", "1"), ("+100", "100"), ("01000", "01000"), ("-0100000", "0100000"),
])
def test_wrong_length(cal, text, shown):
    with pytest.raises(ValueError) as info:
        cal._parse_offset(text)
    assert str(info.value) == "invalid offset: " + shown


def test_used_for_tzoffsetto_in_a_calendar():
    cal = tz.tzical(StringIO(
        "BEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\nDTSTART:19700101T000000\n"
        "TZOFFSETFROM:+013015\nTZOFFSETTO:+013015\nEND:STANDARD\nEND:VTIMEZONE\n"))
    from datetime import datetime, timedelta
    assert datetime(2000, 1, 1, tzinfo=cal.get()).utcoffset() == timedelta(seconds=5415)
    with pytest.raises(ValueError, match="invalid offset"):
        tz.tzical(StringIO(
            "BEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\nDTSTART:19700101T000000\n"
            "TZOFFSETFROM:+1\nTZOFFSETTO:+1\nEND:STANDARD\nEND:VTIMEZONE\n"))
