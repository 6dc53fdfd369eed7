# quest: flake8_pyi/visitor.py::PyiVisitor._check_platform_check
import ast
import textwrap

import pytest
from flake8_pyi import errors
from flake8_pyi.visitor import PyiVisitor


def found(source: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of every error flake8-pyi reports for a stub."""
    tree = ast.parse(textwrap.dedent(source))
    return [(e.lineno, e.col, e.message) for e in PyiVisitor(filename="stub.pyi").run(tree)]


def check(condition: str) -> list[str]:
    """The messages for `if CONDITION:` guarding one annotated name, all at the condition."""
    reported = found(f"import sys\nif {condition}:\n    x: int\n")
    assert all((line, col) == (2, 3) for line, col, _ in reported), reported
    return [message for _, _, message in reported]


@pytest.mark.parametrize("platform", ["linux", "win32", "cygwin", "darwin"])
@pytest.mark.parametrize("op", ["==", "!="])
def test_known_platforms_compared_for_equality_are_accepted(platform, op):
    assert check(f'sys.platform {op} "{platform}"') == []


@pytest.mark.parametrize("platform", ["linux2", "Linux", "win64", "", "darwin "])
def test_an_unknown_platform_name_is_reported_with_its_name(platform):
    assert check(f'sys.platform == "{platform}"') == [f'Y008 Unrecognized platform "{platform}"']
    assert check(f'sys.platform != "{platform}"') == [errors.Y008.format(platform=platform)]


@pytest.mark.parametrize("condition", [
    'sys.platform < "linux"',
    'sys.platform >= "win32"',
    'sys.platform in "linux"',
    'sys.platform is "linux"',
    'sys.platform == b"linux"',
    "sys.platform == 32",
    "sys.platform == None",
    "sys.platform == PLATFORM",
    'sys.platform == ("linux",)',
])
def test_anything_but_equality_with_a_string_is_unrecognised(condition):
    assert check(condition) == [errors.Y007]
    assert errors.Y007 == "Y007 Unrecognized sys.platform check"


def test_each_check_of_an_or_is_judged_where_it_stands():
    source = """\
        import sys
        if sys.platform == "linux" or sys.platform == "sunos5" or sys.platform > "a":
            x: int
        """
    assert found(source) == [(2, 30, 'Y008 Unrecognized platform "sunos5"'), (2, 58, errors.Y007)]


def test_a_platform_check_in_an_elif_is_checked_too():
    source = """\
        import sys
        if sys.platform == "win32":
            x: int
        elif sys.platform == "freebsd":
            x: str
        """
    assert found(source) == [(4, 5, 'Y008 Unrecognized platform "freebsd"')]
