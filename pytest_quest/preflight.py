"""What ``submit`` settles before and after the gate so tries pay only for the test's faults.

A try is the agent's budget for its own mistakes. Three things used to spend
it that were not the test's doing, and are settled here instead:

- a ``--test`` path outside the quest folder is a usage error (exit 2), not a
  ``scope-test-location`` FAIL; so is a ``--test`` path another open quest
  owns (where ``next`` sends its agent, or the file it sent to review);
- a source a maintainer changed, removed or added after the scan is "rescan
  needed" (exit 2): the gate would judge the test against code the ledger
  never saw;
- a byte-identical file that already FAILed (same path, since the last scan)
  gets the recorded verdict back: nothing runs, nothing is spent.

And after the run, what the agent reads is made about the project: facts
and the output tail name ``tests/quest/test_x.py:9``, not the throwaway
sandbox copy that no longer exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.errors import RescanNeeded, UsageError
from pytest_quest.facts import Fact, Verdict
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.paths import open_default_paths, same_file_key
from pytest_quest.quest import Quest
from pytest_quest.records import AttemptKind
from pytest_quest.scanner import is_test_file
from pytest_quest.states import Outcome, State

__all__ = [
    "OUTPUT_LINES",
    "changed_sources",
    "check_location",
    "check_others_files",
    "check_sources",
    "output_tail",
    "project_paths",
    "repeated_verdict",
]

#: Lines of the run's stdout/stderr kept in the attempts log (and shown by ``show``).
OUTPUT_LINES = 40
_OUTPUT_CHARS = 6000


def check_location(test_rel: str, settings: Settings) -> None:
    """A test outside the quest folder is the caller's mistake, never a try."""
    folder = PurePosixPath(settings.test_dir.rstrip("/"))
    if folder not in PurePosixPath(test_rel).parents:
        raise UsageError(
            f"{test_rel} is outside the quest folder {folder}/: write the test to the "
            "test_path `pytest-quest next` gives (nothing was judged, no try spent)"
        )


def check_others_files(ledger: Ledger, settings: Settings, quest_id: str, test_rel: str) -> None:
    """A ``--test`` file another open quest owns is refused (red team 4, finding 05).

    A TODO quest's default test path may already be in its agent's brief: a
    lock placed there is overwritten when that agent writes its test. A REVIEW
    quest's submitted test must stay what the reviewer reads: a submission
    that rewrote it would make the review impossible to approve. (Locked tests
    of PASS quests are the scope rule's.) Compared as a macOS file system
    compares names (:func:`~pytest_quest.paths.same_file_key`).
    """
    key = same_file_key(test_rel)
    for other, rel in open_default_paths(list(ledger.quests.values()), settings).items():
        if other != quest_id and same_file_key(rel) == key:
            raise UsageError(f"{test_rel} is where `next` sends the agent of {other}: write "
                             "your test to your own test_path (nothing was judged, no try spent)")
    in_review = {q.id for q in ledger.quests.values() if q.state is State.REVIEW}
    if not in_review:
        return
    for record in read_attempts(ledger):
        if (record.quest in in_review and record.quest != quest_id
                and record.kind == AttemptKind.SUBMIT and record.verdict == "REVIEW"
                and same_file_key(record.test or "") == key):
            raise UsageError(f"{test_rel} is the test {record.quest} sent to review: write your "
                             "test to your own test_path (nothing was judged, no try spent)")


def _is_source(rel: str, settings: Settings) -> bool:
    if not rel.endswith(".py") or is_test_file(rel):
        return False
    for source in settings.sources:
        folder = source.strip("/")
        if folder in ("", ".") or rel == folder or rel.startswith(folder + "/"):
            return True
    return False


def changed_sources(ledger: Ledger, settings: Settings) -> list[tuple[str, str]]:
    """Source files that changed, vanished or appeared since the scan: ``(path, how)``.

    Only sources: a changed or new test, conftest or config is still the scope
    rule's to judge (that is where an agent's tampering shows).
    """
    from pytest_quest.sandbox import entry_sha256
    from pytest_quest.scanner import iter_source_files

    out = []
    for rel, digest in sorted(ledger.snapshot.items()):
        if not _is_source(rel, settings):
            continue
        now = entry_sha256(settings.root / rel)
        if now != digest:
            out.append((rel, "deleted" if now is None else "changed"))
    for rel in iter_source_files(settings.root, settings.sources, settings.test_dir):
        if rel not in ledger.snapshot and _is_source(rel, settings):
            out.append((rel, "new"))
    return sorted(out)


def check_sources(ledger: Ledger, settings: Settings) -> None:
    """Refuse to judge against sources the ledger never saw: a rescan is needed first."""
    changed = changed_sources(ledger, settings)
    if changed:
        named = ", ".join(f"{rel} ({how})" for rel, how in changed[:5])
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        raise RescanNeeded(
            f"sources changed since the scan: {named}{more}. Rescan needed: a maintainer runs "
            "`pytest-quest scan` (or restores the files); nothing was judged, no try spent"
        )


def repeated_verdict(ledger: Ledger, quest: Quest, test_rel: str, data: bytes) -> Verdict | None:
    """The recorded FAIL of this very file (same path and bytes, since the last scan), if any.

    The gate is deterministic, so judging the same bytes against the same
    sources again can only repeat itself; the agent gets the facts again and
    keeps its try.
    """
    from pytest_quest.sandbox import sha256

    digest = sha256(data)
    since = str(ledger.scans[-1].get("time", "")) if ledger.scans else ""
    for record in reversed(read_attempts(ledger, quest.id)):
        # Times have whole seconds: a FAIL in the very second of a rescan still counts as
        # after it (its verdict handed back once more, no try spent either way).
        if record.kind != AttemptKind.SUBMIT.value or record.time < since:
            continue
        if record.sha256 != digest or record.test != test_rel:
            continue
        if record.verdict != Outcome.FAIL.value:
            return None
        facts = record.facts
        hint = (f"this exact file already FAILed at {record.time}: the verdict above is "
                "the recorded one; no try was spent. Change the test before submitting again.")
        return Verdict(Outcome.FAIL, facts, facts[0].rule if facts else None, hint)
    return None


def _unbox(text: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        text = text.replace(prefix, "")
    return text


def _prefixes(box: Any) -> tuple[str, ...]:
    if box is None:
        return ()
    import os

    paths = {str(box.path), os.path.realpath(box.path)}
    return tuple(sorted((p.rstrip("/") + "/" for p in paths), key=len, reverse=True))


def project_paths(facts: Iterable[Fact], box: Any) -> tuple[Fact, ...]:
    """Facts with the sandbox copy's paths made project-relative (``tests/quest/x.py:9``)."""
    prefixes = _prefixes(box)
    if not prefixes:
        return tuple(facts)
    return tuple(
        Fact(f.rule, f.level, _unbox(f.where, prefixes), _unbox(f.expected, prefixes),
             _unbox(f.actual, prefixes))
        for f in facts
    )


def output_tail(run: Any, box: Any) -> str:
    """The last lines of the run's stdout/stderr, as the project's paths, for the attempts log."""
    if run is None or not getattr(run, "output", ""):
        return ""
    lines = _unbox(run.output, _prefixes(box)).rstrip().splitlines()[-OUTPUT_LINES:]
    return "\n".join(lines)[-_OUTPUT_CHARS:]
