# quest: flake8_pyi/visitor.py::PyiVisitor._check_version_check
import ast
import textwrap

import pytest
from flake8_pyi import errors
from flake8_pyi.checker import PyiTreeChecker
from flake8_pyi.visitor import PyiVisitor

Y003 = errors.Y003
Y004 = errors.Y004
Y006 = errors.Y006


def found(source: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of every error flake8-pyi reports for a stub."""
    tree = ast.parse(textwrap.dedent(source))
    return [(e.lineno, e.col, e.message) for e in PyiVisitor(filename="stub.pyi").run(tree)]


def check(condition: str) -> list[str]:
    """The messages for `if CONDITION:` guarding one annotated name, all at the condition."""
    reported = found(f"import sys\nif {condition}:\n    x: int\n")
    assert all((line, col) == (2, 3) for line, col, _ in reported), reported
    return [message for _, _, message in reported]


@pytest.mark.parametrize("condition", [
    "sys.version_info >= (3, 10)",
    "sys.version_info < (3, 10)",
    "sys.version_info >= (3,)",
    "sys.version_info < (4,)",
    "sys.version_info >= ()",
])
def test_major_minor_tuples_with_lt_or_gte_are_accepted(condition):
    assert check(condition) == []


def test_a_micro_version_is_refused():
    assert check("sys.version_info >= (3, 10, 1)") == [Y004]
    assert check("sys.version_info < (3, 10, 0, 'final')") == [Y003]


@pytest.mark.parametrize("condition", [
    "sys.version_info >= 3",
    "sys.version_info >= [3, 10]",
    "sys.version_info >= version",
    "sys.version_info < (3, minor)",
    "sys.version_info < (3, '10')",
    "sys.version_info < (3, 10.0)",
    "sys.version_info < (3, True)",
])
def test_anything_but_a_tuple_of_ints_is_unrecognised(condition):
    assert check(condition) == [Y003]


@pytest.mark.parametrize("op", [">", "<=", "==", "!="])
def test_other_operators_are_refused_on_the_whole_version(op):
    assert check(f"sys.version_info {op} (3, 10)") == [Y006]


def test_both_problems_of_one_check_are_reported_in_order():
    assert check("sys.version_info > (3, 10, 1)") == [Y004, Y006]
    assert check("sys.version_info == (3, 'x')") == [Y003, Y006]


def test_equality_on_a_two_part_slice_needs_a_two_tuple():
    assert check("sys.version_info[:2] == (3, 10)") == []
    assert check("sys.version_info[:2] != (3, 11)") == []
    assert check("sys.version_info[:2] >= (3, 11)") == []
    assert check("sys.version_info[:2] == (3,)") == [errors.Y005.format(n=2)]
    assert check("sys.version_info[:2] != (3, 10, 1)") == [Y004, errors.Y005.format(n=2)]
    assert check("sys.version_info[:2] > (3, 10)") == [Y006]


def test_equality_on_a_one_part_slice_needs_a_one_tuple():
    assert check("sys.version_info[:1] == (3,)") == []
    assert check("sys.version_info[:1] == (3, 10)") == [errors.Y005.format(n=1)]
    assert check("sys.version_info[:1] <= (3,)") == [Y006]
    assert errors.Y005.format(n=1) == "Y005 Version comparison must be against a length-1 tuple"


def test_the_major_version_alone_is_compared_with_a_plain_int():
    assert check("sys.version_info[0] >= 3") == []
    assert check("sys.version_info[0] == 3") == []
    assert check("sys.version_info[0] > 2") == []
    assert check("sys.version_info[0] >= (3,)") == [Y003]
    assert check("sys.version_info[0] == '3'") == [Y003]
    assert check("sys.version_info[0] == True") == [Y003]
    assert check("sys.version_info[0] >= major") == [Y003]


def test_each_part_of_an_and_is_checked_where_it_stands():
    source = """\
        import sys
        if sys.version_info >= (3, 8) and sys.version_info > (3, 12, 1):
            x: int
        """
    assert found(source) == [(2, 34, Y004), (2, 34, Y006)]


def test_the_checker_reports_the_same_for_a_stub_file():
    source = "import sys\nif sys.version_info <= (3, 9):\n    x: int\n"
    tree = ast.parse(source)
    results = list(PyiTreeChecker(tree, source.splitlines(True), "lib.pyi").run())
    assert [(r.lineno, r.col, r.message) for r in results] == [(2, 3, Y006)]
    assert results[0].type is PyiTreeChecker
    assert list(PyiTreeChecker(tree, source.splitlines(True), "lib.py").run()) == []
