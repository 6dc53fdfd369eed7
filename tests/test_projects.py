"""Projects other than the example: src layout, flat modules, classes, no existing tests."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli

#: Every project here is scanned and judged in real sandboxes.
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))


def _cli(root: Path, *args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, [*args, "--json", "--root", str(root)])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


SHAPES = '''
class Shape:
    def __init__(self, sides):
        if sides < 3:
            raise ValueError("a shape has at least 3 sides")
        self.sides = sides

    @property
    def name(self):
        return {3: "triangle", 4: "square"}.get(self.sides, "polygon")

    @staticmethod
    def clamp(value, low, high):
        return max(low, min(value, high))
'''

SHAPES_TEST = '''
import pytest
from geo.shapes import Shape


def test_triangle_and_square_and_polygon():
    assert Shape(3).name == "triangle"
    assert Shape(4).name == "square"
    assert Shape(5).name == "polygon"
'''

#: The quest test for ``Shape.clamp``, written where ``next`` asks for it.
CLAMP_TEST = {"tests/quest/test_geo_shapes__Shape_clamp.py": '''
    from geo.shapes import Shape


    def test_clamp():
        assert Shape.clamp(5, 0, 3) == 3
        assert Shape.clamp(-1, 0, 3) == 0
        assert Shape.clamp(2, 0, 3) == 2
    '''}


def test_src_layout_without_tests(tmp_path: Path) -> None:
    _tree(tmp_path, {"pyproject.toml": "[project]\nname = 'geo'\nversion = '0'\n",
                     "src/geo/__init__.py": "", "src/geo/shapes.py": SHAPES})
    code, scan = _cli(tmp_path, "scan")
    assert code == 0 and scan["total"] == 3 and scan["locked_by_baseline"] == 0
    code, nxt = _cli(tmp_path, "next")
    assert nxt["quest"] == "src/geo/shapes.py::Shape.__init__"
    assert nxt["example_from"] is None and "from geo.shapes import Shape" in nxt["example"]

    quest = "src/geo/shapes.py::Shape.name"
    _tree(tmp_path, {"tests/quest/test_geo_shapes__Shape_name.py": SHAPES_TEST})
    code, result = _cli(tmp_path, "submit", quest)
    assert code == 0, result
    assert result["verdict"] == "PASS"


#: A flat module with one function: the two flat-module projects here start from it.
CALC = '''
        def clamp(value, low, high):
            if value < low:
                return low
            if value > high:
                return high
            return value
        '''


def test_flat_module_project_and_method_quests(tmp_path: Path) -> None:
    _tree(tmp_path, {"calc.py": CALC, "test_calc.py": '''
        from calc import clamp

        def test_inside():
            assert clamp(5, 0, 10) == 5
        '''})
    code, scan = _cli(tmp_path, "scan")
    assert code == 0 and scan["total"] == 1 and scan["remaining"] == 1
    _tree(tmp_path, {"tests/quest/test_calc__clamp.py": '''
        from calc import clamp

        def test_low():
            assert clamp(-1, 0, 10) == 0
        '''})
    code, result = _cli(tmp_path, "submit", "calc.py::clamp")
    assert code == 1
    assert result["facts"][0]["where"] == "calc.py:5,6,7"


def test_project_addopts_with_xdist_cov_and_warnings_as_errors(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "pyproject.toml": '''
            [tool.pytest.ini_options]
            filterwarnings = ["error"]
            addopts = "-n 2 --cov=geo --cov-fail-under=100"
            ''',
        "geo/__init__.py": "",
        "geo/shapes.py": SHAPES,
        "tests/test_shapes.py": SHAPES_TEST,
    })
    code, scan = _cli(tmp_path, "scan")
    assert code == 0
    assert scan["locked_by_baseline"] == 1  # Shape.name; __init__ misses its raise
    _tree(tmp_path, CLAMP_TEST)
    code, result = _cli(tmp_path, "submit", "geo/shapes.py::Shape.clamp")
    assert code == 0, result


ASYNC_TEST = '''
import asyncio
from datetime import date

import pytest

from hotel.booking import Booking, BookingError, confirm_booking


def booking():
    return Booking(room_number="12", guest_email="ada@example.com",
                   check_in=date(2026, 3, 1), check_out=date(2026, 3, 4))


def test_confirmation_code_and_message():
    sent = []

    async def send(to, body):
        sent.append((to, body))
        return True

    assert asyncio.run(confirm_booking(booking(), send)) == "12-20260301-3"
    assert sent == [("ada@example.com", "Booking 12-20260301-3: room 12, 3 night(s)")]


def test_undelivered_confirmation_raises():
    async def send(to, body):
        return False

    with pytest.raises(BookingError, match="12-20260301-3"):
        asyncio.run(confirm_booking(booking(), send))
'''

GENERATOR_TEST = '''
from hotel.rooms import Room, available_rooms


def test_free_rooms_smallest_first():
    rooms = [Room("301", "suite", 4), Room("101", "double", 2), Room("201", "twin", 2)]
    assert [r.number for r in available_rooms(rooms, 2, set())] == ["101", "201", "301"]
    assert [r.number for r in available_rooms(rooms, 2, {"101"})] == ["201", "301"]
    assert [r.number for r in available_rooms(rooms, 3, set())] == ["301"]
    assert list(available_rooms(rooms, 5, set())) == []
'''


def test_async_function_and_generator_quests_can_pass(submit_test) -> None:
    result = submit_test("hotel/booking.py::confirm_booking", ASYNC_TEST)
    assert result.verdict.outcome.value == "PASS", result.verdict.facts
    result = submit_test("hotel/rooms.py::available_rooms", GENERATOR_TEST)
    assert result.verdict.outcome.value == "PASS", result.verdict.facts


def test_warnings_as_errors_with_pytest_quest_installed_as_a_plain_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 8 bug 1: with a regular (non-editable) install, pytest marks our package for
    assertion rewriting and warns that the harness imported it first; the project's
    ``filterwarnings = error`` turned that into an error: the baseline locked nothing and
    every submit failed. Here pytest_quest is found on the path as a wheel puts it."""
    from pytest_quest import sandbox

    environment = sandbox._environment

    def installed_plainly(box: sandbox.Sandbox, settings: object, *rest: object
                          ) -> dict[str, str]:
        env = environment(box, settings, *rest)  # type: ignore[arg-type]
        env["PYTHONPATH"] += os.pathsep + str(REPO)
        return env

    monkeypatch.setattr(sandbox, "_environment", installed_plainly)
    _tree(tmp_path, {
        "pyproject.toml": '''
            [tool.pytest.ini_options]
            filterwarnings = ["error"]
            ''',
        "geo/__init__.py": "",
        "geo/shapes.py": SHAPES,
        "tests/test_shapes.py": SHAPES_TEST,
    })
    code, scan = _cli(tmp_path, "scan")
    assert code == 0, scan
    assert scan["baseline"]["tests_failed"] == 0 and "note" not in scan["baseline"]
    assert scan["locked_by_baseline"] == 1
    _tree(tmp_path, CLAMP_TEST)
    code, result = _cli(tmp_path, "submit", "geo/shapes.py::Shape.clamp")
    assert (code, result["verdict"]) == (0, "PASS"), result


def test_flat_module_baseline_locks_and_the_ratchet_keeps_it(tmp_path: Path) -> None:
    """A project that is one top-level module (xmltodict.py): its suite locks what it covers.

    coverage.py's ``source`` takes folders and package names only, so the module's
    path there measured nothing: the baseline locked nothing and ``--quest-check``
    read every lock as lost (calibration on xmltodict 1.0.4).
    """
    _tree(tmp_path, {"calc.py": CALC + '''

        def double(value):
            return value * 2
        ''', "tests/test_calc.py": '''
        from calc import clamp

        def test_clamp():
            assert clamp(-1, 0, 10) == 0
            assert clamp(11, 0, 10) == 10
            assert clamp(5, 0, 10) == 5
        ''', "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\n'})
    code, scan = _cli(tmp_path, "scan")
    assert code == 0, scan
    assert scan["locked_by_baseline"] == 1 and scan["remaining"] == 1
    code, check = _cli(tmp_path, "check")
    assert code == 0, check
    assert check["ok"] is True and check["checked"] == 1


def test_code_compiled_from_a_non_python_file_does_not_cost_the_baseline(tmp_path: Path) -> None:
    """Frames from a file coverage.py cannot parse (a Cython ``.pyx`` built with line tracing,
    a template) must not fail the whole coverage report: yarl 1.25.1's suite locked nothing.
    A src/ layout with a subpackage: every module below ``src`` is measured.
    """
    _tree(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        "src/pkg/__init__.py": "",
        "src/pkg/core.py": '''
            def double(value):
                return value * 2
            ''',
        "src/pkg/sub/__init__.py": "",
        "src/pkg/sub/deep.py": '''
            def triple(value):
                return value * 3
            ''',
        "src/pkg/shout.pyx": "cdef str shout(str text)  # Cython, not Python\n",
        "src/pkg/gen.py": '''
            import os

            _HERE = os.path.dirname(os.path.abspath(__file__))
            _CODE = compile("def shout(text):\\n    return text.upper()\\n",
                            os.path.join(_HERE, "shout.pyx"), "exec")
            _NS = {}
            exec(_CODE, _NS)
            shout = _NS["shout"]
            ''',
        "tests/test_pkg.py": '''
            from pkg.core import double
            from pkg.gen import shout
            from pkg.sub.deep import triple

            def test_all():
                assert double(2) == 4
                assert triple(2) == 6
                assert shout("a") == "A"
            ''',
    })
    code, scan = _cli(tmp_path, "scan")
    assert code == 0, scan
    assert scan["locked_by_baseline"] == 2, scan
    assert "note" not in scan["baseline"]


@pytest.mark.parametrize("conftest", [False, True])
def test_a_def_the_module_does_not_bind_goes_to_a_person(tmp_path: Path, conftest: bool
                                                         ) -> None:
    # Calibration of attrs (`_get_annotations`, defined for Python 3.14+ and again for the
    # rest): the quest is the first def, the module binds the second. With a conftest that
    # imports the module, the run put the first def's code into the second (a NameError, a
    # FAIL); without one, the first def's lines ran nowhere (coverage-lines, a FAIL). It is a
    # quest no test can reach on this Python: a person decides, no try spent on a FAIL.
    _tree(tmp_path, {"flags.py": '''
        import sys

        FUTURE = sys.version_info[:2] >= (3, 99)

        if FUTURE:

            def bump(x):
                return not_here.bump(x)

        else:

            def bump(x):
                return x + 1
        ''', **({"conftest.py": "import flags\n"} if conftest else {})})
    code, scan = _cli(tmp_path, "scan")
    assert code == 0 and scan["total"] == 2  # a quest for each def
    quest = "flags.py::bump"  # the first
    _tree(tmp_path, {"tests/quest/test_flags__bump.py": '''
        from flags import bump

        def test_bump():
            assert bump(1) == 2
            assert bump(-1) == 0
        '''})
    code, result = _cli(tmp_path, "submit", quest, "--dry-run")
    assert result["verdict"] == "REVIEW", result
    assert [f["rule"] for f in result["facts"]] == ["run-target-unreachable"]
