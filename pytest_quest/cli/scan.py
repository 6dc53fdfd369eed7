"""``pytest-quest scan``: one quest per function, and lock what the suite already covers."""

from __future__ import annotations

import time
from pathlib import Path

import click

from pytest_quest.cli.options import json_option, root_option, settings_from
from pytest_quest.cli.terminal import Terminal
from pytest_quest.words import plural

#: Seconds between progress lines when stderr is a log, not a terminal.
LOG_EVERY = 10.0


@click.command("scan")
@click.option("--source", "sources", multiple=True, metavar="DIR",
              help="Source folder or module to scan (repeatable; default: auto-detected).")
@click.option("--no-baseline", is_flag=True, help="Do not run the existing suite.")
@click.option("--branch/--no-branch", default=None, help="Measure branches as well as lines.")
@root_option
@json_option
def command(sources: tuple[str, ...], no_baseline: bool, branch: bool | None, root: Path | None,
            as_json: bool) -> None:
    """Create or merge .quest/ledger.json.

    A rescan keeps every PASS, adds new functions as TODO and retires vanished ones.
    """
    from pytest_quest.scan import scan

    term = Terminal()
    settings = settings_from(root, sources=sources or None, branch=branch)
    if not settings.sources:
        from pytest_quest.errors import UsageError

        raise UsageError(f"no Python sources found under {settings.root}: pass --source DIR")
    with term.status("scanning") as live:
        last_time, last_step = 0.0, ""

        def progress(message: str) -> None:
            nonlocal last_time, last_step
            if live is not None:
                live.update(message)
                return
            # A log (not a terminal): a line when the step changes, else every 10 s.
            step = message.split(":", 1)[0]
            now = time.monotonic()
            if step != last_step or now - last_time >= LOG_EVERY:
                last_time, last_step = now, step
                term.info(message)

        report, ledger = scan(settings, baseline=not no_baseline, progress=progress)
    data = report.to_dict(ledger)
    if as_json:
        term.json(data)
        return
    term.print(f"Scanned {plural(data['files'], 'file')} under {', '.join(settings.sources)}: "
               f"{plural(data['total'], 'quest')}.")
    term.print(f"  added {data['added']}, retired {data['retired']}, "
               f"locked by the existing suite {data['locked_by_baseline']}")
    if report.baseline:
        base = report.baseline
        line = f"  baseline: {plural(base['tests_passed'], 'test')} passed in {base['seconds']} s"
        # Visible either way: a slow baseline in one process may just lack pytest-xdist.
        line += (f" on {base['workers']} xdist workers" if base.get("workers")
                 else " in one process")
        if base.get("deselected"):
            line += f", {plural(base['deselected'], 'failing test')} left out"
        term.print(line)
        if base.get("note"):
            term.print(f"  [review]{base['note']}[/review]")
    if report.skipped:
        term.print(f"  skipped {plural(len(report.skipped), 'function')} no test can cover here or "
                   "exclude_quests names: `pytest-quest status --skipped` says why")
    for error in report.errors:
        term.print(f"  [fail]could not parse[/fail] {error.path}: {error.message}")
    term.print(f"Remaining: [bold]{ledger.remaining}[/bold] of {ledger.total}. "
               "Next: `pytest-quest next`.")
