"""Our statement finder counts exactly the lines coverage.py counts, on real code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from coverage.python import PythonParser

from pytest_quest.lines import statements

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    [*ROOT.glob("pytest_quest/**/*.py"), *ROOT.glob("example_project/**/*.py"),
     *ROOT.glob("tests/cheats/**/*.py"),
     # By module name: a module may be a package in another Python (pathlib in 3.13).
     *(Path(str(importlib.util.find_spec(name).origin))
       for name in ("argparse", "dataclasses", "typing", "asyncio.tasks", "json.decoder",
                    "email._header_value_parser", "pathlib", "inspect", "difflib", "ast"))],
)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # coverage.py compiles the cheat corpus
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_statements_equal_coverage_pythonparser(path: Path) -> None:
    text = importlib.util.decode_source(path.read_bytes())  # as Python reads it (its cookie)
    parser = PythonParser(text=text)
    parser.parse_source()
    assert statements(text, str(path)) == frozenset(parser.statements)


def test_the_tricky_shapes() -> None:
    text = (
        'def f(x):\n'
        '    """Doc\n'
        '    string."""\n'
        '    y = (x +\n'
        '         1)\n'
        '    if y:  # comment\n'
        '        return [i for i in\n'
        '                range(y)]\n'
        '    g = lambda: 0\n'
        '    return g()\n'
    )
    parser = PythonParser(text=text)
    parser.parse_source()
    assert statements(text) == frozenset(parser.statements) == {1, 4, 6, 7, 9, 10}


def test_unparsable_text_has_no_statements() -> None:
    assert statements("def f(:\n") == frozenset()


@pytest.mark.parametrize("text", [
    "x = a" + ".b" * 100_000,  # RecursionError while the parser builds the tree
    "x = " + "-" * 100_000 + "1",  # MemoryError: "parser stack overflowed"
])
def test_source_too_deep_to_parse_has_no_statements(text: str) -> None:
    assert statements(text) == frozenset()
