# quest: src/dateutil/_common.py::weekday.__hash__
from dateutil.relativedelta import FR, MO, SU, weekday
from dateutil.rrule import weekday as rrule_weekday
from hypothesis import given
from hypothesis import strategies as st

days = st.integers(min_value=0, max_value=6)
counts = st.one_of(st.none(), st.integers(min_value=-53, max_value=53))


def test_hash_is_the_hash_of_the_day_and_count():
    assert hash(weekday(0)) == hash((0, None))
    assert hash(weekday(4, -1)) == hash((4, -1))
    assert hash(MO) == hash((0, None))
    assert hash(FR(+2)) == hash((4, 2))


@given(days, counts)
def test_equal_weekdays_hash_equal(day, n):
    assert weekday(day, n) == weekday(day, n)
    assert hash(weekday(day, n)) == hash(weekday(day, n))
    assert hash(weekday(day, n)) == hash((day, n))


@given(days, counts, days, counts)
def test_a_set_keeps_one_of_each(d1, n1, d2, n2):
    s = {weekday(d1, n1), weekday(d2, n2)}
    assert len(s) == (1 if (d1, n1) == (d2, n2) else 2)


def test_usable_as_dict_keys_across_modules():
    table = {MO: "monday", SU(-1): "last sunday"}
    assert table[weekday(0)] == "monday"
    assert table[rrule_weekday(6, -1)] == "last sunday"
    assert SU not in table  # SU has no count: a different key from SU(-1)


def test_the_count_changes_the_hash():
    assert hash(MO(1)) != hash(MO(2))
    assert hash(MO(1)) != hash(MO)
