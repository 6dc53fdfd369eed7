# quest: src/marshmallow/orderedset.py::OrderedSet.pop
import pytest
from marshmallow.orderedset import OrderedSet


def test_pop_takes_the_last_item_by_default():
    s = OrderedSet("abc")
    assert s.pop() == "c"
    assert list(s) == ["a", "b"]
    assert s.pop(last=True) == "b"
    assert list(s) == ["a"]


def test_pop_first_takes_the_first_item():
    s = OrderedSet([3, 1, 2])
    assert s.pop(last=False) == 3
    assert list(s) == [1, 2]
    assert s.pop(False) == 1
    assert list(s) == [2]


def test_pop_until_empty_then_key_error():
    s = OrderedSet(["only"])
    assert s.pop() == "only"
    assert len(s) == 0
    assert "only" not in s
    with pytest.raises(KeyError, match="set is empty"):
        s.pop()
    with pytest.raises(KeyError, match="set is empty"):
        s.pop(last=False)


def test_a_popped_item_can_be_added_back_at_the_end():
    s = OrderedSet("xyz")
    first = s.pop(last=False)
    s.add(first)
    assert list(s) == ["y", "z", "x"]
