"""pytest11 entry point: the ``quest`` option group and the CI ratchet's hooks.

``pytest --quest-check`` fails the run when a locked (PASS) quest is no longer
fully covered, or its locked test file is gone; ``--quest-update`` also locks
the TODO quests the run covers fully. The verdict itself lives in
:mod:`pytest_quest.lockcheck`; this module only wires hooks.

Measuring: we never run a Coverage object of our own beside pytest-cov (the
collectors stack and pytest-cov dies with an INTERNALERROR). When the user
gave ``--cov``, we read pytest-cov's combined data after it finished. When
not, we switch pytest-cov on ourselves (``--cov=<ledger sources>``, no
report, a private rc and data file in a temp dir), so xdist workers, their
combination and the early start before conftests import are pytest-cov's
proven machinery, not a second copy of it.

Plain ``pytest`` pays one attribute lookup: the ratchet's module
(:mod:`pytest_quest.ratchet_plugin`) is imported and its plugin object
registered only when a quest option is given.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Generator

import pytest

__all__ = ["pytest_addoption", "pytest_load_initial_conftests"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("quest", "pytest-quest ratchet")
    group.addoption("--quest-check", action="store_true", default=False,
                    help="fail the run when a locked quest is no longer fully covered")
    group.addoption("--quest-update", action="store_true", default=False,
                    help="like --quest-check, and lock quests this run covers fully")
    group.addoption("--quest-ledger", default=None, metavar="PATH",
                    help="ledger file (default: .quest/ledger.json in the project root)")
    group.addoption("--quest-json", default=None, metavar="PATH",
                    help="also write the ratchet's verdict as JSON to PATH")


def _wanted(namespace: Namespace) -> bool:
    return bool(getattr(namespace, "quest_check", False)
                or getattr(namespace, "quest_update", False))


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, None, None]:
    """Register the ratchet before pytest-cov's own hook reads its options.

    A wrapper runs before every plain implementation (pytest-cov's is only
    ``tryfirst``), so the ``--cov`` options we set are seen when pytest-cov
    decides whether to start, which is before any conftest is imported.
    """
    namespace = early_config.known_args_namespace
    if _wanted(namespace):
        from pytest_quest.ratchet_plugin import PLUGIN_NAME, QuestPlugin

        if not early_config.pluginmanager.has_plugin(PLUGIN_NAME):
            plugin = QuestPlugin(early_config, namespace)
            early_config.pluginmanager.register(plugin, PLUGIN_NAME)
    return (yield)


