"""The scan service: find every function, merge into the ledger, lock the baseline.

A rescan keeps every PASS, adds new functions as TODO and retires vanished
ones. The baseline runs the project's existing suite once, with coverage, in
a sandbox copy, and locks what it already covers fully (evidence "baseline").
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_quest import confine, ratchet
from pytest_quest.config import Settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.ledger import Ledger, now_iso, transaction
from pytest_quest.measure import measure
from pytest_quest.progress import watch
from pytest_quest.protocol import EventKind
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence
from pytest_quest.sandbox import COUNTERS_STORE, RunResult, Sandbox, harness_spec, snapshot
from pytest_quest.sandbox import run as run_sandbox
from pytest_quest.scanner import Found, ScanError, iter_source_files, scan_file, target_of
from pytest_quest.schedule import project_key
from pytest_quest.states import State

__all__ = ["ScanReport", "find_functions", "run_suite", "scan"]


@dataclass
class ScanReport:
    """What a scan did, for the terminal and ``--json``."""

    files: int = 0
    total: int = 0
    added: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    revived: list[str] = field(default_factory=list)
    locked: list[str] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    baseline: dict[str, Any] = field(default_factory=dict)
    #: Functions found but offered as no quest, with the reason (``status --skipped``).
    skipped: list[Found] = field(default_factory=list)

    def to_dict(self, ledger: Ledger) -> dict[str, Any]:
        return {
            "files": self.files,
            "total": ledger.total,
            "remaining": ledger.remaining,
            "counts": ledger.counts(),
            "added": len(self.added),
            "retired": len(self.retired),
            "locked_by_baseline": len(self.locked),
            "baseline": self.baseline,
            "errors": [{"path": e.path, "message": e.message} for e in self.errors],
            "skipped": [{"id": f.id, "reason": f.skip} for f in self.skipped],
        }


def find_functions(
    settings: Settings, skipped: list[Found] | None = None
) -> tuple[list[Found], list[ScanError], int]:
    """Every quest the sources hold now, the files that failed to parse, and the file count.

    Functions that are no quest (no test can cover them here, or
    ``exclude_quests`` names them) go to ``skipped`` with their reason.
    """
    found: list[Found] = []
    errors: list[ScanError] = []
    files = 0
    target = target_of(settings.python)
    for rel in iter_source_files(settings.root, settings.sources, settings.test_dir):
        files += 1
        result = scan_file(settings.root, rel, target)
        if isinstance(result, ScanError):
            errors.append(result)
            continue
        for item in result:
            pattern = _excluded(item.id, settings.exclude_quests)
            if pattern is not None:
                item = item.with_skip(f"excluded by [tool.pytest-quest] exclude_quests {pattern!r}")
            if not item.skip:
                found.append(item)
            elif skipped is not None:
                skipped.append(item)
    return found, errors, files


def _excluded(quest_id: str, patterns: tuple[str, ...]) -> str | None:
    """The first ``exclude_quests`` pattern matching ``quest_id`` (an id or a glob)."""
    for pattern in patterns:
        if quest_id == pattern or fnmatch.fnmatchcase(quest_id, pattern):
            return pattern
    return None


def _merge(ledger: Ledger, found: list[Found], now: str, report: ScanReport) -> None:
    seen = set()
    for item in found:
        seen.add(item.id)
        old = ledger.quests.get(item.id)
        shape = {
            "path": item.path, "qualname": item.qualname, "kind": item.kind,
            "lines": item.lines, "body": item.body, "source_hash": item.source_hash,
        }
        if old is None:
            ledger.put(Quest(id=item.id, path=item.path, qualname=item.qualname, kind=item.kind,
                             lines=item.lines, body=item.body, source_hash=item.source_hash,
                             added=now, updated=now))
            report.added.append(item.id)
        elif old.state is State.RETIRED:
            ledger.put(old.with_(state=State.TODO, tries=0, facts=(), evidence=None, updated=now,
                                 **shape))
            report.revived.append(item.id)
        else:
            ledger.put(old.with_(**shape))
    for quest_id, quest in list(ledger.quests.items()):
        if quest_id not in seen and quest.state is not State.RETIRED:
            ledger.put(quest.with_(state=State.RETIRED, updated=now))
            report.retired.append(quest_id)


def run_suite(settings: Settings,
              progress: Callable[[str], None] = lambda message: None) -> RunResult:
    """Run the project's own suite once with coverage, in a sandbox.

    The quest test folder is not copied: no quest test runs in the baseline.
    Without xdist its tests run in the harness's own process, beside the
    event pipe, so only code the maintainer trusts may run there; and a
    quest test earns a lock for its own quest only, through the gate
    (docs/design.md, "Baseline"). Tests that fail are deselected and the suite is run once
    more, so only passing tests can lock a function. ``progress`` hears how
    far it got.
    """
    box = Sandbox.create(settings)
    try:
        with watch(progress, "running the existing suite") as tally:
            result = run_sandbox(box, settings, harness_spec(settings),
                                 settings.baseline_timeout, observe=tally.feed)
        failed = sorted({
            e["nodeid"] for e in result.of(EventKind.REPORT)
            if e["outcome"] == "failed" and e["nodeid"]
        })
        if failed and result.finished:
            spec = harness_spec(settings, deselect=failed)
            with watch(progress, f"running the suite again without {len(failed)} failing tests"
                       ) as tally:
                result = run_sandbox(box, settings, spec, settings.baseline_timeout,
                                     observe=tally.feed)
            result.events.append({"event": EventKind.DESELECTED.value, "nodeids": failed})
    finally:
        box.cleanup()
    if result.timed_out:
        raise EnvironmentFault(
            f"the existing suite did not finish within {settings.baseline_timeout:g} s; "
            "raise baseline_timeout or scan with --no-baseline"
        )
    if not result.started:
        tail = (result.output.strip().splitlines() or ["no output"])[-1]
        raise EnvironmentFault(f"the suite could not start in the sandbox: {tail}")
    return result


def _lock_baseline(ledger: Ledger, result: RunResult, settings: Settings, now: str,
                   report: ScanReport) -> None:
    files = result.coverage_files or {}
    # Tests, not reports: each subtest reports under its test's node id.
    reports = result.of(EventKind.REPORT)
    failing = {e["nodeid"] for e in reports if e["outcome"] == "failed"}
    passing = {e["nodeid"] for e in reports
               if e["when"] == "call" and e["outcome"] == "passed"} - failing
    passed, failed = len(passing), len(failing)
    deselected = result.first(EventKind.DESELECTED)
    report.baseline = {
        "tests_passed": passed,
        "tests_failed": failed,
        "deselected": len(deselected["nodeids"]) if deselected else 0,
        "seconds": round(result.seconds, 2),
        "isolation": result.isolation,
        # pytest-xdist workers that ran the suite; 0: one process (no xdist, or `-n 0`).
        "workers": int((result.first(EventKind.COLLECTED) or {}).get("workers") or 0),
    }
    if failed or not result.finished:
        report.baseline["note"] = "the suite did not pass cleanly; nothing was locked"
        return
    measured = result.first(EventKind.COVERAGE) or {}
    if measured.get("error"):
        report.baseline["note"] = (f"the coverage report failed ({measured['error']}); "
                                   "nothing was locked")
        return
    for quest in ledger.ordered():
        if quest.state is not State.TODO:
            continue
        entry = files.get(quest.path)
        if entry is None:
            continue
        got = measure(entry, quest.body, settings.branch)
        if got.statements and got.complete:
            evidence = Evidence.baseline(got.executed, quest.source_hash, now, result.isolation,
                                         def_line=quest.lines[0])
            ledger.put(ratchet.lock_pass(quest, evidence, now))
            report.locked.append(quest.id)


def scan(
    settings: Settings,
    baseline: bool = True,
    progress: Callable[[str], None] = lambda message: None,
) -> tuple[ScanReport, Ledger]:
    """Scan the sources into the ledger; optionally lock what the existing suite covers."""
    progress("finding functions")
    skipped: list[Found] = []
    found, errors, files = find_functions(settings, skipped)
    report = ScanReport(files=files, total=len(found), errors=errors, skipped=skipped)
    result = None
    if baseline and found:
        progress("running the existing suite once with coverage")
        result = run_suite(settings, progress=progress)
    now = now_iso()
    with transaction(Ledger.for_root(settings.root).path, missing_ok=True) as ledger:
        # A locked function that became uncoverable stays PASS (the ratchet reports the
        # exclusion); any other state of a skipped function retires.
        kept = [f for f in skipped if f.id in ledger.quests
                and ledger.quests[f.id].state is State.PASS]
        _merge(ledger, found + kept, now, report)
        ledger.skipped = [{"id": f.id, "reason": f.skip} for f in skipped]
        ledger.snapshot = snapshot(settings)
        ledger.settings = settings.to_dict()
        if result is not None:
            _lock_baseline(ledger, result, settings, now, report)
        ledger.scans.append({
            "time": now,
            "total": ledger.total,
            "remaining": ledger.remaining,
            "added": len(report.added) + len(report.revived),
            "retired": len(report.retired),
            "locked": len(report.locked),
        })
    project_key(settings.root)  # the schedule's secret (pytest_quest.schedule), before any submit
    if sys.platform == "linux":  # the /proc counters every run of every submission reads
        confine.store_counters(str(settings.root / COUNTERS_STORE))
    return report, ledger
