"""Extension points (pluggy): extra gate rules and checks, and reviewers that can only say REVIEW.

Plugins are found through the ``pytest_quest`` entry-point group. A plugin
module implements any of the hooks below with ``@pytest_quest.hookimpl``;
the built-in rules are registered the same way (``pytest_quest.rules.Builtin``).

- ``pytest_quest_add_rules(catalog)``: register rules with ``catalog.add(...)``
  so they appear in ``pytest-quest rules`` (the audit list).
- ``pytest_quest_checks()``: the plugin's deterministic checks, each a
  ``Check(stage, function)``; the function runs in the stage it names, after
  the built-in checks of that stage, reads the submission and yields facts
  (a ``fail`` fact FAILs, and stops the gate after that stage).
- ``pytest_quest_review(submission)``: non-deterministic reviewers (an AI
  reading the test, say), run in the last stage. Whatever level they return
  is lowered to ``review``: only the machine gate can FAIL or lock a PASS.

docs/plugins.md shows both kinds end to end.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

import pluggy

from pytest_quest.facts import REVIEW, Fact

if TYPE_CHECKING:
    from pytest_quest.gate import Catalog, Check
    from pytest_quest.submission import Submission

__all__ = ["PROJECT", "Specs", "hookimpl", "hookspec", "new_manager", "plugin_manager",
           "review_facts"]

PROJECT = "pytest_quest"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class Specs:
    """The hook specifications."""

    @hookspec
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        """Register extra rules in the catalog (called once, at start-up)."""

    @hookspec
    def pytest_quest_checks(self) -> list[Check[Submission]] | None:
        """Deterministic checks, each run in the stage it names."""

    @hookspec
    def pytest_quest_review(self, submission: Submission) -> list[Fact] | None:
        """Reviewers: their facts can only send a quest to REVIEW."""


def new_manager(*plugins: object, catalog: Catalog | None = None,
                entry_points: bool = False) -> pluggy.PluginManager:
    """A manager with the built-in rules, ``plugins`` (and installed ones), their rules added.

    ``catalog`` defaults to the gate's :data:`~pytest_quest.gate.CATALOG`;
    ``entry_points`` also loads every installed ``pytest_quest`` plugin.
    """
    from pytest_quest.gate import CATALOG
    from pytest_quest.rules import Builtin

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(Specs)
    manager.register(Builtin(), name="pytest-quest")
    for plugin in plugins:
        manager.register(plugin)
    if entry_points:
        manager.load_setuptools_entrypoints(PROJECT)
    manager.hook.pytest_quest_add_rules(catalog=CATALOG if catalog is None else catalog)
    return manager


@cache
def plugin_manager() -> pluggy.PluginManager:
    """The process's manager: built-in rules plus every installed ``pytest_quest`` plugin.

    Entry points are loaded once per process; their rules join the gate's catalog.
    """
    return new_manager(entry_points=True)


def review_facts(submission: Submission, manager: pluggy.PluginManager | None = None
                 ) -> Iterator[Fact]:
    """Facts of the reviewers, lowered to ``review`` whatever they claimed."""
    manager = manager or plugin_manager()
    for found in manager.hook.pytest_quest_review(submission=submission):
        for fact in found or ():
            yield Fact(fact.rule, REVIEW, fact.where, fact.expected, fact.actual)
