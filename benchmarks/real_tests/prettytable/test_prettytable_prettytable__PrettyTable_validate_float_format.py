# quest: src/prettytable/prettytable.py::PrettyTable._validate_float_format
import pytest
from prettytable import PrettyTable


def table():
    t = PrettyTable(["name", "value"])
    t.add_row(["pi", 3.14159])
    return t


@pytest.mark.parametrize("spec", ["", ".2", "6.2", "6.2f", "2.", ".3f", "10.4ff"])
def test_accepted_specs(spec):
    t = table()
    t.float_format = spec
    assert t.float_format == {"name": spec, "value": spec}


@pytest.mark.parametrize("spec", ["2", "1.2.3", "a.2", ".x", ".f", "6.2e", "-1.2", " .2"])
def test_refused_specs(spec):
    with pytest.raises(ValueError, match=r"^Invalid value for float_format\. Must be a float "
                                         r"format string\.$"):
        table().float_format = spec


def test_a_spec_that_is_no_string_is_refused_in_a_per_column_dict():
    t = table()
    with pytest.raises(ValueError, match="Must be a float format string"):
        t.float_format = {"value": 2}
    assert t.float_format == {}


def test_the_spec_changes_the_output():
    t = table()
    t.float_format = ".2"
    assert t.get_string().splitlines()[3] == "|  pi  |  3.14 |"
    t.float_format = {"value": "7.3"}
    assert t.get_string().splitlines()[3] == "|  pi  |   3.142 |"


def test_keyword_arguments_are_validated_too():
    with pytest.raises(ValueError, match="float_format"):
        table().get_string(float_format="x")
    assert table().get_string(float_format=".1").startswith("+------+")
