"""``pytest-quest status``: where the project stands, REVIEW queue first.

The REVIEW queue leads because it is the only part of the ledger that waits
on a human; everything else moves by itself. ``--json`` prints
:func:`pytest_quest.export.summary`, the same numbers the HTML report shows,
plus who locked the PASS quests (the baseline, the gate, a reviewer), the
reviewers' notes and the functions the scan skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal
from pytest_quest.words import plural

__all__ = ["command", "render"]

#: The reviewers' latest notes shown by the human view (``--json`` has them all).
NOTES_SHOWN = 10

#: The queue is shown in full by ``pytest-quest review``; status only surfaces its head.
REVIEW_SHOWN = 10

_STYLE = {"PASS": "pass", "TODO": "todo", "REVIEW": "review", "DONE": "done", "RETIRED": "retired"}


@click.command("status")
@click.option("--all", "all_ids", is_flag=True,
              help="List every quest id with its state, tries and who locked it.")
@click.option("--skipped", "show_skipped", is_flag=True,
              help="List the functions the scan offers no quest for, and why.")
@root_option
@json_option
def command(all_ids: bool, show_skipped: bool, root: Path | None, as_json: bool) -> None:
    """Counts per state, progress, the REVIEW queue, reviewers' notes and a table per file."""
    from pytest_quest.config import find_root
    from pytest_quest.export import dumps, summary
    from pytest_quest.ledger import Ledger
    from pytest_quest.pool import open_leases
    from pytest_quest.provenance import annotate

    term = Terminal()
    ledger = Ledger.load(Ledger.for_root(find_root(root)).path)
    todo = {k for k, q in ledger.quests.items() if q.state.value == "TODO"}
    leases = open_leases(ledger.directory, todo)  # who is working on what right now
    if as_json:
        term.write(dumps({**annotate(summary(ledger), ledger), "leases": leases}))
        return
    if all_ids:
        _render_all(term, ledger)
        return
    if show_skipped:
        _render_skipped(term, ledger.skipped)
        return
    render(term, {**annotate(summary(ledger, all_quests=False), ledger), "leases": leases})


def _render_all(term: Terminal, ledger: Any) -> None:
    """Every quest id, one per line, in ledger order (RETIRED too: they are ids)."""
    from pytest_quest.provenance import locked_by

    rows = []
    for quest in ledger.ordered():
        state = quest.state.value
        rows.append((quest.id, (state, _STYLE[state]), quest.tries, locked_by(quest) or ""))
    term.grid(("Quest", "State", "Tries", "Locked by"), rows, right=(2,))


def _render_skipped(term: Terminal, skipped: list[dict[str, str]]) -> None:
    if not skipped:
        term.print("The last scan skipped no function.")
        return
    term.print(f"[bold]{len(skipped)}[/bold] functions found but offered as no quest:")
    for entry in sorted(skipped, key=lambda e: e["id"]):
        term.print(f"  [bold]{term.escape(entry['id'])}[/bold]")
        term.print(f"    [muted]{term.escape(entry['reason'])}[/muted]")


def render(term: Terminal, data: dict[str, Any]) -> None:
    """The human view of a summary document (kept separate so tests can pin the width)."""
    counts: dict[str, int] = data["counts"]
    total, remaining = data["total"], data["remaining"]
    passed = counts["PASS"]
    term.print(f"[bold]{total}[/bold] quests, [todo]{remaining}[/todo] remaining")
    term.print("  ".join(f"[{_STYLE[s]}]{s}[/{_STYLE[s]}] {n}" for s, n in counts.items()))
    term.print(f"{term.bar(passed, total)}  PASS {passed} of {total}")
    locked_by = data.get("locked_by")
    if passed and locked_by:
        term.print(f"  [muted]PASS locked by: the gate {locked_by['gate']}, the existing suite "
                   f"(baseline) {locked_by['baseline']}, a reviewer {locked_by['review']}[/muted]")
    if not total:
        term.info("No quests: run `pytest-quest scan` in the project root.")
        return
    _leases(term, data.get("leases") or {})
    quests = {q["id"]: q for q in data["quests"]}
    review = data["review"]
    if review:
        term.print("")
        term.print(f"[review]Review queue ({len(review)})[/review]: waiting for a human")
        for quest_id in review[:REVIEW_SHOWN]:
            facts = quests[quest_id]["facts"]
            reason = f"{facts[0]['rule']}: {facts[0]['actual']}" if facts else "no facts recorded"
            term.print(f"  [bold]{term.escape(quest_id)}[/bold]")
            term.print(f"    [muted]{term.escape(reason)}[/muted]")
        if len(review) > REVIEW_SHOWN:
            term.print(f"  … and {len(review) - REVIEW_SHOWN} more: `pytest-quest review`")
        term.info("Decide with `pytest-quest review QUEST_ID --approve|--reject --note TEXT`.")
    term.print("")
    rows = [
        (
            f["path"],
            f["quests"],
            (f["PASS"], "pass" if f["PASS"] else None),
            f"{f['TODO']} ({f['tries']} {'try' if f['tries'] == 1 else 'tries'})"
            if f["tries"] else f["TODO"],
            (f["REVIEW"], "review" if f["REVIEW"] else None),
            f["DONE"],
        )
        for f in data["files"]
    ]
    term.grid(("File", "Quests", "PASS", "TODO", "REVIEW", "DONE"), rows, right=(1, 2, 3, 4, 5))
    notes = data.get("notes") or []
    if notes:
        term.print("")
        term.print(f"[review]Reviewers' notes ({len(notes)})[/review], newest first:")
        for note in notes[:NOTES_SHOWN]:
            term.print(f"  [bold]{term.escape(note['id'])}[/bold] {note.get('action', '')} by "
                       f"{term.escape(note.get('by', ''))} -> {note['state']}")
            term.data(f"    note: {note.get('note', '')}")
    if counts["RETIRED"]:
        term.info(f"{counts['RETIRED']} retired quests (functions removed) are not counted.")
    if data.get("deferred"):
        term.info(f"{plural(data['deferred'], 'TODO quest')} put off with `pytest-quest skip`: "
                  "`next` offers them after the others.")
    skipped = data.get("skipped") or []
    if skipped:
        term.info(f"{len(skipped)} functions offered as no quest (no test can cover them here, "
                  "or exclude_quests): `pytest-quest status --skipped` says why.")


def _leases(term: Terminal, leases: dict[str, dict[str, str]]) -> None:
    """Who is working on what: one line per live lease (``next --agent``, loop, MCP)."""
    if not leases:
        return
    term.print(f"[todo]Leased ({len(leases)})[/todo]: agents at work")
    for quest_id, lease in sorted(leases.items(), key=lambda item: item[1]["agent"])[:REVIEW_SHOWN]:
        term.print(f"  [bold]{term.escape(lease['agent'])}[/bold] {term.escape(quest_id)} "
                   f"[muted]until {lease['until']}[/muted]")
    if len(leases) > REVIEW_SHOWN:
        term.print(f"  … and {len(leases) - REVIEW_SHOWN} more: `pytest-quest status --json`")
