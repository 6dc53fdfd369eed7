"""``pytest-quest next``: hand the agent one open quest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pytest_quest.cli.options import complete_quest_id, json_option, root_option
from pytest_quest.cli.terminal import Terminal

if TYPE_CHECKING:  # imported lazily at run time: `--help` must not load the prompt
    from pytest_quest.prompt import Brief


@click.command("next")
@click.option("--agent", default=None, metavar="NAME",
              help="Lease the quest to this agent (for lease_seconds) so parallel agents get "
                   "different quests; the same agent gets its live quest back.")
@click.option("--shard", default=None, metavar="K/N",
              help="Only quests of shard K of N (a stable hash of the id): N machines, no overlap.")
@click.option("--id", "quest_id", default=None, metavar="QUEST", shell_complete=complete_quest_id,
              help="Take this TODO quest instead of the next one in the queue.")
@root_option
@json_option
def command(agent: str | None, shard: str | None, quest_id: str | None, root: Path | None,
            as_json: bool) -> None:
    """Show one TODO quest: its source, uncovered lines, last facts, where to write the test."""
    from pytest_quest.handout import hand_out
    from pytest_quest.pool import Shard

    if quest_id:
        from pytest_quest.queue import take

        out = take(root, quest_id, agent or None)
    else:
        out = hand_out(root, agent or None, Shard.parse(shard) if shard else None)
    term = Terminal()
    if as_json:
        term.json(out.to_dict())
        return
    if out.brief is None and not out.remaining:
        term.print(f"[pass]No quest remains.[/pass] {out.counts['PASS']} of {out.total} locked; "
                   "see `pytest-quest status`.")
        return
    if out.brief is None:
        held = f" ({out.leased} leased to other agents)" if out.leased else ""
        where = f" in shard {out.shard}" if out.shard else ""
        term.print(f"[pass]No free quest{where}.[/pass] {out.counts['PASS']} of {out.total} "
                   f"locked, {out.remaining} remaining{held}; see `pytest-quest status`.")
        return
    _render(term, out.brief, out.remaining)


def _render(term: Terminal, item: Brief, remaining: int) -> None:
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
