# quest: flake8_pyi/checker.py::_check_for_type_comments
import ast

from flake8_pyi import errors
from flake8_pyi.checker import PyiTreeChecker, _check_for_type_comments
from flake8_pyi.errors import Error


def flagged(*lines: str) -> list[int]:
    """Line numbers _check_for_type_comments flags, after checking each error's fields."""
    found = list(_check_for_type_comments(list(lines)))
    for error in found:
        assert error == Error(error.lineno, 0, errors.Y033, PyiTreeChecker)
    return [error.lineno for error in found]


def test_a_type_comment_is_flagged_on_its_line():
    assert flagged("x = ...  # type: int") == [1]
    assert flagged("import os", "", "x = ...  # type: int", "y: int") == [3]
    assert errors.Y033.startswith("Y033 Do not use type comments in stubs")


def test_every_type_comment_is_flagged_in_order():
    lines = ["a = ...  # type: int", "b: str", "c = ...  #type:list[str]",
             "    d = 1 # type: bytes"]
    assert flagged(*lines) == [1, 3, 4]


def test_lines_without_a_type_comment_are_not():
    assert flagged() == []
    assert flagged("x: int", "", "def f() -> None: ...", "# a comment", "s = 'type: int'") == []
    assert flagged("x = ...  # kind: int", "x = ...  # types: int", "x = ...  # type int") == []


def test_comment_lines_are_skipped_even_when_indented():
    assert flagged("# type: int", "    # type: int", "\t#type: str") == []


def test_ignore_comments_are_not_type_comments():
    assert flagged("x = f()  # type: ignore", "y = g()  # type: ignore[attr-defined]",
                   "z = h()  #type:ignore", "w = h()  # type: ignore # noqa") == []


def test_a_comment_after_the_type_is_left_out_of_the_type():
    assert flagged("x = ...  # type: list[int]  # trailing note") == [1]
    assert flagged("x = ...  # type: dict[str, int] # noqa: Y033") == [1]


def test_a_type_that_does_not_parse_is_not_flagged():
    assert flagged("x = ...  # type: this is not a type") == []
    assert flagged("def f(a): ...  # type: (int) -> str") == []
    assert flagged("x = ...  # type: list[") == []


def test_the_checker_flags_type_comments_in_stubs_only():
    source = "x = ...  # type: int\ny: str\n"
    lines = source.splitlines(True)
    in_stub = list(PyiTreeChecker(ast.parse(source), lines, "pkg/mod.pyi").run())
    assert in_stub == [Error(1, 0, errors.Y033, PyiTreeChecker)]
    assert list(PyiTreeChecker(ast.parse(source), lines, "pkg/mod.py").run()) == []
