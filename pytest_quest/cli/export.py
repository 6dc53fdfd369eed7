"""``pytest-quest export``: the ledger as JSON Lines, CSV or one static HTML page.

Without ``-o`` the export goes to stdout, so it pipes into ``jq`` or a file
the shell opens. With ``-o`` the target is checked first: an export must
never overwrite a source, a protected file or the ledger it was read from,
and without ``--force`` it stays inside the project and replaces nothing but
an earlier export.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pytest_quest.cli.options import root_option
from pytest_quest.cli.terminal import Terminal

__all__ = ["command"]


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv", "html"]), default="jsonl",
              show_default=True, help="jsonl: one quest per line; csv; html: a static report.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Write here instead of stdout: a new file or an earlier export "
              "in the project (never a source, test, config or .quest/ file).")
@click.option("--force", is_flag=True,
              help="Also write outside the project, or over another existing non-protected file.")
@root_option
def command(fmt: str, output: Path | None, force: bool, root: Path | None) -> None:
    """Export every quest (state, tries, coverage, facts, evidence) for people and tools."""
    from pytest_quest.config import find_root
    from pytest_quest.export import check_output, to_csv, to_jsonl, write_text
    from pytest_quest.ledger import Ledger

    term = Terminal()
    ledger = Ledger.load(Ledger.for_root(find_root(root)).path)
    target = check_output(output, ledger, force) if output is not None else None
    if fmt == "jsonl":
        text = "".join(to_jsonl(ledger))
    elif fmt == "csv":
        text = to_csv(ledger)
    else:
        from pytest_quest.report_html import render_ledger

        text = render_ledger(ledger)
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_text(target, text)
    term.info(f"wrote {len(ledger.quests)} quests as {fmt} to {output}")
