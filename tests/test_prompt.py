"""What `next` shows: statements, marked lines, an example from the project, the command."""

from __future__ import annotations

from pathlib import Path

from pytest_quest.config import Settings, load_settings
from pytest_quest.facts import FAIL, Fact
from pytest_quest.ledger import Ledger
from pytest_quest.prompt import brief, executable_lines
from pytest_quest.quest import Quest


def test_brief_for_a_fresh_quest(project: Path, settings: Settings) -> None:
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    item = brief(quest, settings)
    assert item.statements == (6, 7, 8, 9, 10, 11, 13, 14, 15, 16)
    assert item.missing == item.statements  # the submitted test alone must run them all
    assert item.example_from == "tests/test_pricing.py"
    assert "from hotel.pricing import" in item.example
    assert item.submit_command == ("pytest-quest submit hotel/pricing.py::nightly_rate "
                                   "--test tests/quest/test_hotel_pricing__nightly_rate.py")
    text = item.text()
    assert ">    7          raise ValueError" in text
    assert "Tries used: 0 of 3" in text
    assert 'add --unreachable LINE:"REASON" to that command' in text  # the way to REVIEW


def test_brief_after_a_failure_shows_its_facts_and_missing_lines(project: Path,
                                                                  settings: Settings) -> None:
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    fact = Fact("coverage-lines", FAIL, "hotel/pricing.py:7,9", "executed", "not executed")
    failed = quest.with_(tries=1, facts=(fact,), missing=(7, 9))
    item = brief(failed, settings)
    data = item.to_dict()
    assert data["missing_lines"] == [7, 9] and data["tries_left"] == 2
    assert data["facts"][0]["where"] == "hotel/pricing.py:7,9"
    assert "[coverage-lines] hotel/pricing.py:7,9" in data["prompt"]


def test_decorators_are_shown_with_the_source(project: Path, settings: Settings) -> None:
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/booking.py::Booking.nights")
    item = brief(quest, settings)
    assert item.source.lstrip().startswith("@property")
    assert item.first_line == quest.lines[0] - 1


def test_the_example_ranks_a_call_then_the_module_then_any_test(project: Path,
                                                                 settings: Settings) -> None:
    """docs/design.md: the built-in template only when no test of the suite qualifies."""
    ledger = Ledger.load(Ledger.for_root(project).path)
    calls = brief(ledger.get("hotel/rooms.py::occupancy_rate"), settings)
    assert calls.example_from == "tests/test_rooms.py" and "occupancy_rate(" in calls.example
    same_module = brief(ledger.get("hotel/pricing.py::tax_amount"), settings)
    assert same_module.example_from == "tests/test_pricing.py"
    assert "tax_amount" not in same_module.example
    elsewhere = brief(ledger.get("hotel/reports.py::average_stay"), settings)
    assert elsewhere.example_from in ("tests/test_pricing.py", "tests/test_rooms.py")


def test_template_when_the_project_has_no_tests(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text("class A:\n    def run(self):\n        return 1\n")
    settings = load_settings(tmp_path)
    quest = Quest(id="pkg/m.py::A.run", path="pkg/m.py", qualname="A.run", lines=(2, 3),
                  body=(3, 3))
    item = brief(quest, settings)
    assert item.example_from is None
    assert "from pkg.m import A" in item.example and "A(...).run(...)" in item.example


def test_executable_lines_falls_back_to_the_span(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert executable_lines(bad, (2, 4)) == (2, 3, 4)


def test_a_project_test_too_deep_for_the_parser_is_no_example(project: Path,
                                                            settings: Settings) -> None:
    """Red team 3: one hostile test file in the project made every `next` end in a traceback."""
    (project / "tests" / "test_aaa_deep.py").write_text(
        "def test_deep():\n    assert " + "-" * 5000 + "1\n", encoding="utf-8")
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    assert brief(quest, settings).example_from == "tests/test_pricing.py"
