"""``pytest-quest recheck [QUEST...]``: judge again the locked tests that changed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pytest_quest.cli.options import json_option, root_option, settings_from
from pytest_quest.cli.terminal import Terminal

__all__ = ["command"]


@click.command("recheck")
@click.argument("quest_ids", nargs=-1)
@root_option
@json_option
def command(quest_ids: tuple[str, ...], root: Path | None, as_json: bool) -> None:
    """Run the gate on each locked test that changed since its lock (or only QUEST_IDS).

    A PASS relocks the quest with the new file's evidence; anything else keeps
    the old lock and exits 1, so CI keeps failing until the test is restored.
    """
    from pytest_quest.recheck import recheck

    term = Terminal()
    results = recheck(settings_from(root), quest_ids)
    failed = any(r.verdict != "PASS" for r in results)
    if as_json:
        term.json({"rechecked": [r.to_dict() for r in results], "ok": not failed})
    elif not results:
        term.print("Every locked test is the one the gate judged: nothing to recheck.")
    for result in [] if as_json else results:
        # One unwrapped line per quest: CI logs are read (and grepped) line by line.
        term.data(f"{result.quest}: {result.test} sha256 {result.old[:12]} -> "
                  f"{(result.new or 'missing')[:12]}: {result.verdict}")
        for fact in result.facts:
            term.fact(fact)
        if result.verdict != "PASS":
            term.info("  the lock stays; restore the judged test (git) or make it pass the gate")
    sys.exit(1 if failed else 0)
