"""Progress of a long harness run, read from the events it streams.

A large library's baseline takes over a minute and used to print nothing.
The harness flushes one JSON line per event as it goes, into a fresh
``channel-*`` folder beside the sandbox, so a reader thread can count the
tests reported so far against the number collected, without touching the
run itself. The file is read as the sandbox reads it (:mod:`pytest_quest.safeio`:
a regular file reached without a symlink, never a FIFO that would block), and
when it cannot be read the elapsed time alone is still reported.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["count_tests", "latest_events", "watch"]


#: Read at most this much of an events file per look (the counts need only the lines).
_LIMIT = 64 * 1024 * 1024


def latest_events(base: Path) -> Path | None:
    """The events file of the newest run under a sandbox's ``base`` (None before the first)."""
    found = [p for p in base.glob("channel-*/events.jsonl") if not p.is_symlink()]
    if not found:
        return None
    return max(found, key=lambda p: p.parent.stat().st_mtime_ns)


def count_tests(events_path: Path | None) -> tuple[int, int | None]:
    """``(tests finished, tests collected or None)`` from an events file written so far."""
    from pytest_quest.safeio import UnsafeFileError, read_regular

    done: set[str] = set()
    total = None
    if events_path is None:
        return 0, None
    try:
        data, _ = read_regular(events_path, _LIMIT)
    except (OSError, UnsafeFileError):
        return 0, None
    text = data.decode("utf-8", errors="replace")
    for line in text.splitlines():
        if '"report"' not in line and '"collected"' not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the line being written
        if not isinstance(event, dict):
            continue
        if event.get("event") == "collected" and isinstance(event.get("count"), int):
            total = event["count"]
            done.clear()  # a second run (failing tests deselected) starts over
        elif event.get("event") == "report" and (
            event.get("when") == "call" or event.get("outcome") != "passed"
        ):
            done.add(str(event.get("nodeid")))
    return len(done), total


@contextmanager
def watch(base: Path, report: Callable[[str], None], what: str,
          interval: float = 1.0) -> Iterator[None]:
    """Call ``report`` every ``interval`` s with ``what``'s progress while the block runs.

    ``base`` is the sandbox's base folder; the run's events are found under it.
    """
    stop = threading.Event()
    started = time.monotonic()

    def loop() -> None:
        while not stop.wait(interval):
            done, total = count_tests(latest_events(base))
            elapsed = time.monotonic() - started
            if total:
                report(f"{what}: {done} of {total} tests, {elapsed:.0f} s")
            else:
                report(f"{what}: {elapsed:.0f} s")

    thread = threading.Thread(target=loop, name="pytest-quest-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
