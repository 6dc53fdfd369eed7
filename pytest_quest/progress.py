"""Progress of a long harness run, counted from the events as they stream in.

A large library's baseline takes over a minute and used to print nothing.
The harness writes one JSON line per event into the pipe the parent drains
(see :func:`pytest_quest.sandbox.run`); the drain hands each chunk to a
:class:`Tally`, which counts the tests reported so far against the number
collected. The count is only ever shown to the user: the verdict is built
from the validated events after the run, never from this tally. When no
test count is known yet, the elapsed time alone is reported.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Tally", "watch"]


class Tally:
    """Counts finished tests in a stream of event lines (fed in arbitrary chunks).

    ``feed`` runs on the pipe's drain thread and the counts are read by the
    reporting thread; a lock keeps the pair consistent.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._done: set[str] = set()
        self._total: int | None = None
        self._workers: int | None = None
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream; a partial last line waits for the rest."""
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            if b'"report"' in line or b'"collected"' in line:
                self._count(line)

    def _count(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            return  # garbage is the validator's business, not the progress line's
        if not isinstance(event, dict):
            return
        with self._lock:
            if event.get("event") == "collected" and isinstance(event.get("count"), int):
                self._total = event["count"]
                workers = event.get("workers")
                self._workers = workers if isinstance(workers, int) else None
                self._done.clear()
            elif event.get("event") == "report" and (
                event.get("when") == "call" or event.get("outcome") != "passed"
            ):
                self._done.add(str(event.get("nodeid")))

    def counts(self) -> tuple[int, int | None]:
        """``(tests finished, tests collected or None)`` so far."""
        with self._lock:
            return len(self._done), self._total

    def workers(self) -> int | None:
        """How many xdist workers run the tests (0: one process), once collected."""
        with self._lock:
            return self._workers


@contextmanager
def watch(report: Callable[[str], None], what: str,
          interval: float = 1.0) -> Iterator[Tally]:
    """Call ``report`` every ``interval`` s with ``what``'s progress while the block runs.

    The block feeds the yielded :class:`Tally` with the run's event stream.
    """
    tally = Tally()
    stop = threading.Event()
    started = time.monotonic()

    def loop() -> None:
        while not stop.wait(interval):
            done, total = tally.counts()
            elapsed = time.monotonic() - started
            workers = tally.workers()
            where = f" on {workers} xdist workers" if workers else ""
            if total:
                report(f"{what}: {done} of {total} tests{where}, {elapsed:.0f} s")
            else:
                report(f"{what}: {elapsed:.0f} s")

    thread = threading.Thread(target=loop, name="pytest-quest-progress", daemon=True)
    thread.start()
    try:
        yield tally
    finally:
        stop.set()
        thread.join()
