"""``pytest-quest show QUEST_ID``: everything the ledger knows about one quest.

A maintainer asking "why is this PASS?" or "why does the agent keep
failing?" needs the function as it is now, every attempt in order with the
hash of the test file that was judged, and the evidence that locked it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pytest_quest.cli.options import complete_quest_id, json_option, load_project, root_option
from pytest_quest.cli.terminal import Terminal

if TYPE_CHECKING:
    from pytest_quest.quest import Quest

__all__ = ["LOCKED_BY", "OLDER_OUTPUT_LINES", "command", "details", "read_span"]

#: How each kind of PASS came about, in words: a baseline lock is not a gate PASS.
LOCKED_BY = {
    "baseline": "the existing suite (baseline at scan): it already covered every line; "
                "no gate judged a quest test",
    "submit": "the gate: a submitted test passed every stage",
    "review": "a reviewer's approval of a REVIEW verdict",
}
#: Lines of output shown for attempts before the newest one.
OLDER_OUTPUT_LINES = 5


def read_span(root: Path, quest: Quest) -> dict[str, Any]:
    """The quest's source lines from the file as it is now (numbered, for humans and JSON).

    The span recorded at the scan is only trusted while the function is where
    and what it was: the file is parsed again and the function looked up by
    name, so a file edited since the scan never shows another function's lines
    under this quest's name. A function that moved or changed is shown as it is
    now with a ``warning``; one that is gone, a file that vanished or no longer
    parses is an ``error``; both say to rescan.
    """
    from pytest_quest.scanner import scan_file

    rel, (first, last) = quest.path, quest.lines
    out: dict[str, Any] = {"path": rel, "first": first, "last": last, "lines": []}
    rescan = "rescan with `pytest-quest scan`"
    try:
        text = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        out["error"] = f"cannot read {rel}: {exc.strerror or exc}; if it was removed, {rescan}"
        return out
    found = scan_file(root, rel)
    if not isinstance(found, list):
        out["error"] = f"{rel} no longer parses ({found.message}): fix it or {rescan}"
        return out
    now = {f.qualname: f for f in found}.get(quest.qualname)
    if now is None:
        out["error"] = f"{quest.qualname} is no longer defined in {rel}: {rescan}"
        return out
    if quest.source_hash and now.source_hash != quest.source_hash:
        out["warning"] = (f"{quest.qualname} changed since the scan (source hash "
                          f"{quest.source_hash} -> {now.source_hash}): shown as it is now; "
                          f"{rescan}")
    elif now.lines != (first, last):
        out["warning"] = (f"{quest.qualname} moved since the scan (lines {first}-{last} -> "
                          f"{now.lines[0]}-{now.lines[1]}): shown as it is now; {rescan}")
    out["first"], out["last"] = now.lines
    out["lines"] = [{"n": n, "text": text[n - 1]} for n in range(now.lines[0], now.lines[1] + 1)]
    return out


def details(ledger: Any, quest_id: str, max_tries: int) -> dict[str, Any]:
    """The ``show --json`` document."""
    from pytest_quest.export import quest_row
    from pytest_quest.ledger import read_attempts

    quest = ledger.get(quest_id)
    row = quest_row(quest)
    row.update({
        "body": list(quest.body),
        "max_tries": max_tries,
        "missing_lines": list(quest.missing or ()),
        "added": quest.added,
        "evidence": quest.evidence.to_dict() if quest.evidence else None,
        "decision": quest.decision,
        "source": read_span(ledger.root, quest),
        "attempts": [a.to_dict() for a in read_attempts(ledger, quest_id)],
    })
    return row


@click.command("show")
@click.argument("quest_id", shell_complete=complete_quest_id)
@root_option
@json_option
def command(quest_id: str, root: Path | None, as_json: bool) -> None:
    """One quest: source span, state, every attempt in order, and the evidence of a PASS."""

    term = Terminal()
    settings, ledger = load_project(root)
    data = details(ledger, quest_id, settings.max_tries)
    if as_json:
        term.json(data)
        return
    _render(term, data)


def _facts(term: Terminal, facts: list[dict[str, Any]], indent: str = "    ") -> None:
    for fact in facts:
        term.fact(fact, indent)


def _render(term: Terminal, data: dict[str, Any]) -> None:
    style = data["state"].lower()
    term.rule(f"quest {term.escape(data['id'])}")
    term.print(f"[bold]{term.escape(data['qualname'])}[/bold] ({data['kind']}) in "
               f"{term.escape(data['path'])}, lines {data['lines'][0]}-{data['lines'][1]}")
    term.print(f"State: [{style}]{data['state']}[/{style}]   tries {data['tries']} of "
               f"{data['max_tries']}")
    source = data["source"]
    if source["lines"]:
        code = "\n".join(line["text"] for line in source["lines"])
        # The last try's missing lines name the function as scanned: not marked once it moved.
        marked = [] if source.get("warning") else data["missing_lines"]
        term.syntax(code, start_line=source["lines"][0]["n"], marked=marked)
    for problem in (source.get("warning"), source.get("error")):
        if problem:
            term.print(f"[fail]{term.escape(problem)}[/fail]")
    if data["facts"]:
        term.print("Last facts:")
        _facts(term, data["facts"], "  ")
    attempts = data["attempts"]
    term.print(f"[bold]Attempts ({len(attempts)})[/bold]" if attempts else "No attempts yet.")
    for index, record in enumerate(attempts, 1):
        kind = record.get("kind", "submit")
        if kind == "review":
            term.print(f"{index:>3}. {record.get('time', '')}  review [bold]{record.get('action')}"
                       f"[/bold] by {term.escape(record.get('by', ''))} -> {record.get('state')}")
            term.data(f"       note: {record.get('note', '')}")
            continue
        if kind == "skip":
            who = f" by {term.escape(record['agent'])}" if record.get("agent") else ""
            term.print(f"{index:>3}. {record.get('time', '')}  skip{who}: put off, no try spent")
            continue
        verdict = str(record.get("verdict", record.get("state", "")))
        vstyle = {"PASS": "pass", "FAIL": "fail", "REVIEW": "review"}.get(verdict, "muted")
        sha = str(record.get("sha256") or "")[:12]
        agent = f" by {term.escape(record['agent'])}" if record.get("agent") else ""
        term.print(f"{index:>3}. {record.get('time', '')}  {kind} [{vstyle}]{verdict}[/{vstyle}]"
                   f"{agent}  -> {record.get('state', '')}, tries {record.get('tries', '')}")
        if record.get("test"):
            term.data(f"       test {record['test']}  sha256 {sha}")
        _facts(term, record.get("facts") or [], "       ")
        if kind == "submit" and verdict == "REVIEW":
            _mutation(term, record.get("mutation"), "       ")
        output = str(record.get("output") or "")
        if output:
            # Every attempt's tail is in --json; the terminal shows the newest in full.
            lines = output.splitlines()
            shown = lines if index == len(attempts) else lines[-OLDER_OUTPUT_LINES:]
            cut = "" if len(shown) == len(lines) else f", last {len(shown)} lines"
            term.print(f"       [muted]output (tail{cut}):[/muted]")
            term.data("\n".join(f"       | {line}" for line in shown))
    if data["state"] == "PASS" and data.get("evidence"):
        from pytest_quest.measure import format_lines
        from pytest_quest.records import Evidence

        evidence = Evidence.from_dict(data["evidence"])
        term.print("[pass]Evidence[/pass]")
        source = str(evidence.source)
        term.data(f"  locked by: {LOCKED_BY.get(source, source)}  ({evidence.time})")
        if evidence.test:
            term.data(f"  test:    {evidence.test}  sha256 {evidence.sha256 or ''}")
        covered = evidence.covered_lines
        if covered:
            term.data(f"  covered: {format_lines(covered)} ({len(covered)} lines)")
        if evidence.mutation:
            from pytest_quest.export import mutation_text

            term.data(f"  mutation: {mutation_text(evidence)}")
            survivors = evidence.mutation.get("survivors")
            for survivor in survivors if isinstance(survivors, list) else []:
                term.data(f"    {survivor}")
        else:  # said plainly: a lock without mutants is weaker than one with (red team 3, 04)
            _mutation(term, None, "  ")
        if evidence.tool:
            term.data(f"  tool:    {evidence.tool}")
    decision = data.get("decision")
    if decision:
        term.print(f"[review]Reviewer's decision[/review]: {decision.get('action')} by "
                   f"{term.escape(decision.get('by', ''))} at {decision.get('time', '')}")
        term.data(f"  note: {decision.get('note', '')}")


def _mutation(term: Terminal, figures: Any, indent: str) -> None:
    """The mutation figures of a verdict, or plainly that there are none (red team 3, 04)."""
    from pytest_quest.export import NO_MUTATION, mutation_figures

    if isinstance(figures, dict) and figures:
        term.data(f"{indent}mutation: {mutation_figures(figures)}")
    else:
        term.print(f"{indent}[fail]mutation: {term.escape(NO_MUTATION)}[/fail]")
