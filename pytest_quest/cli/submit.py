"""``pytest-quest submit``: run the gate on one test file for one quest."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pytest_quest.cli.options import complete_quest_id, json_option, root_option, settings_from
from pytest_quest.cli.terminal import Terminal

if TYPE_CHECKING:  # imported lazily at run time: `--help` must not load the gate
    from pytest_quest.submit import Result

_EXIT = {"PASS": 0, "FAIL": 1, "REVIEW": 3}
_CLAIM = re.compile(r"^\s*([0-9]{1,9})\s*:\s*(.+?)\s*$", re.S)


@click.command("submit")
@click.argument("quest_id", shell_complete=complete_quest_id)
@click.option("--test", "test", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The test file (default: the test_path `next` gave).")
@click.option("--unreachable", "claims", multiple=True, metavar='LINE:"REASON"',
              help="Claim a line cannot be reached; sends the quest to a human (REVIEW).")
@click.option("--agent", default=None, metavar="NAME", help="Who submits (recorded).")
@click.option("--timeout", type=float, default=None, help="Seconds for the test run.")
@click.option("--dry-run", is_flag=True,
              help="Judge without recording: no try spent, no PASS locked, nothing logged.")
@click.option("--keep-sandbox", is_flag=True,
              help="Keep the throwaway copy the test ran in and print its path.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also print the tail of the run's stdout/stderr.")
@root_option
@json_option
def command(quest_id: str, test: Path | None, claims: tuple[str, ...], agent: str | None,
            timeout: float | None, dry_run: bool, keep_sandbox: bool, verbose: bool,
            root: Path | None, as_json: bool) -> None:
    """Judge the test file for QUEST_ID (--test, default: where `next` said to write it).

    Exit 0 PASS, 1 FAIL, 3 REVIEW, 2 usage error, 4 locked. A line no test can
    reach is claimed with --unreachable LINE:"REASON" (repeatable); the quest
    then goes to a human as REVIEW instead of failing on that line.
    """
    from pytest_quest.errors import UsageError
    from pytest_quest.pool import settle
    from pytest_quest.submission import Claim
    from pytest_quest.submit import submit

    term = Terminal()
    parsed = []
    for raw in claims:
        match = _CLAIM.match(raw)
        if not match:
            raise UsageError(f'--unreachable takes LINE:"REASON", got {raw!r}')
        parsed.append(Claim(int(match.group(1)), match.group(2).strip("\"'")))
    settings = settings_from(root, timeout=timeout)
    if not as_json:
        term.info(f"judging {test or 'the default test path'} for {quest_id} ...")
    result = submit(settings, quest_id, test, tuple(parsed), agent,
                    keep_sandbox=keep_sandbox, dry_run=dry_run)
    settle(settings.root / ".quest", quest_id, agent, result.quest.state.value,
           settings.lease_seconds)
    verdict = result.verdict.outcome.value
    if as_json:
        term.json(result.to_dict(settings.max_tries))
    else:
        _render(term, result, settings.max_tries)
        if verbose:
            term.print("[muted]Output of the run (tail):[/muted]" if result.output
                       else "[muted]The run printed nothing (or did not run).[/muted]")
            if result.output:
                term.data(result.output)
        if result.sandbox:
            term.print(f"Sandbox kept at {term.escape(result.sandbox)} (the copy is in "
                       "project/); remove it when done.")
        if result.dry_run:
            term.print("[review]Dry run: nothing was recorded, no try spent.[/review]")
    raise SystemExit(_EXIT[verdict])


def _render(term: Terminal, result: Result, max_tries: int) -> None:
    verdict = result.verdict
    style = verdict.outcome.value.lower()
    q = result.quest
    term.print(f"[{style}]{verdict.outcome.value}[/{style}] {q.id} -> {q.state.value} "
               f"(tries {q.tries}/{max_tries}, {result.seconds:.2f} s)")
    for fact in verdict.facts:
        term.fact(fact)
    mutation = result.evidence.mutation if result.evidence else None
    if mutation:
        term.data(f"  mutation: {_mutation_line(mutation)}")
    if verdict.hint and verdict.outcome.value != "PASS":
        term.print(f"To flip it: {verdict.hint}")
    if q.state.value == "DONE":
        term.print("[done]No tries left: the quest is DONE. Take the next one.[/done]")


def _mutation_line(m: Mapping[str, Any]) -> str:
    """``extreme 2/2 killed, classic 19/20 (score 0.95, needs 0.60)``; no score without mutants."""
    line = (f"extreme {m.get('extreme_killed', 0)}/{m.get('extreme_total', 0)} killed, "
            f"classic {m.get('classic_killed', 0)}/{m.get('classic_total', 0)}")
    score, threshold = m.get("score"), m.get("threshold")
    if isinstance(score, int | float) and isinstance(threshold, int | float):
        line += f" (score {score:.2f}, needs {threshold:.2f})"
    elif m.get("note"):
        line += f" ({m['note']})"
    return line
