# quest: src/dateutil/tz/_tzfile.py::tzfile.__reduce__
import copy
import pickle
from datetime import datetime, timedelta

from dateutil import tz
from dateutil.tz._tzfile import _unpickle


def test_reduce_is_reduce_ex_without_a_protocol(tz_source):
    # tz_source (the project's conftest fixture): the system TZPATH, then the tzdata package
    zone = tz.gettz("America/New_York")
    reduced = zone.__reduce__()
    assert reduced == zone.__reduce_ex__(None)
    func, args = reduced  # no extra state on a plain zone
    assert func is _unpickle
    assert args[0] is type(zone)
    assert args[1] == "America/New_York"


def test_a_pickled_zone_keeps_its_offsets(tz_source):
    zone = tz.gettz("Europe/Berlin")
    back = pickle.loads(pickle.dumps(zone))
    assert type(back) is type(zone)
    assert repr(back) == repr(zone)
    for when in (datetime(2023, 1, 15, 12), datetime(2023, 7, 15, 12)):
        assert back.utcoffset(when) == zone.utcoffset(when)
        assert back.tzname(when) == zone.tzname(when)
    assert back.utcoffset(datetime(2023, 7, 15)) == timedelta(hours=2)


def test_extra_instance_state_travels_as_the_third_item(tz_source):
    zone = tz.gettz("Asia/Tokyo")
    clone = copy.copy(zone)
    clone.note = "kept"
    func, _args, state = clone.__reduce__()
    assert func is _unpickle
    assert state == {"note": "kept"}
    again = pickle.loads(pickle.dumps(clone))
    assert again.note == "kept"
    assert again.utcoffset(datetime(2023, 1, 1)) == timedelta(hours=9)
