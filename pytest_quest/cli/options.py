"""Options shared by several commands, and the settings they resolve to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pytest_quest.config import Settings, load_settings

__all__ = ["json_option", "root_option", "settings_from"]

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


def settings_from(root: Path | None, **overrides: Any) -> Settings:
    """Settings from ``pyproject.toml`` with command-line ``overrides`` applied."""
    return load_settings(root).with_overrides(**overrides)
