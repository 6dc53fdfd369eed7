# quest: src/prettytable/prettytable.py::PrettyTable.__getitem__
import pytest
from prettytable import PrettyTable, TableStyle


def cities():
    table = PrettyTable(["City", "Population"])
    table.add_row(["Adelaide", 1158259])
    table.add_row(["Brisbane", 1857594])
    table.add_row(["Darwin", 120900])
    table.add_row(["Hobart", 205556])
    return table


def test_a_slice_keeps_those_rows_in_order():
    part = cities()[1:3]
    assert part.field_names == ["City", "Population"]
    assert part.rows == [["Brisbane", 1857594], ["Darwin", 120900]]
    assert cities()[::2].rows == [["Adelaide", 1158259], ["Darwin", 120900]]
    assert cities()[10:].rows == []


def test_an_integer_gives_a_one_row_table():
    assert cities()[0].rows == [["Adelaide", 1158259]]
    assert cities()[-1].rows == [["Hobart", 205556]]
    with pytest.raises(IndexError):
        cities()[4]


def test_the_new_table_is_a_copy_with_the_same_options():
    table = cities()
    table.align["City"] = "l"
    table.border = False
    table.title = "Towns"
    table.int_format["Population"] = "08"
    part = table[2]
    assert part is not table
    assert (part.align["City"], part.align["Population"]) == ("l", "c")
    assert part.border is False
    assert part.title == "Towns"
    assert part.get_string() == table.get_string(start=2, end=3)
    part.add_row(["Perth", 2192229])
    assert len(table.rows) == 4 and part.rows[-1] == ["Perth", 2192229]


def test_style_carries_over_to_the_slice():
    table = cities()
    table.set_style(TableStyle.MARKDOWN)
    assert table[:1].get_string() == (
        "|   City   | Population |\n"
        "| :------: | :--------: |\n"
        "| Adelaide |  1158259   |"
    )


@pytest.mark.parametrize("index", ["1", 1.0, None, (0, 1)])
def test_other_indexes_are_refused(index):
    with pytest.raises(IndexError, match=r"must be an integer or slice"):
        cities()[index]
