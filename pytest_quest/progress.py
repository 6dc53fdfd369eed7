"""Progress of a long harness run, read from the events it streams.

A large library's baseline takes over a minute and used to print nothing.
The harness flushes one JSON line per event as it goes, so a reader thread
can count the tests reported so far against the number collected, without
touching the run itself. When the events cannot be read (not written yet, or
written elsewhere), the elapsed time alone is still reported.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["count_tests", "watch"]


def count_tests(events_path: Path) -> tuple[int, int | None]:
    """``(tests finished, tests collected or None)`` from an events file written so far."""
    done: set[str] = set()
    total = None
    try:
        text = events_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0, None
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
def watch(events_path: Path, report: Callable[[str], None], what: str,
          interval: float = 1.0) -> Iterator[None]:
    """Call ``report`` every ``interval`` seconds with ``what``'s progress while the block runs."""
    stop = threading.Event()
    started = time.monotonic()

    def loop() -> None:
        while not stop.wait(interval):
            done, total = count_tests(events_path)
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
