"""``pytest-quest demo``: a short scripted session on the bundled example project.

It plays what an agent does, on one quest from start to end: scan, ``next``
hands out ``nightly_rate`` with its numbered source, a partial test FAILs
with facts naming the lines it missed, ``next`` shows those very lines
marked in the source, a complete test PASSes and is locked, then status.
The example project ships inside the package, so this works from any
installed wheel; everything happens in a temporary copy and nothing of
yours is touched.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from pytest_quest.cli.terminal import Terminal

QUEST = "hotel/pricing.py::nightly_rate"

PARTIAL = '''from hotel.pricing import nightly_rate


def test_standard_rate_is_base():
    assert nightly_rate(100.0, "standard", 2) == 100.0
'''

COMPLETE = '''import pytest

from hotel.pricing import nightly_rate


def test_standard_rate_is_base():
    assert nightly_rate(100.0, "standard", 2) == 100.0


def test_high_season_costs_a_quarter_more():
    assert nightly_rate(100.0, "high", 6) == 125.0


def test_low_season_costs_a_fifth_less():
    assert nightly_rate(100.0, "low", 1) == 80.0


def test_a_week_or_more_takes_ten_percent_off():
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "standard", 7) == 90.0


def test_nights_must_be_positive():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
    assert nightly_rate(100.0, "standard", 1) == 100.0
'''


def example_project() -> Path:
    """The bundled example: beside the package in a checkout, or shipped inside it (a wheel)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "example_project", here / "example_project"):
        if (candidate / "hotel").is_dir():
            return candidate
    from pytest_quest.errors import EnvironmentFault

    raise EnvironmentFault(f"the bundled example_project is missing from {here}: reinstall "
                           "pytest-quest")


@click.command("demo")
@click.option("--keep", is_flag=True, help="Keep the temporary project and print its path.")
def command(keep: bool) -> None:
    """Play a short scripted agent session on a temporary copy of example_project."""
    from pytest_quest.cli import cli
    from pytest_quest.paths import quest_file_name

    term = Terminal()
    workdir = Path(tempfile.mkdtemp(prefix="pytest-quest-demo-"))
    project = workdir / "example_project"
    skip = shutil.ignore_patterns(".quest", "__pycache__", ".pytest_cache", "quest", "*.pyc")
    shutil.copytree(example_project(), project, ignore=skip)
    root = ["--root", str(project)]

    def step(title: str, args: list[str]) -> int:
        term.rule(title)
        term.print(f"[muted]$ pytest-quest {' '.join(args)}[/muted]")
        try:
            code = cli.main(args=args + root, prog_name="pytest-quest", standalone_mode=False)
        except SystemExit as exc:
            return int(exc.code or 0)
        return code if isinstance(code, int) else 0

    try:
        term.print(f"Demo project: a copy of example_project in {project}")
        step("1. scan: one quest per function; the existing suite locks what it covers", ["scan"])
        step("2. next: the agent takes nightly_rate; ❱ marks the lines to execute",
             ["next", "--id", QUEST])
        test_path = project / "tests" / "quest" / quest_file_name(QUEST)
        test_path.parent.mkdir(parents=True, exist_ok=True)
        test_path.write_text(PARTIAL, encoding="utf-8")
        term.rule("3. the agent writes a partial test (standard season only)")
        term.syntax(PARTIAL)
        code = step("4. submit: the gate answers with facts", ["submit", QUEST])
        term.print(f"[muted]exit code {code}: FAIL, one try spent[/muted]")
        step("5. next again: the lines the facts name are the ones marked",
             ["next", "--id", QUEST])
        test_path.write_text(COMPLETE, encoding="utf-8")
        term.rule("6. the agent covers every branch and boundary")
        term.syntax(COMPLETE)
        code = step("7. submit again: PASS is locked forever", ["submit", QUEST])
        term.print(f"[muted]exit code {code}[/muted]")
        code = step("8. a locked quest takes no more submissions", ["submit", QUEST])
        term.print(f"[muted]exit code {code} (locked)[/muted]")
        step("9. status: remaining only goes down", ["status"])
    finally:
        if keep:
            term.print(f"Kept the demo project at {project}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
