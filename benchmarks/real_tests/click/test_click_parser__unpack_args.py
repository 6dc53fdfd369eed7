# quest: src/click/parser.py::_unpack_args
import pytest
from click._utils import UNSET
from click.parser import _unpack_args


def test_single_and_multiple_nargs_in_order():
    assert _unpack_args(["a", "b", "c", "d"], [1, 2]) == (("a", ("b", "c")), ["d"])


def test_missing_values_are_unset():
    assert _unpack_args(["a"], [1, 1]) == (("a", UNSET), [])
    assert _unpack_args(["a"], [2]) == ((("a", UNSET),), [])


def test_a_star_at_the_end_takes_the_rest():
    assert _unpack_args(["a", "b", "c"], [1, -1]) == (("a", ("b", "c")), [])


def test_a_star_in_the_middle_fills_from_both_ends():
    assert _unpack_args(["a", "b", "c", "d", "e"], [1, -1, 1]) == (
        ("a", ("b", "c", "d"), "e"), [])
    assert _unpack_args(["a", "b", "c", "d", "e"], [-1, 2]) == (
        (("a", "b", "c"), ("d", "e")), [])


def test_after_a_star_missing_values_are_unset_in_order():
    assert _unpack_args([], [-1, 2]) == (((), (UNSET, UNSET)), [])
    assert _unpack_args(["x"], [-1, 1, 1]) == (((), UNSET, "x"), [])


def test_zero_nargs_take_nothing():
    assert _unpack_args(["a", "b"], [0, 1]) == (("a",), ["b"])


def test_two_stars_are_refused():
    with pytest.raises(TypeError, match="two nargs < 0"):
        _unpack_args(["a", "b"], [-1, -1])


def test_no_specs_leave_every_argument():
    assert _unpack_args(["a", "b"], []) == ((), ["a", "b"])
