"""pytest11 entry point: the ``quest`` option group (``--quest-check`` and friends)."""

from __future__ import annotations

import pytest

__all__ = ["pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("quest", "pytest-quest ratchet")
    group.addoption("--quest-check", action="store_true", default=False,
                    help="fail the run when a locked quest is no longer fully covered")
    group.addoption("--quest-update", action="store_true", default=False,
                    help="like --quest-check, and lock quests this run covers fully")
    group.addoption("--quest-ledger", default=None, metavar="PATH",
                    help="ledger file (default: .quest/ledger.json in the project root)")
