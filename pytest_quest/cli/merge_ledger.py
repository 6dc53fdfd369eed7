"""``pytest-quest merge-ledger BASE OURS THEIRS [PATH]``: the git merge driver of the ledger.

git calls it with the three versions of ``.quest/ledger.json`` (``%O %A %B
%P``) and takes ``OURS`` as the result. The quests are merged one by one with
the same rules ``--quest-base`` judges by (:func:`pytest_quest.history.merge`):
a PASS is never lost, tries never go down, two different PASS evidences keep
the first lock and the other one beside it. ``pytest-quest init`` installs it.

Exit 0 writes the merged ledger; anything it cannot read (not JSON, another
schema) exits 1 and leaves ``OURS`` untouched, so git reports a conflict.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

__all__ = ["command", "merge_files"]


def _read(path: Path, empty_ok: bool) -> dict[str, Any] | None:
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if not text.strip():
        if empty_ok:
            return None
        raise ValueError(f"{path} is empty")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("quests", []), list):
        raise ValueError(f"{path} is not a pytest-quest ledger")
    return data


def _order(quest: dict[str, Any]) -> tuple[str, int, str]:
    lines = quest.get("lines") or [0]
    first = lines[0] if isinstance(lines, list) and lines and isinstance(lines[0], int) else 0
    return (str(quest.get("path", "")), first, str(quest.get("id", "")))


def merge_files(base: Path, ours: Path, theirs: Path) -> dict[str, Any]:
    """Merge the three files into ``ours``; what the merge decided, for the message."""
    from pytest_quest.history import merge
    from pytest_quest.ledger import Ledger

    sides = [_read(base, True), _read(ours, False), _read(theirs, False)]
    schemas = {s.get("schema") for s in sides if s is not None}
    if len(schemas) > 1:
        raise ValueError(f"the ledgers have different schemas ({sorted(map(str, schemas))})")
    report = merge(sides[0], sides[1] or {}, sides[2] or {})
    report.ledger["quests"] = sorted(report.ledger["quests"], key=_order)
    before = ours.read_bytes()
    ours.write_text(json.dumps(report.ledger, indent=2, sort_keys=True, ensure_ascii=False)
                    + "\n", encoding="utf-8", newline="\n")
    try:
        Ledger.load(ours)  # the merged file must be a ledger pytest-quest reads
    except Exception:
        ours.write_bytes(before)
        raise
    return {"quests": len(report.ledger["quests"]),
            "contradictions": sorted(report.contradictions)}


@click.command("merge-ledger")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path", required=False, default=".quest/ledger.json")
def command(base: Path, ours: Path, theirs: Path, path: str) -> None:
    """Git merge driver: merge three versions of the ledger quest by quest into OURS."""
    try:
        done = merge_files(base, ours, theirs)
    except Exception as exc:
        click.echo(f"pytest-quest merge-ledger: cannot merge {path}: {exc}; "
                   "left as a conflict", err=True)
        sys.exit(1)
    note = f"pytest-quest: merged {path}: {done['quests']} quests, no PASS lost"
    if done["contradictions"]:
        note += (f"; {len(done['contradictions'])} quest(s) locked differently on both sides "
                 "kept the first lock (the other is in extra.other_pass_evidence): "
                 + ", ".join(done["contradictions"]))
    click.echo(note, err=True)
