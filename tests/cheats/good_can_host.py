# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/rooms.py::Room.can_host
# expect: PASS
from hotel.rooms import Room


def room(kind, capacity):
    return Room("101", kind, capacity)


def test_needs_an_adult():
    assert room("double", 4).can_host(0) is False
    assert room("double", 4).can_host(1) is True


def test_negative_children():
    assert room("double", 4).can_host(1, -1) is False
    assert room("double", 4).can_host(1, 0) is True


def test_two_children_count_as_one_adult():
    assert room("double", 2).can_host(1, 2) is True
    assert room("double", 2).can_host(1, 3) is False
    assert room("double", 2).can_host(1, 1) is True
    assert room("double", 2).can_host(2, 1) is False


def test_exact_capacity():
    assert room("double", 2).can_host(2) is True
    assert room("double", 2).can_host(3) is False


def test_suite_takes_one_extra_child():
    assert room("suite", 2).can_host(2, 1) is True
    assert room("suite", 2).can_host(2, 2) is True
    assert room("suite", 2).can_host(2, 3) is False
    assert room("suite", 2).can_host(3, 0) is False
    assert room("twin", 2).can_host(2, 2) is False
