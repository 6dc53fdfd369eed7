"""Extension points (pluggy): extra gate rules and checks, and reviewers that can only say REVIEW.

Plugins are found through the ``pytest_quest`` entry-point group. A plugin
module implements any of the hooks below with ``@pytest_quest.hookimpl``;
the built-in rules are registered the same way (``pytest_quest.rules.Builtin``),
and :func:`pytest_quest.rules.plugin_manager` loads them all.

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
from typing import TYPE_CHECKING

import pluggy

from pytest_quest.facts import REVIEW, Fact

if TYPE_CHECKING:
    from pytest_quest.gate import Catalog, Check
    from pytest_quest.submission import Submission

__all__ = ["PROJECT", "Specs", "hookimpl", "hookspec", "review_facts"]

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


def review_facts(submission: Submission, manager: pluggy.PluginManager) -> Iterator[Fact]:
    """Facts of the reviewers, lowered to ``review`` whatever they claimed."""
    for found in manager.hook.pytest_quest_review(submission=submission):
        for fact in found or ():
            yield Fact(fact.rule, REVIEW, fact.where, fact.expected, fact.actual)
