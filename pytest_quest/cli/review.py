"""``pytest-quest review``: the human side of REVIEW.

Without a decision flag it lists the queue with the reason each quest waits
(the REVIEW facts: an unreachable-line claim, a run that could not be
verified) and the test file that was submitted. With ``--approve``,
``--reject`` or ``--reject --close`` it records a decision; the state change
itself lives in :mod:`pytest_quest.review` so it stays a pure, tested function.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import complete_quest_id, json_option, root_option
from pytest_quest.cli.terminal import Terminal
from pytest_quest.errors import UsageError

__all__ = ["command", "git_user", "queue"]


def git_user(root: Path) -> str | None:
    """``git config user.name`` in ``root``: who is deciding, as git would record it."""
    try:
        done = subprocess.run(["git", "config", "user.name"], cwd=root, capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    name = done.stdout.strip()
    return name if done.returncode == 0 and name else None


def _entry(quest: Any, attempts: list[Any]) -> dict[str, Any]:
    from pytest_quest.export import review_reasons
    from pytest_quest.review import last_submission

    submission = last_submission(attempts)
    return {
        "id": quest.id,
        "path": quest.path,
        "qualname": quest.qualname,
        "lines": list(quest.lines),
        "state": quest.state.value,
        "tries": quest.tries,
        "reasons": [f.to_dict() for f in review_reasons(quest)],
        "facts": [f.to_dict() for f in quest.facts],
        "submission": None if submission is None else {
            "test": submission.test, "sha256": submission.sha256, "time": submission.time,
            "agent": submission.agent,
        },
        "evidence": quest.evidence.to_dict() if quest.evidence else None,
        "decision": quest.decision,
    }


def queue(ledger: Any, quest_id: str | None = None) -> list[dict[str, Any]]:
    """Every REVIEW quest (or just ``quest_id``), in ledger order, with reasons and submission.

    The attempts log is read once and grouped: reading it per quest made a
    queue of 1,000 take half a minute on a 10,000-quest ledger.
    """
    from pytest_quest.ledger import read_attempts
    from pytest_quest.states import State

    if quest_id is not None:
        return [_entry(ledger.get(quest_id), read_attempts(ledger, quest_id))]
    quests = [q for q in ledger.ordered() if q.state is State.REVIEW]
    wanted = {q.id for q in quests}
    by_quest: dict[str, list[Any]] = {}
    for record in read_attempts(ledger) if wanted else []:
        if record.quest in wanted:
            by_quest.setdefault(record.quest, []).append(record)
    return [_entry(q, by_quest.get(q.id, [])) for q in quests]



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
    from pytest_quest.config import find_root
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
    path = Ledger.for_root(base).path
    if not deciding:
        ledger = Ledger.load(path)
        items = queue(ledger, quest_id)
        if as_json:
            term.json({"count": len(items), "review": items})
            return
        _render_queue(term, items, single=bool(quest_id))
        return
    action = ("approve" if approve else "reopen" if reopen
              else "close" if close else "reject")
    result = _decide(base, path, quest_id or "", action, note or "",
                     by or git_user(base) or "")
    if as_json:
        term.json(result)
        return
    style = {"PASS": "pass", "TODO": "todo", "DONE": "done"}[result["state"]]
    term.print(f"{term.escape(result['quest'])}: {result['action']} -> "
               f"[{style}]{result['state']}[/{style}] by {term.escape(result['decision']['by'])}")
    term.info(f"{result['remaining']} quests remaining; recorded in .quest/attempts.jsonl")


def _decide(root: Path, path: Path, quest_id: str, action: str, note: str,
            by: str) -> dict[str, Any]:
    from pytest_quest.ledger import append_attempt, now_iso, read_attempts, transaction
    from pytest_quest.review import (
        Action,
        Decision,
        approval_evidence,
        approved_claims,
        decide,
        last_submission,
        review_record,
    )
    from pytest_quest.sandbox import file_sha256
    from pytest_quest.states import State

    now = now_iso()
    decision = Decision(Action(action), by.strip(), note.strip(), now)
    with transaction(path) as ledger:
        quest = ledger.get(quest_id)
        evidence = None
        # What the quest is comes first: a PASS quest is "already PASS", whatever the flags.
        if quest.state is State.REVIEW and not decision.note:
            raise UsageError("a review decision needs a reason: pass --note TEXT")
        if decision.action is Action.APPROVE and quest.state is State.REVIEW:
            submission = last_submission(read_attempts(ledger, quest_id))
            current = None
            if submission and submission.test:
                current = file_sha256(root / submission.test)
            claims = approved_claims(quest, _lines(root / quest.path))
            evidence = approval_evidence(quest, submission, current, decision, claims)
        after = decide(quest, decision, evidence)
        ledger.put(after)
        remaining = ledger.remaining
        append_attempt(ledger, review_record(quest, after, decision, remaining))
    return {
        "quest": after.id,
        "action": decision.action.value,
        "state": after.state.value,
        "decision": after.decision,
        "facts": [f.to_dict() for f in after.facts],
        "evidence": after.evidence.to_dict() if after.evidence else None,
        "remaining": remaining,
    }


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


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
        if item["evidence"]:
            term.data(f"  evidence:  {item['evidence']}")
        if item["decision"]:
            d = item["decision"]
            term.data(f"  decision:  {d.get('action')} by {d.get('by')}: {d.get('note')}")
    if any(i["state"] == "REVIEW" for i in items):
        term.info("Decide: pytest-quest review QUEST_ID --approve --note TEXT | "
                  "--reject --note TEXT | --reject --close --note TEXT")
