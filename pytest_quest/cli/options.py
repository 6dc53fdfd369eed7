"""Options shared by several commands, and the settings they resolve to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pytest_quest.config import Settings, find_root, load_settings
from pytest_quest.ledger import Ledger

__all__ = [
    "complete_quest_id",
    "json_option",
    "load_project",
    "recorded_settings",
    "root_option",
    "settings_from",
]

F = TypeVar("F", bound=Callable[..., Any])


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project root (default: the nearest folder up holding .quest/ or pyproject.toml).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Machine output on stdout.")(func)


def settings_from(root: Path | None, recorded: dict[str, Any] | None = None,
                  **overrides: Any) -> Settings:
    """Settings from ``pyproject.toml``, then the last scan's, then command-line ``overrides``.

    ``recorded`` is the ledger's ``settings`` when the caller has the ledger
    already; otherwise they are read from the file.
    """
    base = find_root(root)
    if recorded is None:
        recorded = recorded_settings(base)
    return load_settings(base, recorded).with_overrides(**overrides)


def load_project(root: Path | None) -> tuple[Settings, Ledger]:
    """The ledger, parsed once, and the settings it completes (for read-only commands)."""
    base = find_root(root)
    ledger = Ledger.load(Ledger.for_root(base).path)
    return settings_from(base, ledger.settings), ledger


def recorded_settings(root: Path) -> dict[str, Any]:
    """The ``settings`` the last scan wrote into the ledger (empty when there is none).

    A ledger that cannot be read is not this function's business: the command
    that loads it says so, with the file's name.
    """
    import json

    try:
        with open(Ledger.for_root(root).path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    settings = data.get("settings") if isinstance(data, dict) else None
    return settings if isinstance(settings, dict) else {}


def complete_quest_id(ctx: click.Context, param: click.Parameter,
                      incomplete: str) -> list[Any]:
    """Shell completion for QUEST_ID arguments: the ledger's ids that start with ``incomplete``.

    Completion must never print an error into the user's prompt, so a missing
    or damaged ledger completes nothing. The ids are read straight from the
    JSON (no validation): completion runs on every Tab press.
    """
    import json

    from click.shell_completion import CompletionItem

    root = ctx.params.get("root")
    try:
        with open(Ledger.for_root(find_root(root)).path, encoding="utf-8") as handle:
            data = json.load(handle)
        ids = [q["id"] for q in data["quests"] if q.get("state") != "RETIRED"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [CompletionItem(i) for i in sorted(ids) if i.startswith(incomplete)]
