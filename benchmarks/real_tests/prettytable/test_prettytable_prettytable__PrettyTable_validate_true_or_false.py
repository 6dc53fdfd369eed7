# quest: src/prettytable/prettytable.py::PrettyTable._validate_true_or_false
import pytest
from prettytable import PrettyTable


def table():
    t = PrettyTable(["x", "y"])
    t.add_row([1, 2])
    return t


@pytest.mark.parametrize("option", ["header", "border", "reversesort", "print_empty",
                                    "escape_data", "break_on_hyphens", "preserve_internal_border"])
@pytest.mark.parametrize("value", ["yes", None, 2, "True", [True]])
def test_anything_but_a_boolean_is_refused(option, value):
    with pytest.raises(ValueError, match=rf"^Invalid value for {option}\. Must be True or "
                                         r"False\.$"):
        setattr(table(), option, value)


def test_booleans_and_their_integer_equals_are_accepted():
    t = table()
    t.border = False
    assert t.get_string() == " x  y \n 1  2 "
    t.border = 1
    t.header = 0
    assert t.get_string() == "+---+---+\n| 1 | 2 |\n+---+---+"


def test_get_string_keywords_are_checked():
    with pytest.raises(ValueError, match="Invalid value for header"):
        table().get_string(header="no")
    assert table().get_string(header=False, border=False) == " 1  2 "
