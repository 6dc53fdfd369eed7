# quest: src/prettytable/prettytable.py::PrettyTable._validate_single_char
import pytest
from prettytable import PrettyTable


def table(**kwargs):
    t = PrettyTable(["a"], **kwargs)
    t.add_row([1])
    return t


@pytest.mark.parametrize("option", ["vertical_char", "horizontal_char", "junction_char",
                                    "top_left_junction_char", "bottom_right_junction_char"])
@pytest.mark.parametrize("value", ["", "ab", "--", "\u4e2d"])
def test_more_or_less_than_one_column_is_refused(option, value):
    t = table()
    with pytest.raises(ValueError, match=rf"^Invalid value for {option}\. Must be a string of "
                                         r"length 1\.$"):
        setattr(t, option, value)


def test_one_character_draws_the_border():
    t = table()
    t.vertical_char = "!"
    t.horizontal_char = "="
    t.junction_char = "*"
    assert t.get_string() == "*===*\n! a !\n*===*\n! 1 !\n*===*"


def test_a_colour_escape_does_not_count_towards_the_width():
    t = table()
    t.vertical_char = "\x1b[31m|\x1b[0m"
    assert t.vertical_char == "\x1b[31m|\x1b[0m"


def test_non_strings_are_turned_into_text_first():
    t = table()
    t.junction_char = 7
    assert t.junction_char == "7"
    with pytest.raises(ValueError, match="junction_char"):
        t.junction_char = 10


def test_constructor_keywords_are_checked():
    with pytest.raises(ValueError, match="vertical_char"):
        PrettyTable(["a"], vertical_char="||")
    assert table(vertical_char=":").get_string().splitlines()[1] == ": a :"
