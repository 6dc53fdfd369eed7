"""The CI ratchet's engine: does this suite run still cover every locked function?

Kept free of pytest, click and rich: the plugin wires hooks around it and the
CLI only runs pytest, so the verdict can be tested on plain data. It trusts
nothing in the ledger file but the quest ids: a PASS is re-measured against
the current source (its span re-read by rescanning the file, since the
ledger's may be stale), so a hand-edited ledger or a forged lock is caught
the same way lost coverage is.

Reading coverage: :func:`read_entries` analyses a coverage data file with a
*neutral* ``Coverage`` object (``config_file=False``, never started), as the
gate's harness does, so the project's own ``[report]`` settings cannot hide
a line, and no second collector ever runs beside pytest-cov.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_quest import ratchet
from pytest_quest.facts import FAIL, Fact
from pytest_quest.ledger import Ledger, append_attempt, now_iso, transaction
from pytest_quest.measure import Measured, format_branch, format_lines, measure
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt, Evidence, EvidenceSource
from pytest_quest.sandbox import file_sha256
from pytest_quest.scanner import Found, ScanError, scan_file
from pytest_quest.states import State

__all__ = [
    "TEST_CHANGED",
    "CheckReport",
    "Problem",
    "approved_lines",
    "check_locks",
    "lock_covered",
    "locked_test",
    "own_tests_contexts",
    "read_entries",
    "source_dirs",
]

#: Rule ids of the ratchet's facts. Lost coverage reuses the gate's ``coverage-*`` ids
#: (DESIGN: coverage facts come from rules whose ids start with ``coverage-``).
LINES = "coverage-lines"
BRANCHES = "coverage-branches"
NO_DATA = "ratchet-no-data"
TEST_MISSING = "ratchet-test-missing"
NO_EVIDENCE = "ratchet-no-evidence"
UNPARSABLE = "ratchet-unparsable"
TEST_CHANGED = "ratchet-test-changed"
EXCLUSION_ADDED = "ratchet-exclusion-added"
#: coverage.py's default exclusion: the analysis drops such a line without a trace.
_PRAGMA = re.compile(r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)")
#: Evidence sources that name the test file which earned the lock.
_TEST_SOURCES = (EvidenceSource.SUBMIT, EvidenceSource.REVIEW)


@dataclass(frozen=True)
class Problem:
    """One locked quest that no longer holds, with the facts that say why."""

    quest: str
    facts: tuple[Fact, ...]
    test: str | None = None
    changed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "quest": self.quest,
            "test": self.test,
            "changed": self.changed,
            "facts": [f.to_dict() for f in self.facts],
        }


@dataclass
class CheckReport:
    """The ratchet's verdict for one run: problems fail it, notices never do."""

    checked: int = 0
    problems: list[Problem] = field(default_factory=list)
    #: Locked quests whose function is gone: a rescan retires them; not a failure.
    vanished: list[str] = field(default_factory=list)
    #: TODO quests this run covers fully (what ``--quest-update`` may lock).
    coverable: dict[str, Measured] = field(default_factory=dict)
    #: Quests ``--quest-update`` actually locked.
    locked: list[str] = field(default_factory=list)
    #: Changed locked tests ``--quest-update`` had the gate judge again and relock.
    rechecked: list[str] = field(default_factory=list)
    #: Why nothing was locked although an update was asked for.
    skipped_update: str | None = None
    #: Set when the run gave no coverage data at all (coverage disabled...).
    error: str | None = None
    #: A narrowed run (-k, -m, a path): locks left unjudged, and what narrowed it.
    skipped: int = 0
    narrowed: str | None = None
    #: The ``--quest-base`` verdict (:meth:`pytest_quest.gitbase.HistoryCheck.to_dict`).
    history: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        history_ok = self.history is None or bool(self.history.get("ok", True))
        return not self.problems and self.error is None and history_ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "problems": [p.to_dict() for p in self.problems],
            "vanished": list(self.vanished),
            "locked": list(self.locked),
            "rechecked": list(self.rechecked),
            "skipped_update": self.skipped_update,
            "error": self.error,
            "skipped": self.skipped,
            "narrowed": self.narrowed,
            "history": self.history,
        }


def source_dirs(ledger: Ledger, root: Path | None = None) -> list[str]:
    """Absolute paths to measure: the ledger's ``settings["sources"]``, else its quests' files.

    Measuring only the sources keeps the overhead at what ``--cov=<sources>`` costs.
    A source that is one module (``xmltodict.py``) stands for its folder:
    coverage.py's ``source`` takes folders and package names, never a file,
    and a file path there would measure nothing (every lock would read as lost).
    """
    root = (ledger.root if root is None else root).resolve()
    sources = [s for s in ledger.settings.get("sources", ()) if isinstance(s, str)]
    if not sources:
        sources = sorted({q.path for q in ledger.quests.values()})
    out: list[str] = []
    for source in sources:
        path = root / source if source != "." else root
        folder = str(path.parent if path.suffix == ".py" else path)
        if folder not in out:
            out.append(folder)
    return out


def read_entries(data_file: str | Path, root: Path, rels: Iterable[str],
                 branch: bool, contexts: str | None = None) -> dict[str, dict[str, Any] | None]:
    """Per-file coverage entries (the JSON report's keys) for ``rels``, from a data file.

    A file the data never saw maps to None. Only the files asked for are
    analysed: the JSON report of a whole project costs seconds we do not need
    to pay. ``contexts`` (a regular expression over coverage's context names)
    keeps only what ran in matching contexts: ``--quest-update`` counts the
    project's own tests, never a quest test (:func:`own_tests_contexts`).
    Data recorded with ``relative_files = true`` (yarl's .coveragerc)
    names files relative to the project root, and is read that way.
    """
    import coverage

    cov = coverage.Coverage(data_file=str(data_file), config_file=False, branch=branch)
    cov.load()
    data = cov.get_data()
    keys = {str((root / f).resolve()): f for f in data.measured_files()}
    if any(not Path(f).is_absolute() for f in keys.values()):
        cov = coverage.Coverage(data_file=str(data_file), config_file=False, branch=branch)
        cov.set_option("run:relative_files", True)
        cov.load()
    if contexts is not None:
        cov.get_data().set_query_contexts([contexts])
    has_arcs = data.has_arcs()
    out: dict[str, dict[str, Any] | None] = {}
    with contextlib.chdir(root):  # relative names are read from the root
        for rel in sorted(set(rels)):
            key = keys.get(str((root / rel).resolve()))
            if key is None:
                out[rel] = None
                continue
            out[rel] = _entry(cov, key, branch and has_arcs)
    return out


def _entry(cov: Any, path: str, branch: bool) -> dict[str, Any]:
    analyze = getattr(cov, "_analyze", None)
    if analyze is None:  # pragma: no cover - a coverage without the (private) analysis call
        _name, statements, _excl, missing, _fmt = cov.analysis2(path)
        return {"executed_lines": sorted(set(statements) - set(missing)),
                "missing_lines": sorted(missing)}
    analysis = analyze(path)
    entry: dict[str, Any] = {
        "executed_lines": sorted(analysis.executed & analysis.statements),
        "missing_lines": sorted(analysis.missing),
    }
    if branch:
        entry["executed_branches"] = [
            [src, dst] for src, dsts in analysis.executed_branch_arcs().items() for dst in dsts
        ]
        entry["missing_branches"] = [
            [src, dst] for src, dsts in analysis.missing_branch_arcs().items() for dst in dsts
        ]
    return entry


def own_tests_contexts(quest_dir: Path, rootdir: Path) -> str:
    """The coverage contexts of the project's own tests: every test outside ``quest_dir``.

    pytest-cov's ``--cov-context=test`` names each test's phases
    ``<nodeid>|setup``, ``|run`` and ``|teardown``, node ids relative to
    pytest's ``rootdir``. What ran outside any test (imports at collection,
    the empty context) is left out too: a quest test module imported at
    collection could run a function there. A quest test earns the lock of
    its own quest through the gate only; its coverage of other functions is
    no evidence (docs/design.md, "Baseline").
    """
    prefix = Path(os.path.relpath(quest_dir, rootdir)).as_posix().rstrip("/") + "/"
    return rf"^(?!{re.escape(prefix)}).+\|(?:setup|run|teardown)$"


class _Narrow:
    """One file's entry, indexed so each quest's slice costs a bisect, not a full scan.

    ``measure`` filters a whole file's lines per quest; with hundreds of
    quests in a long module that dominates the ratchet's own cost.
    """

    def __init__(self, entry: Mapping[str, Any]) -> None:
        self.entry = entry
        self.lists = {key: sorted(entry.get(key, ())) for key in ("executed_lines",
                                                                   "missing_lines")}
        self.arcs: dict[str, list[tuple[int, int]]] = {
            key: sorted(tuple(b) for b in entry.get(key, ()))
            for key in ("executed_branches", "missing_branches") if key in entry
        }

    def body(self, first: int, last: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, values in self.lists.items():
            out[key] = values[bisect_left(values, first):bisect_right(values, last)]
        for key, arcs in self.arcs.items():
            lo = bisect_left(arcs, (first, -sys.maxsize))
            hi = bisect_right(arcs, (last, sys.maxsize))
            out[key] = [list(a) for a in arcs[lo:hi]]
        return out


class _Spans:
    """A file's function definitions by line: proof that the ledger's spans are current.

    Rescanning hashes and classifies every function of the file; the spans
    alone need only a parse: a quest whose ``def`` line, name, end and
    first body line all match the source as it is now is measured with its
    ledger spans; any other quest (moved, changed shape, gone) takes the full
    rescan. The ledger is never trusted, only confirmed against the AST.
    """

    def __init__(self, root: Path, rel: str) -> None:
        self.defs: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        try:
            tree = ast.parse((root / rel).read_bytes(), filename=rel)
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.defs.setdefault(node.lineno, node)

    def confirm(self, quest: Quest) -> Found | None:
        node = self.defs.get(quest.lines[0])
        if node is None or node.name not in re.split(r"[.@]", quest.qualname):
            return None
        body = node.body
        first = body[0]
        if (len(body) > 1 and isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)):
            first = body[1]
        if (node.lineno, node.end_lineno) != tuple(quest.lines) or first.lineno != quest.body[0]:
            return None
        return Found(quest.path, quest.qualname, quest.kind, quest.lines, quest.body,
                     quest.source_hash)


def _current(root: Path, rel: str, cache: dict[str, dict[str, Found] | ScanError | None]
             ) -> dict[str, Found] | ScanError | None:
    """The functions a file holds *now* (None when the file is gone); one parse per file."""
    if rel not in cache:
        if not (root / rel).is_file():
            cache[rel] = None
        else:
            found = scan_file(root, rel)
            cache[rel] = found if isinstance(found, ScanError) else {f.qualname: f for f in found}
    return cache[rel]


def _fact(rule: str, where: str, expected: str, actual: str) -> Fact:
    return Fact(rule=rule, level=FAIL, where=where, expected=expected, actual=actual)


def _changed_note(quest: Quest, found: Found) -> str:
    old = (quest.evidence.source_hash if quest.evidence else "") or quest.source_hash
    if old and old != found.source_hash:
        return (f" (the function changed since it was locked: "
                f"source hash {old} -> {found.source_hash})")
    return ""


def locked_test(quest: Quest) -> str | None:
    """The test file whose gate verdict (or approval) locked ``quest``; None for suite locks."""
    evidence = quest.evidence
    return evidence.test if evidence is not None and evidence.source in _TEST_SOURCES else None


def _source_lines(root: Path, rel: str, cache: dict[str, list[str]]) -> list[str]:
    if rel not in cache:
        try:
            cache[rel] = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[rel] = []
    return cache[rel]


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def approved_lines(quest: Quest, found: Found, lines: list[str]) -> set[int]:
    """Lines an approved review accepted as unreachable, where they are now.

    A claim is kept as its offset from the ``def`` line and its text; it
    applies only while that line still reads the same, so editing the
    claimed line makes it a line the suite must cover again.
    """
    out = set()
    for claim in quest.evidence.unreachable if quest.evidence else ():
        if not isinstance(claim.get("offset"), int):
            continue
        number = found.lines[0] + claim["offset"]
        if _line(lines, number) == str(claim.get("text", "")).strip():
            out.add(number)
    return out


def _exclusions_added(quest: Quest, found: Found, lines: list[str]) -> list[int]:
    """Lines under ``# pragma: no cover`` now that were covered when the quest was locked."""
    evidence = quest.evidence
    if evidence is None:
        return []
    covered = set(evidence.covered_lines)
    locked_def = evidence.def_line
    shift = found.lines[0] - (quest.lines[0] if locked_def is None else locked_def)
    first, last = found.lines
    return [n for n in range(first, last + 1)
            if _PRAGMA.search(lines[n - 1] if n <= len(lines) else "") and n - shift in covered]


def _check_pass(quest: Quest, found: Found, entry: Mapping[str, Any] | None, root: Path,
                branch: bool, texts: dict[str, list[str]] | None = None) -> Problem | None:
    facts: list[Fact] = []
    evidence = quest.evidence
    test = locked_test(quest)
    lines = _source_lines(root, quest.path, {} if texts is None else texts)
    if evidence is None:
        facts.append(_fact(
            NO_EVIDENCE, quest.id, "a PASS carries the evidence that locked it",
            "locked without evidence (the ledger was edited by hand?)",
        ))
    if test and not (root / test).is_file():
        facts.append(_fact(
            TEST_MISSING, str(test), f"the test file that locked {quest.id} exists",
            "the file is missing",
        ))
    elif test and evidence is not None and evidence.sha256:
        now = file_sha256(root / test)
        if now != evidence.sha256:
            facts.append(_fact(
                TEST_CHANGED, str(test),
                f"the test that locked {quest.id} is the one the gate judged",
                f"sha256 {evidence.sha256} -> {now}: judge it again with "
                f"`pytest-quest recheck {quest.id}` (or restore it)",
            ))
    for number in _exclusions_added(quest, found, lines):
        facts.append(_fact(
            EXCLUSION_ADDED, f"{quest.path}:{number}",
            f"no line of {quest.qualname} covered at the lock is excluded from coverage later",
            f"'# pragma: no cover' added after the lock: {_line(lines, number)!r}",
        ))
    changed = _changed_note(quest, found)
    first, last = found.body
    if entry is None:
        facts.append(_fact(
            NO_DATA, f"{quest.path}:{first}-{last}",
            "the file is measured by this run", "coverage recorded nothing for it "
            "(never imported, or outside --cov)" + changed,
        ))
    else:
        got = measure(entry, found.body, branch)
        accepted = approved_lines(quest, found, lines)
        missing = [n for n in got.missing if n not in accepted]
        lost = [b for b in got.missing_branches if b[0] not in accepted]
        if missing:
            facts.append(_fact(
                LINES, f"{quest.path}:{format_lines(missing)}",
                f"every line of {quest.qualname} ({first}-{last}) executed by the suite",
                f"lines {format_lines(missing)} not executed" + changed,
            ))
        if lost:
            arcs = ", ".join(format_branch(s, d) for s, d in lost)
            facts.append(_fact(
                BRANCHES, f"{quest.path}:{lost[0][0]}",
                f"every branch of {quest.qualname} taken by the suite",
                f"branches {arcs} not taken" + changed,
            ))
    if not facts:
        return None
    return Problem(quest.id, tuple(facts), test=test, changed=bool(changed))


def check_locks(ledger: Ledger, entries: Mapping[str, Mapping[str, Any] | None], branch: bool,
                want_todo: bool = False, root: Path | None = None,
                ran: Iterable[str] | None = None,
                todo_entries: Mapping[str, Mapping[str, Any] | None] | None = None
                ) -> CheckReport:
    """The ratchet's verdict: every PASS quest against this run's coverage ``entries``.

    With ``want_todo`` it also lists the TODO quests this run covers fully,
    measured on ``todo_entries`` when given (``--quest-update``: the coverage
    of the project's own tests only, see :func:`own_tests_contexts`).
    ``root`` is the project root (default: the folder holding ``.quest/``).
    ``ran`` is given for a narrowed run: the test files it ran. Then only the
    locks earned by one of those files are judged (a suite lock needs the
    whole suite) and the others are counted in ``skipped``.
    Pure apart from reading the source files.
    """
    root = ledger.root if root is None else root
    report = CheckReport()
    ran_files = None if ran is None else set(ran)
    texts: dict[str, list[str]] = {}
    cache: dict[str, dict[str, Found] | ScanError | None] = {}
    narrow: dict[str, _Narrow] = {}
    todo_narrow: dict[str, _Narrow] = {}
    spans: dict[str, _Spans] = {}
    for quest in ledger.ordered():
        if quest.state is State.PASS:
            if ran_files is not None and locked_test(quest) not in ran_files:
                report.skipped += 1
                continue
            report.checked += 1
        elif not (want_todo and quest.state is State.TODO):
            continue
        if quest.path not in spans:
            spans[quest.path] = _Spans(root, quest.path)
        quick = spans[quest.path].confirm(quest)
        current = {quest.qualname: quick} if quick else _current(root, quest.path, cache)
        if isinstance(current, ScanError):
            if quest.state is State.PASS:
                report.problems.append(Problem(quest.id, (_fact(
                    UNPARSABLE, quest.path, "the source file parses", current.message),)))
            continue
        found = current.get(quest.qualname) if current is not None else None
        if found is None:
            if quest.state is State.PASS:
                report.vanished.append(quest.id)
            continue
        todo = quest.state is State.TODO and todo_entries is not None
        full = (todo_entries if todo_entries is not None and todo else entries).get(quest.path)
        indexed = todo_narrow if todo else narrow
        entry = None
        if full is not None:
            if quest.path not in indexed:
                indexed[quest.path] = _Narrow(full)
            entry = indexed[quest.path].body(*found.body)
        if quest.state is State.PASS:
            problem = _check_pass(quest, found, entry, root, branch, texts)
            if problem is not None and quick is not None:
                # Name the change (old hash -> new) in the report: that needs the rescan.
                rescanned = _current(root, quest.path, cache)
                if isinstance(rescanned, dict) and quest.qualname in rescanned:
                    problem = _check_pass(quest, rescanned[quest.qualname], entry, root, branch,
                                          texts)
            if problem is not None:
                report.problems.append(problem)
        elif entry is not None:
            got = measure(entry, found.body, branch)
            if got.statements and got.complete:
                report.coverable[quest.id] = got
    return report


def lock_covered(ledger_path: Path, report: CheckReport, branch: bool,
                 root: Path | None = None) -> list[str]:
    """Lock the ``report.coverable`` TODO quests as PASS (evidence ``"suite"``).

    Under the ledger's file lock the ledger is read again and only quests
    still TODO are locked, so a concurrent ``submit`` is never overwritten,
    and nothing is ever unlocked. Each lock is one ``suite-lock`` line in the
    attempts log.
    """
    if not report.coverable:
        return []
    now = now_iso()
    locked: list[str] = []
    with transaction(ledger_path) as ledger:
        cache: dict[str, dict[str, Found] | ScanError | None] = {}
        for quest_id, got in report.coverable.items():
            quest = ledger.quests.get(quest_id)
            if quest is None or quest.state is not State.TODO:
                continue
            current = _current(ledger.root if root is None else root, quest.path, cache)
            found = current.get(quest.qualname) if isinstance(current, dict) else None
            if found is None:
                continue
            evidence = Evidence.suite(got.executed, found.source_hash, now,
                                      got.branches if branch else None, def_line=found.lines[0])
            shape = {"lines": found.lines, "body": found.body, "source_hash": found.source_hash}
            ledger.put(ratchet.lock_pass(quest.with_(**shape), evidence, now))
            locked.append(quest_id)
    # Logged once the ledger is saved: the log never claims a lock the ledger lacks.
    remaining = ledger.remaining
    for quest_id in locked:
        with contextlib.suppress(OSError):
            append_attempt(ledger, Attempt.suite_locked(
                quest_id, now, report.coverable[quest_id].executed,
                ledger.quests[quest_id].tries, remaining))
    report.locked = locked
    return locked
