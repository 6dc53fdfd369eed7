"""``pytest-quest next``: hand the agent one open quest."""

from __future__ import annotations

from pathlib import Path

import click

from pytest_quest.cli.options import json_option, load_project, root_option, settings_from
from pytest_quest.cli.terminal import Terminal


@click.command("next")
@click.option("--agent", default=None, metavar="NAME",
              help="Lease the quest to this agent so parallel agents get different quests.")
@root_option
@json_option
def command(agent: str | None, root: Path | None, as_json: bool) -> None:
    """Show one TODO quest: its source, uncovered lines, last facts, where to write the test."""
    from pytest_quest.config import find_root
    from pytest_quest.ledger import Ledger, transaction
    from pytest_quest.prompt import brief

    term = Terminal()
    if agent:
        base = find_root(root)
        with transaction(Ledger.for_root(base).path) as ledger:
            settings = settings_from(base, ledger.settings)
            quest = ledger.next_todo(agent, settings.lease_seconds)
            remaining = ledger.remaining
    else:
        settings, ledger = load_project(root)
        quest = ledger.next_todo()
        remaining = ledger.remaining
    if quest is None:
        if as_json:
            term.json({"quest": None, "remaining": 0, "total": ledger.total,
                       "counts": ledger.counts()})
        else:
            term.print(f"[pass]No quest remains.[/pass] {ledger.counts()['PASS']} of "
                       f"{ledger.total} locked; see `pytest-quest status`.")
        return
    item = brief(quest, settings)
    if as_json:
        data = item.to_dict()
        data["remaining"] = remaining
        data["agent"] = agent
        term.json(data)
        return
    _render(term, item, remaining)


def _render(term: Terminal, item, remaining: int) -> None:  # type: ignore[no-untyped-def]
    from pytest_quest.measure import format_lines

    q = item.quest
    term.rule(f"quest {q.id}")
    term.print(f"[bold]{q.qualname}[/bold] ({q.kind}) in {q.path}, lines {q.lines[0]}-{q.lines[1]}"
               f"   [muted]{remaining} remaining[/muted]")
    term.print(f"Tries: {q.tries} of {item.max_tries} used")
    term.syntax(item.source, start_line=item.first_line, marked=item.missing)
    term.print(f"Lines your test must execute: [todo]{format_lines(item.missing) or 'none'}[/todo]")
    if q.facts:
        term.print("[fail]Facts of the last try:[/fail]")
        for fact in q.facts:
            term.fact(fact)
    term.print(f"Write your test to: [bold]{item.test_path}[/bold]")
    term.print(f"Example ({item.example_from or 'template'}):")
    term.syntax(item.example)
    term.print("Then run:")
    term.data(f"  {item.submit_command}")
