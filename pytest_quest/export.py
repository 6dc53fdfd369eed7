"""Read-only views of the ledger: the status summary, JSON Lines and CSV exports.

``status --json``, ``export`` and the HTML report all start from the same
:func:`summary` and :func:`quest_row`, so the numbers a maintainer sees on the
page, in a spreadsheet and in CI can never disagree. Nothing here writes to
the ledger; :func:`check_output` refuses any export path that would overwrite
a source, a protected file or the ledger itself.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_quest.errors import UsageError
from pytest_quest.facts import REVIEW, Fact
from pytest_quest.ledger import Ledger
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from pytest_quest.states import State
from pytest_quest.words import plural

__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "NO_MUTATION",
    "check_output",
    "coverage_text",
    "dumps",
    "fact_dict",
    "file_rows",
    "is_export",
    "mutation_figures",
    "mutation_text",
    "quest_row",
    "review_reasons",
    "summary",
    "to_csv",
    "to_jsonl",
    "write_text",
]

FORMATS = ("jsonl", "csv", "html")

#: CSV has one flat row per quest; lists are joined so a spreadsheet can filter on them.
CSV_COLUMNS = (
    "id", "path", "qualname", "kind", "first_line", "last_line", "state", "tries", "test",
    "test_sha256", "covered_lines", "coverage", "mutation", "facts", "decision_action",
    "decision_by", "decision_note", "added", "updated",
)

#: What ``review`` and ``show`` say when a verdict has no mutation figures (red team 3,
#: finding 04): the reviewer must know what the machine did not check.
NO_MUTATION = ("none recorded: the machine did not check that a test fails when the "
               "function returns something wrong; read the assertions yourself")

_COUNTED = tuple(s.value for s in State if s is not State.RETIRED)


def coverage_text(quest: Quest) -> str:
    """One short human phrase for the coverage column (page, CSV, table)."""
    if quest.state is State.PASS:
        covered = quest.evidence.covered_lines if quest.evidence else ()
        return f"full ({plural(len(covered), 'line')})" if covered else "full"
    missing = quest.missing
    if missing:
        return f"missing {plural(len(missing), 'line')}"
    return ""


def mutation_text(evidence: Evidence | None) -> str:
    """The mutation figures of a PASS in one phrase (``score 0.95 (threshold 0.6), 19/20 ...``).

    Unknown keys fall back to ``key=value`` so a newer gate never renders blank.
    """
    return mutation_figures(evidence.mutation if evidence else None)


def mutation_figures(mutation: Mapping[str, Any] | None) -> str:
    """:func:`mutation_text` of the figures themselves (a REVIEW submission's, say)."""
    if not mutation:
        return ""
    parts = []
    if isinstance(mutation.get("score"), int | float):
        parts.append(f"score {mutation['score']:g}")
        if isinstance(mutation.get("threshold"), int | float):
            parts[-1] += f" (threshold {mutation['threshold']:g})"
    for prefix in ("classic_", "extreme_", ""):
        killed, total = mutation.get(f"{prefix}killed"), mutation.get(f"{prefix}total")
        if isinstance(killed, int) and isinstance(total, int) and total:
            parts.append(f"{killed}/{total} {prefix.rstrip('_') or 'mutants'} killed")
    if isinstance(mutation.get("survivors"), list) and mutation["survivors"]:
        parts.append(f"{len(mutation['survivors'])} survived")
    if parts and isinstance(mutation.get("left_out"), int) and mutation["left_out"]:
        # The first schedule ran only the tests that may reach the target (docs/mutation.md).
        whole = mutation.get("whole_file")
        parts.append(f"{mutation['left_out']} tests left out of " + (
            f"the first schedule, run again with every test ({whole})"
            if isinstance(whole, str) else "every run but the measuring one"))
        if isinstance(mutation.get("again"), int) and mutation["again"]:
            parts.append(f"{mutation['again']} extreme or reach mutants survived without them "
                         "and ran again with every test")
    if not parts:
        parts = [f"{k}={mutation[k]}" for k in sorted(mutation)
                 if not isinstance(mutation[k], list | dict)]
    return ", ".join(parts)


def fact_dict(fact: Fact) -> dict[str, str]:
    """``Fact.to_dict`` without ``dataclasses.asdict``, which is slow at 10,000 quests."""
    return {"rule": fact.rule, "level": fact.level, "where": fact.where,
            "expected": fact.expected, "actual": fact.actual}


def review_reasons(quest: Quest) -> list[Fact]:
    """The facts that sent a quest to REVIEW (the reason a human is asked)."""
    return [f for f in quest.facts if f.level == REVIEW] or list(quest.facts)


def quest_row(quest: Quest, full: bool = True) -> dict[str, Any]:
    """One quest as the export and ``status --json`` show it: flat and stable keys.

    ``full`` adds the evidence (covered lines, mutation figures): the export
    wants it, ``status`` leaves it to ``show`` to stay small and fast.
    """
    evidence = quest.evidence
    row: dict[str, Any] = {
        "id": quest.id,
        "path": quest.path,
        "qualname": quest.qualname,
        "kind": quest.kind,
        "lines": list(quest.lines),
        "state": quest.state.value,
        "tries": quest.tries,
        "facts": [fact_dict(f) for f in quest.facts],
        "coverage": coverage_text(quest),
        "test": evidence.test if evidence else None,
        "updated": quest.updated,
    }
    if evidence and full:
        row["evidence"] = evidence.to_dict()
    if quest.decision:
        row["decision"] = quest.decision
    return row


def file_rows(quests: Iterable[Quest]) -> list[dict[str, Any]]:
    """Per source file: how many quests and how many in each state (RETIRED left out)."""
    files: dict[str, dict[str, Any]] = {}
    for quest in quests:
        state = quest.state
        if state is State.RETIRED:
            continue
        entry = files.get(quest.path)
        if entry is None:
            entry = files[quest.path] = {"path": quest.path, "quests": 0, "tries": 0,
                                         **dict.fromkeys(_COUNTED, 0)}
        entry["quests"] += 1
        entry[state.value] += 1
        if state is State.TODO:
            entry["tries"] += quest.tries
    return [files[k] for k in sorted(files)]


def summary(ledger: Ledger, all_quests: bool = True) -> dict[str, Any]:
    """The ``status --json`` document: the one set of numbers every view shows.

    With ``all_quests=False`` the ``quests`` list holds only the REVIEW
    quests: the human ``status`` view needs no more, and skipping 10,000 rows
    it never prints is a fifth of its time.
    """
    ordered = ledger.ordered()
    review = [q for q in ordered if q.state is State.REVIEW]
    return {
        "total": ledger.total,
        "remaining": ledger.remaining,
        "counts": ledger.counts(),
        "review": [q.id for q in review],
        "files": file_rows(ordered),
        "quests": [quest_row(q, full=False) for q in (ordered if all_quests else review)],
    }


def dumps(data: dict[str, Any]) -> str:
    """JSON for a summary-like document: indented at the top, one line per list item.

    Valid JSON that stays greppable (one quest per line) and is built by the
    C encoder: ``json.dumps(indent=2)`` falls back to the pure-Python encoder
    and alone takes about 0.3 s on 10,000 quests.
    """
    parts = []
    for key in sorted(data):
        value = data[key]
        name = json.dumps(key)
        if isinstance(value, list) and value:
            items = ",\n".join(
                "    " + json.dumps(v, sort_keys=True, ensure_ascii=False) for v in value
            )
            parts.append(f"  {name}: [\n{items}\n  ]")
        else:
            parts.append(f"  {name}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def to_jsonl(ledger: Ledger) -> Iterator[str]:
    """One quest per line, in ledger order; each line is a complete JSON object."""
    for quest in ledger.ordered():
        yield json.dumps(quest_row(quest), sort_keys=True, ensure_ascii=False) + "\n"


def _csv_record(quest: Quest) -> dict[str, Any]:
    evidence = quest.evidence
    decision = quest.decision or {}
    return {
        "id": quest.id,
        "path": quest.path,
        "qualname": quest.qualname,
        "kind": quest.kind,
        "first_line": quest.lines[0],
        "last_line": quest.lines[1],
        "state": quest.state.value,
        "tries": quest.tries,
        "test": (evidence.test if evidence else None) or "",
        "test_sha256": (evidence.sha256 if evidence else None) or "",
        "covered_lines": " ".join(str(n) for n in evidence.covered_lines) if evidence else "",
        "coverage": coverage_text(quest),
        "mutation": mutation_text(evidence),
        "facts": " | ".join(f.line() for f in quest.facts),
        "decision_action": decision.get("action", ""),
        "decision_by": decision.get("by", ""),
        "decision_note": decision.get("note", ""),
        "added": quest.added,
        "updated": quest.updated,
    }


def _csv_safe(value: Any) -> Any:
    """Defuse spreadsheet formulas: a cell starting with = + - @ is read as text."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def to_csv(ledger: Ledger) -> str:
    """A header plus one row per quest (RFC 4180 quoting, ``\\n`` line ends)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for quest in ledger.ordered():
        writer.writerow({k: _csv_safe(v) for k, v in _csv_record(quest).items()})
    return buffer.getvalue()


def check_output(target: Path, ledger: Ledger, force: bool = False) -> Path:
    """Refuse an export path that would overwrite something the project owns.

    Never, even with ``force``: any ``.py`` file, every file of the scan
    snapshot (sources, existing tests, configs), locked quest tests, and
    everything under ``.quest/`` (the ledger and the attempts log). Without
    ``force`` also: a path outside the project, and an existing project file
    that is not an earlier export (a README, a tracked document, a data file),
    since ``-o`` is there to write reports, not to replace what people wrote.
    Symlinks are followed, so a link cannot smuggle the write elsewhere.
    """
    resolved = Path(os.path.realpath(target))
    if resolved.suffix == ".py" or Path(target).suffix == ".py":
        raise UsageError(f"refusing to write the export over a Python file: {target}")
    if resolved.is_dir():
        raise UsageError(f"{target} is a folder: give a file name with -o")
    root = Path(os.path.realpath(ledger.root))
    quest_dir = Path(os.path.realpath(ledger.directory))
    if resolved == quest_dir or quest_dir in resolved.parents:
        raise UsageError(
            f"refusing to write the export inside {ledger.directory}: it holds the ledger"
        )
    try:
        rel = resolved.relative_to(root).as_posix()
    except ValueError:
        if not force:
            raise UsageError(
                f"refusing to write the export outside the project ({root}): {target}; "
                "pass --force to write there anyway"
            ) from None
        return resolved
    protected = set(ledger.snapshot)
    protected.update(
        q.evidence.test or "" for q in ledger.quests.values() if q.evidence
    )
    if rel in protected:
        raise UsageError(f"refusing to write the export over {rel}: it is a protected project file")
    if resolved.exists() and not force and not is_export(resolved):
        raise UsageError(
            f"refusing to write the export over {rel}: it exists and is not an earlier "
            "pytest-quest export; pass --force to replace it"
        )
    return resolved


#: How much of an existing file :func:`is_export` reads to recognise an earlier export.
_SNIFF_BYTES = 1 << 16


def is_export(path: Path) -> bool:
    """Whether ``path`` holds an earlier export (JSON Lines, CSV or HTML) or nothing at all.

    Recognised by content, not by name or by asking git: the same answer in a
    checkout, an unpacked tarball or a folder without version control.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    if not head.strip():
        return True
    first = head.splitlines()[0].strip()
    if first == ",".join(CSV_COLUMNS):
        return True
    if head.startswith("<!DOCTYPE html>") and "by pytest-quest." in head:
        return True
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and {"id", "qualname", "state", "tries"} <= row.keys()


def write_text(target: Path, text: str) -> None:
    """Write ``text`` atomically so an interrupted export never leaves half a report."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
