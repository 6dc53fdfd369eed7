"""Plugins: extra rules and checks run in the stage they name, reviewers can only say REVIEW."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest_quest
from pytest_quest.config import load_settings
from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import STAGES, Catalog, Check, evaluate
from pytest_quest.hookspecs import hookimpl, new_manager, review_facts
from pytest_quest.quest import Quest
from pytest_quest.rules import Builtin, coverage, static, submission_stages
from pytest_quest.states import Outcome
from pytest_quest.submission import Submission

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"


def naming(sub: Submission) -> Iterator[Fact]:
    if "test_nightly_rate" not in sub.test_text:
        yield Fact("team-naming", FAIL, sub.test_rel, "a test named test_nightly_rate*", "none")


class Strict:
    @hookimpl
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        catalog.add("team-naming", FAIL, "static", "tests are named test_<function>", "rename")

    @hookimpl
    def pytest_quest_checks(self) -> list[Check[Submission]]:
        return [Check("static", naming)]

    @hookimpl
    def pytest_quest_review(self, submission: Submission) -> list[Fact]:
        return [Fact("ai-reviewer", FAIL, "t.py:3", "a meaningful assertion", "looks weak")]


def _submission(source: str) -> Submission:
    quest = Quest(id="hotel/pricing.py::nightly_rate", path="hotel/pricing.py",
                  qualname="nightly_rate")
    return Submission(settings=load_settings(EXAMPLE), quest=quest,
                      test_rel="tests/quest/test_x.py",
                      test_bytes=textwrap.dedent(source).encode(), snapshot={})


def test_hookimpl_is_exported_from_the_package() -> None:
    assert pytest_quest.hookimpl is hookimpl
    assert "hookimpl" in pytest_quest.__all__


def test_plugin_rules_join_the_catalog() -> None:
    catalog = Catalog()
    new_manager(Strict(), catalog=catalog)
    rule = catalog.get("team-naming")
    assert rule is not None and rule.stage == "static"


def test_plugin_check_runs_in_the_stage_it_declares_after_the_builtin_ones() -> None:
    stages = {s.name: s for s in submission_stages(new_manager(Strict(), catalog=Catalog()))}
    assert stages["static"].checks == (static.check, naming)
    assert naming not in stages["coverage"].checks
    assert stages["coverage"].checks == (coverage.check,)


def test_a_failing_plugin_check_stops_the_gate_in_its_stage() -> None:
    catalog = Catalog()
    manager = new_manager(Strict(), catalog=catalog)
    good = """
        from hotel.pricing import nightly_rate

        def test_rate():
            assert nightly_rate(100, 2) == 200
    """
    evaluation = evaluate(submission_stages(manager), _submission(good), catalog)
    assert evaluation.verdict.outcome is Outcome.FAIL
    assert evaluation.verdict.root_cause == "team-naming"
    assert evaluation.verdict.hint == "rename"
    # Stopped after static: the scope stage never paid for a sandbox copy.
    assert evaluation.context.sandbox is None and evaluation.context.tree is not None


def test_reviewers_are_lowered_to_review() -> None:
    manager = new_manager(Strict(), catalog=Catalog())
    (fact,) = review_facts(_submission(""), manager)
    assert (fact.rule, fact.level) == ("ai-reviewer", REVIEW)


def test_reviewers_run_in_the_last_stage() -> None:
    stages = submission_stages(new_manager(Strict(), catalog=Catalog()))
    assert stages[-1].name == STAGES[-1] == "review"
    (check,) = stages[-1].checks
    (fact,) = check(_submission(""))
    assert fact.level == REVIEW


def test_without_plugins_only_the_builtin_checks_run() -> None:
    stages = submission_stages(new_manager(catalog=Catalog()))
    declared = [c.run for c in Builtin().pytest_quest_checks()]
    assert [c for s in stages[:-1] for c in s.checks] == declared
    (check,) = stages[-1].checks
    assert list(check(_submission(""))) == []
