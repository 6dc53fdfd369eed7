"""Plugins: extra rules can FAIL, reviewers can only say REVIEW."""

from __future__ import annotations

import pluggy

from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import Catalog
from pytest_quest.hookspecs import PROJECT, Specs, check_facts, hookimpl, review_facts


class Strict:
    @hookimpl
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        catalog.add("team-naming", FAIL, "review", "tests are named test_<quest>", "rename")

    @hookimpl
    def pytest_quest_check(self, submission: object) -> list[Fact]:
        return [Fact("team-naming", FAIL, "t.py:1", "test_nightly_rate_*", "test_x")]

    @hookimpl
    def pytest_quest_review(self, submission: object) -> list[Fact]:
        return [Fact("ai-reviewer", FAIL, "t.py:3", "a meaningful assertion", "looks weak")]


def _manager() -> tuple[pluggy.PluginManager, Catalog]:
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(Specs)
    manager.register(Strict())
    catalog = Catalog()
    manager.hook.pytest_quest_add_rules(catalog=catalog)
    return manager, catalog


def test_plugin_rules_register_and_checks_can_fail() -> None:
    manager, catalog = _manager()
    assert catalog.get("team-naming") is not None
    (fact,) = check_facts(object(), manager)  # type: ignore[arg-type]
    assert fact.level == FAIL


def test_reviewers_are_lowered_to_review() -> None:
    manager, _ = _manager()
    (fact,) = review_facts(object(), manager)  # type: ignore[arg-type]
    assert (fact.rule, fact.level) == ("ai-reviewer", "review")


def test_no_plugins_installed_means_no_facts() -> None:
    assert list(check_facts(object())) == []  # type: ignore[arg-type]
    assert list(review_facts(object())) == []  # type: ignore[arg-type]
