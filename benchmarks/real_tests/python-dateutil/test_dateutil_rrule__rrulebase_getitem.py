# quest: src/dateutil/rrule.py::rrulebase.__getitem__
from datetime import datetime

import pytest
from dateutil.rrule import DAILY, WEEKLY, rrule

D = [datetime(2020, 1, d) for d in range(1, 6)]


@pytest.fixture(params=[False, True], ids=["uncached", "cached"])
def five_days(request):
    rule = rrule(DAILY, count=5, dtstart=datetime(2020, 1, 1), cache=request.param)
    if request.param:
        list(rule)  # fills the cache completely
        assert rule._cache_complete
    return rule


@pytest.mark.parametrize(("index", "expected"), [(0, D[0]), (2, D[2]), (4, D[4]),
                                                  (-1, D[4]), (-5, D[0])])
def test_integer_indexes(five_days, index, expected):
    assert five_days[index] == expected


@pytest.mark.parametrize(("item", "expected"), [
    (slice(1, 3), D[1:3]),
    (slice(None, 2), D[:2]),
    (slice(3, None), D[3:]),
    (slice(None, None, 2), D[::2]),
    (slice(None, None, -2), D[::-2]),
    (slice(4, 1, -1), D[4:1:-1]),
    (slice(10, 20), []),
])
def test_slices(five_days, item, expected):
    assert list(five_days[item]) == expected


def test_past_the_end_raises_index_error(five_days):
    with pytest.raises(IndexError):
        five_days[5]
    with pytest.raises(IndexError):
        five_days[-6]


def test_an_endless_rule_can_be_indexed_and_sliced_from_the_start():
    weekly = rrule(WEEKLY, dtstart=datetime(2021, 3, 1))
    assert weekly[0] == datetime(2021, 3, 1)
    assert weekly[52] == datetime(2022, 2, 28)
    assert weekly[1:3] == [datetime(2021, 3, 8), datetime(2021, 3, 15)]
