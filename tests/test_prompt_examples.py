"""Bug 10: the example `next` offers works where the agent's test goes.

It passes the gate's static rules and imports from the quest folder: a
benchmark test without an assertion, ``from common import skip`` (a module
beside the original test), a test leaning on a helper of its module or on a
fixture the quest folder cannot see are never offered.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger
from pytest_quest.prompt import brief
from pytest_quest.scan import scan

SUITE = textwrap.dedent('''
    from common import skip
    import helpers_pkg

    from calc import add, scale

    LIMIT = 3


    def test_benchmark_add(benchmark):
        benchmark(add, 1, 2)


    def test_add_with_common():
        skip(add(1, 2))


    def test_add_below_limit():
        assert add(1, 1) < LIMIT


    def test_add_with_module_fixture(numbers):
        assert add(*numbers) == 3


    def test_add_two_numbers(tmp_path):
        assert add(2, 3) == 5
        assert add(-1, 1) == 0


    def test_scale():
        assert scale(2) == 4
''')


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\n"
                                  "def scale(x):\n    return x * 2\n")
    (root / "tests").mkdir()
    (root / "tests" / "common.py").write_text("def skip(value):\n    return value\n")
    (root / "tests" / "test_calc.py").write_text(SUITE)
    (root / "tests" / "helpers_pkg").mkdir()
    (root / "tests" / "helpers_pkg" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n\n'
        '[tool.pytest-quest]\nsources = ["calc.py"]\nmutation = false\n'
    )
    return root


@pytest.mark.slow
def test_the_example_is_one_that_works_from_the_quest_folder(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    scan(load_settings(root), baseline=False)
    settings = load_settings(root)
    quest = Ledger.load(Ledger.for_root(root).path).get("calc.py::add")
    item = brief(quest, settings)
    assert item.example_from == "tests/test_calc.py"
    assert item.example == ("from calc import add, scale\n\n\n"
                            "def test_add_two_numbers(tmp_path):\n"
                            "    assert add(2, 3) == 5\n"
                            "    assert add(-1, 1) == 0\n")

    # Copied as is to where `next` says, it is judged on its merits: PASS, not a static FAIL.
    (root / item.test_path).parent.mkdir(parents=True)
    (root / item.test_path).write_text(item.example)
    result = CliRunner().invoke(cli, ["submit", "calc.py::add", "--dry-run", "--json",
                                      "--root", str(root)])
    data = json.loads(result.stdout)
    assert data["verdict"] == "PASS", data["facts"]


def test_project_files_too_deep_to_parse_are_passed_over(tmp_path: Path) -> None:
    """A test file and a conftest.py the parser cannot hold are skipped, not a traceback."""
    root = _project(tmp_path / "proj")
    deep = "x = a" + ".b" * 100_000 + "\n"
    (root / "tests" / "test_a_deep.py").write_text(deep)  # looked at before test_calc.py
    (root / "tests" / "conftest.py").write_text("x = " + "-" * 100_000 + "1\n")
    scan(load_settings(root), baseline=False)
    quest = Ledger.load(Ledger.for_root(root).path).get("calc.py::add")
    assert brief(quest, load_settings(root)).example_from == "tests/test_calc.py"


def test_without_a_usable_test_the_template_is_offered(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    (root / "tests" / "test_calc.py").write_text(SUITE.replace(
        "def test_add_two_numbers(tmp_path):\n    assert add(2, 3) == 5\n"
        "    assert add(-1, 1) == 0\n", "").replace(
        "def test_scale():\n    assert scale(2) == 4\n", ""))
    scan(load_settings(root), baseline=False)
    quest = Ledger.load(Ledger.for_root(root).path).get("calc.py::add")
    item = brief(quest, load_settings(root))
    assert item.example_from is None and "from calc import add" in item.example


def test_every_example_of_the_example_project_passes_the_static_rules(project: Path) -> None:
    from pytest_quest.prompt import _ExampleContext

    settings = load_settings(project)
    context = _ExampleContext(settings)
    ledger = Ledger.load(Ledger.for_root(project).path)
    offered = 0
    for quest in ledger.ordered():
        if quest.state.value != "TODO":
            continue
        item = brief(quest, settings)
        assert context.passes_static(quest, item.example) or item.example_from is None, quest.id
        offered += item.example_from is not None
    assert offered > 10
