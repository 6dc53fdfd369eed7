"""A tree printed back as code never raises (red team 52)."""

from __future__ import annotations

import ast
import sys

from pytest_quest.astext import unparse


def test_code_is_printed_back_and_what_python_refuses_is_named() -> None:
    assert unparse(ast.parse("x = f(1) + 2").body[0]) == "x = f(1) + 2"
    node = ast.parse("class C(B if f\"{'\u00a0'}\" else B): pass").body[0]
    base = node.bases[0]  # type: ignore[attr-defined]
    if sys.version_info < (3, 12):  # 3.11 may not print a backslash in an f-string's expression
        assert unparse(base) == "<IfExp at line 1>"
    else:
        assert "\\xa0" in unparse(base)
    deep: ast.expr = ast.Constant(1)
    for _ in range(100_000):  # deeper than the printer recurses: built, never parsed
        deep = ast.UnaryOp(op=ast.USub(), operand=deep)
    assert unparse(deep) == "<UnaryOp>"
