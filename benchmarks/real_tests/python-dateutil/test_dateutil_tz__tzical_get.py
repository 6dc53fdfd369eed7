# quest: src/dateutil/tz/tz.py::tzical.get
from datetime import datetime, timedelta
from io import StringIO

import pytest
from dateutil import tz

EASTERN = """
BEGIN:VTIMEZONE
TZID:US-Eastern
BEGIN:STANDARD
DTSTART:19671029T020000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19870405T020000
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
END:DAYLIGHT
END:VTIMEZONE
"""

PACIFIC = EASTERN.replace("US-Eastern", "US-Pacific").replace("-0400", "-0700") \
    .replace("-0500", "-0800").replace("EST", "PST").replace("EDT", "PDT")


def test_a_single_zone_is_returned_without_a_tzid():
    cal = tz.tzical(StringIO(EASTERN))
    zone = cal.get()
    assert zone is cal.get("US-Eastern")
    assert cal.keys() == ["US-Eastern"]
    assert datetime(2003, 1, 1, tzinfo=zone).utcoffset() == timedelta(hours=-5)
    assert datetime(2003, 7, 1, tzinfo=zone).tzname() == "EDT"


def test_several_zones_need_a_tzid():
    cal = tz.tzical(StringIO(EASTERN + PACIFIC))
    assert sorted(cal.keys()) == ["US-Eastern", "US-Pacific"]
    with pytest.raises(ValueError, match=r"^more than one timezone available$"):
        cal.get()
    pacific = cal.get("US-Pacific")
    assert datetime(2003, 1, 1, tzinfo=pacific).utcoffset() == timedelta(hours=-8)
    assert pacific is not cal.get("US-Eastern")


def test_an_unknown_tzid_gives_none():
    cal = tz.tzical(StringIO(EASTERN))
    assert cal.get("US-Central") is None
    assert cal.get("") is None


def test_no_zones_at_all():
    cal = tz.tzical(StringIO("BEGIN:VCALENDAR\nEND:VCALENDAR\n"))
    assert cal.keys() == []
    with pytest.raises(ValueError, match=r"^no timezones defined$"):
        cal.get()
    assert cal.get("US-Eastern") is None


def test_read_from_a_file_on_disk(tmp_path):
    path = tmp_path / "zones.ics"
    path.write_text(EASTERN)
    cal = tz.tzical(str(path))
    assert repr(cal) == f"tzical({str(path)!r})"
    assert datetime(2003, 7, 1, tzinfo=cal.get()).utcoffset() == timedelta(hours=-4)
