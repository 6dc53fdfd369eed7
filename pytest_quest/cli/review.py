"""``pytest-quest review``: the human side of REVIEW.

Without a decision flag it lists the queue with the reason each quest waits
(the REVIEW facts: an unreachable-line claim, a run that could not be
verified) and the test file that was submitted. With ``--approve``,
``--reject`` or ``--reject --close`` it records a decision. Both are the review
service's (:mod:`pytest_quest.review`); this module parses options and renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import complete_quest_id, json_option, root_option
from pytest_quest.cli.terminal import Terminal
from pytest_quest.errors import UsageError

__all__ = ["command"]


@click.command("review")
@click.argument("quest_id", required=False, shell_complete=complete_quest_id)
@click.option("--approve", is_flag=True, help="Lock the quest as PASS (a human decision).")
@click.option("--reject", is_flag=True, help="Send it back to TODO; the note becomes a fact.")
@click.option("--close", is_flag=True, help="With --reject: send it to DONE instead of TODO.")
@click.option("--reopen", is_flag=True,
              help="Withdraw a wrongly locked PASS: back to TODO, logged (tries kept).")
@click.option("--note", default=None, metavar="TEXT", help="Why: recorded and shown to the agent.")
@click.option("--by", default=None, metavar="NAME", help="Who decides (default: git user.name).")
@root_option
@json_option
def command(quest_id: str | None, approve: bool, reject: bool, close: bool, reopen: bool,
            note: str | None, by: str | None, root: Path | None, as_json: bool) -> None:
    """List the REVIEW queue, or decide one quest: --approve, --reject, --reject --close.

    `--reopen` withdraws the lock of a PASS quest that should not have been
    locked; like every decision it needs --note and is logged.
    """
    from pytest_quest import review
    from pytest_quest.config import find_root
    from pytest_quest.decisions import Action
    from pytest_quest.ledger import Ledger

    term = Terminal()
    if approve + reject + reopen > 1:
        raise UsageError("choose one of --approve, --reject and --reopen")
    if close and not reject:
        raise UsageError("--close goes with --reject (it sends the quest to DONE)")
    deciding = approve or reject or reopen
    if deciding and not quest_id:
        raise UsageError("name the quest to decide: pytest-quest review QUEST_ID --approve ...")
    if not deciding and (note is not None or by is not None):
        raise UsageError("--note and --by go with --approve, --reject or --reopen")
    base = find_root(root)  # review needs only the ledger, not the settings
    if not deciding:
        ledger = Ledger.load(Ledger.for_root(base).path)
        items = review.queue(ledger, quest_id)
        if as_json:
            term.json({"count": len(items), "review": items})
            return
        _render_queue(term, items, single=bool(quest_id))
        return
    action = (Action.APPROVE if approve else Action.REOPEN if reopen
              else Action.CLOSE if close else Action.REJECT)
    result = review.record_decision(base, quest_id or "", action, note or "",
                                    by or review.git_user(base) or "").to_dict()
    if as_json:
        term.json(result)
        return
    style = {"PASS": "pass", "TODO": "todo", "DONE": "done"}[result["state"]]
    term.print(f"{term.escape(result['quest'])}: {result['action']} -> "
               f"[{style}]{result['state']}[/{style}] by {term.escape(result['decision']['by'])}")
    term.info(f"{result['remaining']} quests remaining; recorded in .quest/attempts.jsonl")


def _render_queue(term: Terminal, items: list[dict[str, Any]], single: bool) -> None:
    if not items:
        term.print("[pass]The review queue is empty.[/pass]")
        return
    if not single:
        term.print(f"[review]{len(items)} quest(s) wait for review[/review]")
    for item in items:
        style = item["state"].lower()
        term.rule(term.escape(item["id"]))
        term.print(f"[{style}]{item['state']}[/{style}]  {term.escape(item['qualname'])} in "
                   f"{term.escape(item['path'])}, lines {item['lines'][0]}-{item['lines'][1]}, "
                   f"tries {item['tries']}")
        for fact in item["reasons"]:
            term.fact(fact)
        submission = item["submission"]
        if submission:
            term.data(f"  submitted: {submission['test']}  sha256 "
                      f"{str(submission.get('sha256') or '')[:12]}  at {submission.get('time')}")
        if item["state"] in ("REVIEW", "PASS"):
            _render_mutation(term, item.get("mutation"))
        if item["evidence"]:
            term.data(f"  evidence:  {item['evidence']}")
        if item["decision"]:
            d = item["decision"]
            term.data(f"  decision:  {d.get('action')} by {d.get('by')}: {d.get('note')}")
    if any(i["state"] == "REVIEW" for i in items):
        term.info("Decide: pytest-quest review QUEST_ID --approve --note TEXT | "
                  "--reject --note TEXT | --reject --close --note TEXT")


def _render_mutation(term: Terminal, figures: dict[str, Any] | None) -> None:
    """What the mutation stage checked, or plainly that it did not (red team 3, finding 04)."""
    from pytest_quest.export import NO_MUTATION, mutation_figures

    if figures:
        term.data(f"  mutation:  {mutation_figures(figures)}")
    else:
        term.print(f"  [fail]mutation:  {term.escape(NO_MUTATION)}[/fail]")
