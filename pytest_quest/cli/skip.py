"""``pytest-quest skip QUEST``: put a quest off without spending a try.

An agent stuck on a quest (or a maintainer who wants another one done first)
sends it to the back of the queue. It stays TODO with its tries; ``next``
offers it again once every other TODO quest has been offered. For a quest
that should never be a quest, use ``exclude_quests`` instead.
"""

from __future__ import annotations

from pathlib import Path

import click

from pytest_quest.cli.options import complete_quest_id, json_option, root_option
from pytest_quest.cli.terminal import Terminal

__all__ = ["command"]


@click.command("skip")
@click.argument("quest_id", shell_complete=complete_quest_id)
@click.option("--agent", default=None, metavar="NAME",
              help="Who skips (releases this agent's lease; recorded).")
@root_option
@json_option
def command(quest_id: str, agent: str | None, root: Path | None, as_json: bool) -> None:
    """Defer QUEST_ID to the back of the queue: no try spent, its lease released."""
    from pytest_quest.config import find_root
    from pytest_quest.ledger import Ledger, append_attempt, transaction
    from pytest_quest.pool import release
    from pytest_quest.queue import DEFERRED, SKIP, defer
    from pytest_quest.records import Attempt

    term = Terminal()
    with transaction(Ledger.for_root(find_root(root)).path) as ledger:
        quest = defer(ledger, quest_id)
        remaining = ledger.remaining
        append_attempt(ledger, Attempt(
            kind=SKIP, quest=quest.id, time=quest.extra[DEFERRED], agent=agent,
            state=quest.state.value, tries=quest.tries, remaining=remaining,
        ))
    if agent:
        release(ledger.directory, quest.id, agent)  # its lease ends: the quest is put off
    data = {"quest": quest.id, "state": quest.state.value, "tries": quest.tries,
            "deferred": quest.extra[DEFERRED], "remaining": remaining}
    if as_json:
        term.json(data)
        return
    term.print(f"{term.escape(quest.id)} deferred: `next` offers it again after every other "
               f"TODO quest (tries {quest.tries}, none spent).")
