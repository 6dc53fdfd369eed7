"""The coverage-domain rule catalog, one module per gate stage, and the submission's stages.

Importing this package registers every built-in rule in
:data:`pytest_quest.gate.CATALOG`. The built-in checks reach the gate through
the same hook as a plugin's (:class:`Builtin` implements
``pytest_quest_checks``), and :func:`submission_stages` assembles
:data:`pytest_quest.gate.STAGES` with each stage's preparation and every check
declared for it: built-in first, then plugins', then the reviewers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pluggy

from pytest_quest.gate import Check, Stage, stages
from pytest_quest.hookspecs import hookimpl, plugin_manager, review_facts
from pytest_quest.rules import coverage, mutation, run, scope, static
from pytest_quest.submission import Submission, copy_project, parse, run_tests

__all__ = ["PREPARE", "Builtin", "submission_stages"]

#: What each stage pays for before its checks run (see :mod:`pytest_quest.submission`).
PREPARE: dict[str, Callable[[Submission], Submission]] = {
    "static": parse,
    "scope": copy_project,
    "run": run_tests,
}


class Builtin:
    """pytest-quest's own checks, declared through the plugin hook like anyone's."""

    @hookimpl(tryfirst=True)
    def pytest_quest_checks(self) -> list[Check[Submission]]:
        return [
            Check("static", static.check),
            Check("scope", scope.check),
            Check("run", run.check),
            # While the sandbox still exists: the run left the protected files as copied.
            Check("run", static.check_after_run),
            Check("coverage", coverage.check),
            Check("mutation", mutation.check),
        ]


def submission_stages(manager: pluggy.PluginManager | None = None
                      ) -> tuple[Stage[Submission], ...]:
    """The gate's stages for a submission, cheapest first, with every installed plugin's checks."""
    manager = manager or plugin_manager()
    checks = [check for found in manager.hook.pytest_quest_checks() for check in found or ()]
    checks.append(Check("review", partial(review_facts, manager=manager)))
    return stages(checks, PREPARE)
