"""``pytest-quest config``: every setting, its effective value, and where it came from.

Settings come from four places (a flag, ``[tool.pytest-quest]``, what the last
scan recorded in the ledger, the defaults), and a surprising value is only
explained by naming its source. ``--json`` gives the same as data.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal

__all__ = ["command", "rows"]


def _show(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    return value


def rows(settings: Any, origins: dict[str, str]) -> list[dict[str, Any]]:
    """One ``{"key", "value", "source"}`` per setting, in the order Settings declares them."""
    return [{"key": f.name, "value": _show(getattr(settings, f.name)),
             "source": origins.get(f.name, "default")}
            for f in fields(settings) if f.name != "root"]


@click.command("config")
@click.option("--source", "sources", multiple=True, metavar="DIR",
              help="As `scan --source`: show what this flag would make of the settings.")
@click.option("--branch/--no-branch", default=None, help="As `scan --branch`.")
@click.option("--timeout", type=float, default=None, help="As `submit --timeout`.")
@root_option
@json_option
def command(sources: tuple[str, ...], branch: bool | None, timeout: float | None,
            root: Path | None, as_json: bool) -> None:
    """Print every setting, its value and its source (default, pyproject, scan, flag)."""
    from pytest_quest.cli.options import recorded_settings
    from pytest_quest.config import explain_settings, find_root

    term = Terminal()
    base = find_root(root)
    settings, origins = explain_settings(base, recorded_settings(base), sources=sources or None,
                                         branch=branch, timeout=timeout)
    table = rows(settings, origins)
    if as_json:
        term.json({"root": str(settings.root), "settings": table})
        return
    term.print(f"Project root: {term.escape(settings.root)}")
    term.grid(("Setting", "Value", "Source"),
              [(r["key"], _text(r["value"]), (r["source"], "muted" if r["source"] == "default"
                                              else None)) for r in table])


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)
