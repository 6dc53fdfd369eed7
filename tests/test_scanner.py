"""The scanner: one quest per function and method, nested code folded into its holder."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pytest_quest.scanner import ScanError, is_test_file, iter_source_files, scan_file, scan_source

SOURCE = textwrap.dedent('''
    import abc
    import typing


    def plain(a):
        """Docstring is not a statement."""
        helper = lambda x: x + 1

        def inner():
            class Local:
                def method(self):
                    return 1
            return Local

        return helper(a), inner


    async def fetch():
        return 1


    def gen():
        yield 1


    async def agen():
        yield 1


    class Room:
        @property
        def size(self):
            return 1

        @size.setter
        def size(self, value):
            self._size = value

        @staticmethod
        def make():
            return Room()

        @classmethod
        def build(cls):
            return cls()

        def plain(self):
            return 2

        class Inner:
            def deep(self):
                return 3

        @abc.abstractmethod
        def todo(self):
            ...

        @typing.overload
        def over(self, x: int) -> int: ...


    if True:
        def plain():
            return 4
''')


def _scan() -> dict[str, object]:
    return {f.qualname: f for f in scan_source(SOURCE, "pkg/m.py")}


def test_every_function_kind_is_one_quest() -> None:
    found = _scan()
    kinds = {name: f.kind for name, f in found.items()}
    assert kinds == {
        "plain": "function",
        "fetch": "async",
        "gen": "generator",
        "agen": "async generator",
        "Room.size": "property",
        "Room.size.setter": "property",
        "Room.make": "staticmethod",
        "Room.build": "classmethod",
        "Room.plain": "method",
        "Room.Inner.deep": "method",
        f"plain@{SOURCE.splitlines().index('    def plain():') + 1}": "function",
    }


def test_nested_functions_classes_and_lambdas_fold_into_their_holder() -> None:
    plain = _scan()["plain"]
    assert not any("inner" in q or "Local" in q for q in _scan())
    first_body = SOURCE.splitlines().index("    helper = lambda x: x + 1") + 1
    assert plain.body[0] == first_body  # the docstring is skipped
    assert plain.lines[1] > first_body + 6  # covers inner and Local


def test_ids_are_path_and_qualname() -> None:
    assert _scan()["Room.size"].id == "pkg/m.py::Room.size"


def test_source_hash_ignores_position_and_indent_but_not_code() -> None:
    a = scan_source("def f():\n    return 1\n", "m.py")[0]
    b = scan_source("\n\n# moved\nclass A:\n    def f():\n        return 1\n", "m.py")[0]
    c = scan_source("def f():\n    return 2\n", "m.py")[0]
    assert a.source_hash == b.source_hash != c.source_hash


def test_tests_and_quest_folder_are_never_scanned(tmp_path: Path) -> None:
    for rel in ["pkg/__init__.py", "pkg/a.py", "pkg/tests/test_a.py", "pkg/conftest.py",
                "pkg/b_test.py", "pkg/tests/helpers.py", "pkg/quest/test_x.py",
                "pkg/.hidden/c.py", "pkg/__pycache__/d.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def f():\n    return 1\n")
    files = list(iter_source_files(tmp_path, ("pkg",), "pkg/quest"))
    assert files == ["pkg/__init__.py", "pkg/a.py"]
    assert is_test_file("tests/anything.py") and not is_test_file("pkg/testing_utils.py")


def test_unparsable_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def f(:\n")
    result = scan_file(tmp_path, "bad.py")
    assert isinstance(result, ScanError) and result.path == "bad.py"


def test_a_file_too_deep_for_the_parser_is_reported_not_fatal() -> None:
    """Red team 3: one hostile source (5000 unary minus) stopped every scan with a traceback."""
    result = scan_source("def f():\n    return " + "-" * 5000 + "1\n", "deep.py")
    assert isinstance(result, ScanError) and "too deep" in result.message
