# quest: src/prettytable/prettytable.py::from_csv
import csv
import io

import pytest
from prettytable import from_csv


def test_the_dialect_is_sniffed_and_the_first_row_names_the_fields():
    table = from_csv(io.StringIO("City;Area\nAdelaide; 1295\n Brisbane ;5905\n"))
    assert table.field_names == ["City", "Area"]
    assert table.rows == [["Adelaide", "1295"], ["Brisbane", "5905"]]


def test_given_field_names_make_the_first_row_data():
    table = from_csv(io.StringIO("a,b\nc,d\n"), field_names=["x", "y"])
    assert table.field_names == ["x", "y"]
    assert table.rows == [["a", "b"], ["c", "d"]]


def test_format_parameters_replace_sniffing():
    data = io.StringIO("name|note\n'Smith| Jr'|'said ''hi'''\n")
    table = from_csv(data, delimiter="|", quotechar="'")
    assert table.rows == [["Smith| Jr", "said 'hi'"]]
    table = from_csv(io.StringIO("a\tb\n1\t2\n"), delimiter="\t", strict=True)
    assert table.field_names == ["a", "b"] and table.rows == [["1", "2"]]


def test_other_keywords_go_to_the_table():
    table = from_csv(io.StringIO("a,b\n1,2\n"), delimiter=",", border=False, header=False)
    assert table.get_string() == " 1  2 "


def test_a_ragged_file_fails_on_the_row_that_does_not_fit():
    with pytest.raises(ValueError, match="Row has incorrect number of values"):
        from_csv(io.StringIO("a,b\n1,2\n3\n"), delimiter=",")
    with pytest.raises(csv.Error):
        from_csv(io.StringIO('a,b\n"1,2\n'), delimiter=",", strict=True)
