"""Stage 2, scope: one test file in the quest folder, and nothing else touched.

Protected files (sources, existing tests, conftests, configs, other quests'
locked tests) must hash as they did at the scan. The sandbox is built from
the working tree, so a changed source would otherwise be what the test runs
against.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.paths import same_file_key
from pytest_quest.submission import Submission

__all__ = ["LOCATION", "PROTECTED", "check"]

LOCATION = CATALOG.add(
    "scope-test-location", FAIL, "scope",
    "The submission is one test_*.py file inside the quest test folder, not another quest's "
    "locked test.",
    "Write the test to the path `pytest-quest next` gives (test_path).",
)
PROTECTED = CATALOG.add(
    "scope-protected-files", FAIL, "scope",
    "Sources, existing tests, conftests, configs, native code (compiled extensions, shared "
    "libraries) and locked quest tests are unchanged since the scan; no new Python, config or "
    "native-code file appears outside the quest test folder.",
    "Undo the changes to the files named (git checkout/restore them); change only your test. "
    "If the change is a maintainer's, they rescan with `pytest-quest scan`.",
)


def check(sub: Submission) -> Iterator[Fact]:
    yield from _location(sub)
    yield from _protected(sub)


def _location(sub: Submission) -> Iterator[Fact]:
    path = PurePosixPath(sub.test_rel)
    folder = PurePosixPath(sub.settings.test_dir)
    if folder not in path.parents:
        yield LOCATION.fact(sub.test_rel, f"a file inside {folder}/", "a file outside it")
    if not (path.name.startswith("test_") and path.suffix == ".py") or path.name == "conftest.py":
        yield LOCATION.fact(sub.test_rel, "a file named test_*.py", f"{path.name}")
    # Compared as macOS compares file names: there ``TEST_a.py`` is the file ``test_a.py`` that
    # locks another quest, and a second lock on it would go stale with the first (red team 4);
    # so is a name in another Unicode normalization (red team 5, finding 05).
    if same_file_key(sub.test_rel) in {same_file_key(rel) for rel in sub.locked_tests}:
        yield LOCATION.fact(sub.test_rel, "a new test file", "the locked test of another quest")


def _protected(sub: Submission) -> Iterator[Fact]:
    now = sub.working_tree
    for rel, digest in sorted(sub.snapshot.items()):
        current = now.get(rel)
        if current is None:
            yield PROTECTED.fact(rel, "unchanged since the scan", "deleted")
        elif current != digest:
            yield PROTECTED.fact(
                rel, f"unchanged since the scan (sha256 {digest[:12]})", f"changed ({current[:12]})"
            )
    for rel in sorted(set(now) - set(sub.snapshot) - sub.data_files):
        yield PROTECTED.fact(rel, "no new Python, test, config or native-code file", "a new file")
    for rel, digest in sorted(sub.locked_tests.items()):
        if rel == sub.test_rel:
            continue
        current = sub.locked_now.get(rel, digest)
        if current != digest:
            state = "deleted" if current is None else "changed"
            yield PROTECTED.fact(rel, "locked quest test unchanged", state)
    for rel in sub.stray_files:
        yield PROTECTED.fact(
            rel, "the submission is one test file", "another file in the quest test folder"
        )
