"""``pytest-quest rules``: the audit list of everything the gate blocks, plugins' rules included."""

from __future__ import annotations

import click

from pytest_quest.cli.options import json_option
from pytest_quest.cli.terminal import Terminal


@click.command("rules")
@json_option
def command(as_json: bool) -> None:
    """List every gate rule (installed plugins' too): id, level, stage, description."""
    from pytest_quest.gate import CATALOG
    from pytest_quest.rules import plugin_manager

    plugin_manager()  # registers the built-in rules and every installed plugin's

    term = Terminal()
    rules = list(CATALOG)
    if as_json:
        term.json([r.to_dict() for r in rules])
        return
    if all(r.origin == "pytest-quest" for r in rules):
        term.table(["rule", "level", "stage", "what it checks"],
                   [(r.id, r.level, r.stage, r.description) for r in rules],
                   title=f"{len(rules)} rules, in stage order")
        return
    term.table(["rule", "level", "stage", "from", "what it checks"],
               [(r.id, r.level, r.stage, r.origin, r.description) for r in rules],
               title=f"{len(rules)} rules, in stage order (from: who added it)")
