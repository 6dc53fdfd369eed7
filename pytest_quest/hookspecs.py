"""Extension points (pluggy): extra gate rules, and reviewers that can only say REVIEW.

Plugins are found through the ``pytest_quest`` entry-point group. A plugin
module implements any of the hooks below with ``@hookimpl``.

- ``pytest_quest_add_rules(catalog)``: register rules with ``catalog.add(...)``
  so they appear in ``pytest-quest rules``.
- ``pytest_quest_check(submission)``: deterministic extra checks, run after
  the coverage and mutation stages; return facts (a ``fail`` fact FAILs).
- ``pytest_quest_review(submission)``: non-deterministic reviewers (an AI
  reading the test, say). Whatever level they return is lowered to
  ``review``: only the machine gate can FAIL or lock a PASS.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

import pluggy

from pytest_quest.facts import REVIEW, Fact

if TYPE_CHECKING:
    from pytest_quest.gate import Catalog
    from pytest_quest.submission import Submission

__all__ = ["check_facts", "hookimpl", "hookspec", "plugin_manager", "review_facts"]

PROJECT = "pytest_quest"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class Specs:
    """The hook specifications."""

    @hookspec
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        """Register extra rules in the catalog (called once, at start-up)."""

    @hookspec
    def pytest_quest_check(self, submission: Submission) -> list[Fact] | None:
        """Extra deterministic checks of a submission that passed every built-in stage."""

    @hookspec
    def pytest_quest_review(self, submission: Submission) -> list[Fact] | None:
        """Reviewers: their facts can only send a quest to REVIEW."""


@cache
def plugin_manager() -> pluggy.PluginManager:
    """The manager with every installed ``pytest_quest`` plugin loaded, rules registered."""
    from pytest_quest.gate import CATALOG

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(Specs)
    manager.load_setuptools_entrypoints(PROJECT)
    manager.hook.pytest_quest_add_rules(catalog=CATALOG)
    return manager


def check_facts(submission: Submission, manager: pluggy.PluginManager | None = None
                ) -> Iterator[Fact]:
    """Facts of the plugins' deterministic checks."""
    manager = manager or plugin_manager()
    for found in manager.hook.pytest_quest_check(submission=submission):
        yield from found or ()


def review_facts(submission: Submission, manager: pluggy.PluginManager | None = None
                 ) -> Iterator[Fact]:
    """Facts of the reviewers, lowered to ``review`` whatever they claimed."""
    manager = manager or plugin_manager()
    for found in manager.hook.pytest_quest_review(submission=submission):
        for fact in found or ():
            yield Fact(fact.rule, REVIEW, fact.where, fact.expected, fact.actual)
