"""The lines coverage.py counts as statements, found without importing coverage.py.

``next`` must show the lines a test has to execute, and it must answer in
about the time a bare ``json.load`` of the ledger takes. Importing coverage.py
alone costs more than that budget, so this module repeats the three steps of
``coverage.parser.PythonParser.parse_source`` (with no exclusion patterns, as
``next`` uses it): the line numbers of every code object's ``co_lines()``, each
mapped to the first line of its multi-line statement, less docstrings.
``tests/test_lines.py`` pins the result to coverage.py's own on real files,
so a coverage release that counts differently fails our suite, not a user.
"""

from __future__ import annotations

import ast
import io
import token
import tokenize
import warnings
from types import CodeType

__all__ = ["statements"]


def statements(text: str, filename: str = "<quest>") -> frozenset[int]:
    """Statement lines of ``text`` as coverage.py reports them; empty when it does not parse."""
    try:
        with warnings.catch_warnings():  # the user's code, not ours: `next` stays quiet
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
            code = compile(text, filename, "exec", dont_inherit=True)
        multiline = _multiline_map(text)
    except (SyntaxError, ValueError, tokenize.TokenError, RecursionError, MemoryError):
        return frozenset()
    docstrings = _docstring_lines(tree)
    raw = {line for c in _code_objects(code) for _, _, line in c.co_lines() if line}
    starts = raw - docstrings
    return frozenset({multiline.get(line, line) for line in starts} - docstrings)


def _code_objects(code: CodeType) -> list[CodeType]:
    out, stack = [], [code]
    while stack:
        current = stack.pop()
        stack.extend(c for c in current.co_consts if isinstance(c, CodeType))
        out.append(current)
    return out


def _multiline_map(text: str) -> dict[int, int]:
    """Every line of a statement that spans lines -> the statement's first line."""
    mapping: dict[int, int] = {}
    first = 0
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for kind, value, (start, _), (end, _), _ in tokens:
        if kind == token.NEWLINE:
            if first and end != first:
                for line in range(first, end + 1):
                    mapping[line] = first
            first = 0
        if value.strip() and kind != tokenize.COMMENT and not first:
            first = start
    return mapping


_WITH_DOCSTRING = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _docstring_lines(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, _WITH_DOCSTRING) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return out
