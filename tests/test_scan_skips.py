"""Bug 7 and bug 11: what a scan offers as quests, and what it leaves out with a reason.

Functions no test can cover here (``# pragma: no cover``, defined only on
another Python version or platform, ``TYPE_CHECKING`` stubs) are listed by
``status --skipped``, never offered; ``exclude_quests`` leaves out ids for
good; tooling files (``benchmark.py``, ``setup.py``, ``noxfile.py``, ``docs/``)
are not sources.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.config import detect_sources, load_settings
from pytest_quest.ledger import Ledger
from pytest_quest.scan import scan
from pytest_quest.scanner import Target, scan_source

OTHER = (3, 99) if sys.version_info < (3, 99) else (3, 0)

LIB = textwrap.dedent(f'''
    import sys
    from typing import TYPE_CHECKING


    def covered(x):
        return x + 1


    def never():  # pragma: no cover
        return 2


    class Legacy:  # pragma: no cover
        def old(self):
            return 3


    if sys.version_info >= {OTHER!r}:
        def future():
            return 4
    else:
        def present():
            return 5


    if TYPE_CHECKING:
        def typed() -> int:
            return 6


    def partly(x):
        if x is None:  # pragma: no cover
            return 0
        return x * 2
''')


def _project(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "__init__.py").write_text("")
    (root / "lib" / "core.py").write_text(LIB)
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from lib.core import covered\n\n\ndef test_covered():\n    assert covered(1) == 2\n"
    )
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n\n'
        '[tool.pytest-quest]\nsources = ["lib"]\nexclude_quests = ["*::partly"]\n'
    )
    for tooling in ("setup.py", "benchmark.py", "noxfile.py"):
        (root / tooling).write_text("def main():\n    return 0\n")
    (root / "docs").mkdir()
    (root / "docs" / "conf.py").write_text("def setup(app):\n    return app\n")
    return root


@pytest.mark.slow
def test_uncoverable_functions_are_skipped_with_a_reason_status_lists(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    report, ledger = scan(load_settings(root))
    assert sorted(ledger.quests) == ["lib/core.py::covered", "lib/core.py::present"]
    assert ledger.quests["lib/core.py::covered"].state.value == "PASS"  # the real baseline ran
    reasons = {e["id"]: e["reason"] for e in Ledger.load(ledger.path).skipped}
    assert reasons == {
        "lib/core.py::never": "marked `# pragma: no cover`",
        "lib/core.py::Legacy.old": "class Legacy is marked `# pragma: no cover`",
        "lib/core.py::future": reasons["lib/core.py::future"],
        "lib/core.py::typed": "defined only for type checkers (`if TYPE_CHECKING:`)",
        "lib/core.py::partly": "excluded by [tool.pytest-quest] exclude_quests '*::partly'",
    }
    assert reasons["lib/core.py::future"].startswith(
        f"defined only when `sys.version_info >= {OTHER!r}`, false on Python "
        f"{sys.version_info.major}.{sys.version_info.minor}")
    assert report.to_dict(ledger)["skipped"][0]["id"] == "lib/core.py::never"  # source order

    runner = CliRunner()
    listed = runner.invoke(cli, ["status", "--skipped", "--root", str(root)])
    assert listed.exit_code == 0
    assert "5 functions found but offered as no quest" in listed.stdout
    assert "lib/core.py::never" in listed.stdout and "pragma: no cover" in listed.stdout
    summary = runner.invoke(cli, ["status", "--root", str(root)])
    assert "5 functions offered as no quest" in summary.stderr
    data = json.loads(runner.invoke(cli, ["status", "--json", "--root", str(root)]).stdout)
    assert [e["id"] for e in data["skipped"]][:2] == ["lib/core.py::Legacy.old",
                                                      "lib/core.py::future"]


@pytest.mark.slow
def test_a_function_that_becomes_uncoverable_retires_unless_locked(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    scan(load_settings(root), baseline=True)
    core = root / "lib" / "core.py"
    text = core.read_text()
    core.write_text(text.replace("def covered(x):", "def covered(x):  # pragma: no cover")
                    .replace("def present():", "def present():  # pragma: no cover"))
    _, ledger = scan(load_settings(root), baseline=False)
    assert ledger.quests["lib/core.py::covered"].state.value == "PASS"  # a lock is kept
    assert ledger.quests["lib/core.py::present"].state.value == "RETIRED"


def test_version_and_platform_guards_are_judged_for_the_target_interpreter() -> None:
    source = textwrap.dedent('''
        import os, sys
        if sys.version_info[:2] < (3, 12):
            def old(): return 1
        if sys.platform == "win32" or os.name == "nt":
            def win(): return 2
        if not sys.platform.startswith("linux"):
            def nonlinux(): return 3
        if sys.version_info.minor >= 12 or unknown():
            def maybe(): return 4
    ''')
    py311 = {f.qualname: f.skip for f in scan_source(source, "m.py", Target((3, 11, 9), "linux",
                                                                           "posix"))}
    assert py311 == {"old": "", "win": py311["win"], "nonlinux": py311["nonlinux"], "maybe": ""}
    assert "false on Python 3.11.9 on linux" in py311["win"]
    py313 = {f.qualname: f.skip for f in scan_source(source, "m.py", Target((3, 13, 0), "win32",
                                                                           "nt"))}
    assert py313["old"].startswith("defined only when `sys.version_info[:2] < (3, 12)`")
    assert py313["win"] == "" and py313["nonlinux"] == "" and py313["maybe"] == ""


def test_tooling_is_not_detected_as_sources(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    (root / "tabulate.py").write_text("def tabulate():\n    return ''\n")
    (root / "bench_speed.py").write_text("")
    assert detect_sources(root) == ("lib", "tabulate.py")


def test_scanning_the_whole_root_still_leaves_tooling_out(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    _, ledger = scan(load_settings(root).with_overrides(sources=["."]), baseline=False)
    paths = {q.path for q in ledger.quests.values()}
    assert paths == {"lib/core.py"}


@pytest.mark.slow
def test_guards_are_judged_for_the_configured_python(tmp_path: Path) -> None:
    from pytest_quest.scanner import target_of

    fake = tmp_path / "python-win"
    fake.write_text("#!/bin/sh\necho '[[3, 14, 1], \"win32\", \"nt\"]'\n")
    fake.chmod(0o755)
    assert target_of(str(fake)) == Target((3, 14, 1), "win32", "nt")
    assert target_of(str(tmp_path / "no-such-python")) == Target.here()
    assert target_of(sys.executable) == Target.here()

    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("import sys\nif sys.platform == 'win32':\n"
                               "    def only_windows():\n        return 1\n")
    (root / "pyproject.toml").write_text(f'[tool.pytest-quest]\nsources = ["m.py"]\n'
                                         f'python = "{fake}"\n')
    _, ledger = scan(load_settings(root), baseline=False)
    assert list(ledger.quests) == ["m.py::only_windows"]


def test_the_reason_names_the_marked_block_that_holds_a_function() -> None:
    source = textwrap.dedent('''
        from sys import hexversion
        try:
            from math import sumprod as fsumprod
        except ImportError:  # pragma: no cover

            def fsumprod(p, q):
                return sum(a * b for a, b in zip(p, q))


        if hexversion >= 0x30D00A2:
            def batched(iterable, n):
                return iterable
        else:
            def batched_old(iterable, n):
                return iterable
    ''')
    found = {f.qualname: f.skip for f in scan_source(source, "m.py", Target((3, 12, 1), "linux",
                                                                          "posix"))}
    assert found["fsumprod"] == "under line 5 `except ImportError:  # pragma: no cover`"
    assert found["batched"].startswith("defined only when `hexversion >= 0x30D00A2`, false on")
    assert found["batched_old"] == ""


def test_code_after_a_false_platform_assert_is_skipped() -> None:
    """click 8.5.1's ``_winconsole.py`` starts with ``assert sys.platform == "win32"``: on
    Linux it cannot even be imported, so its 20 functions were quests no test could cover."""
    source = textwrap.dedent('''
        import sys

        def before(): return 0

        assert sys.platform == "win32"

        def after(): return 1

        class Console:
            def write(self): return 2
    ''')
    linux = {f.qualname: f.skip for f in scan_source(source, "w.py", Target((3, 11, 9),
                                                                            "linux", "posix"))}
    assert linux["before"] == ""
    assert linux["after"] == ('after line 6 `assert sys.platform == "win32"`, false on '
                              'Python 3.11.9 on linux: the code stops there')
    assert linux["Console.write"] == linux["after"]
    windows = scan_source(source, "w.py", Target((3, 11, 9), "win32", "nt"))
    assert [f.skip for f in windows] == ["", "", ""]
    unknown = scan_source(source.replace('sys.platform == "win32"', "ready()"), "w.py",
                          Target((3, 11, 9), "linux", "posix"))
    assert [f.skip for f in unknown] == ["", "", ""]  # an assert we cannot judge skips nothing


@pytest.mark.slow
def test_a_windows_only_module_offers_no_quest_on_linux(tmp_path: Path) -> None:
    """The whole scan on a real project: the module that asserts another platform is listed
    by ``status --skipped``, never offered, and the baseline still runs the rest."""
    other = "win32" if sys.platform != "win32" else "linux"
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def double(x):\n    return x * 2\n")
    (root / "pkg" / "console.py").write_text(
        f"import sys\n\nassert sys.platform == {other!r}\n\n\ndef attach():\n    return 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from pkg.core import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    report, ledger = scan(load_settings(root))
    assert sorted(ledger.quests) == ["pkg/core.py::double"]
    assert ledger.quests["pkg/core.py::double"].state.value == "PASS"
    assert [s.id for s in report.skipped] == ["pkg/console.py::attach"]
    assert f"assert sys.platform == {other!r}" in report.skipped[0].skip
