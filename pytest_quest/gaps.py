"""The pause before each wave of forked runs, drawn at random as wide as the test code runs.

Why it exists: runs go in waves (:class:`pytest_quest.forkrun.ForkRuns`), and a wave starts
as soon as every run of the one before it has ended. A run that ends at a moment of its own
choosing (it sleeps until the wall clock reads some phase) therefore sets when the next wave
starts, and every run can read the clock as it starts: the phase carries a value from one
wave to the next, and from the first wave, where the clean run ``M`` is, to all the others
(red team 25 passed the digest of its answers along that chain and let each run pass only
when its own digest matched). The clock cannot be hidden from a run (the vDSO reads it
without a system call), so the start of the next wave must not depend on the end of the
last: before each wave the judge waits a pause drawn afresh from the system's random source.

How wide: to choose a phase, a run must wait, in its test code, up to one period of the
phase. A pause uniform over at least that wait moves the next start across the whole period,
and the pauses of later waves add up, so the phase is lost within a hop or two. The width is
the longest stretch a clean run has run so far, or any run of the wave just ended, or the
judge between the last run's end and the pause (reaping, emptying the page cache: a run can
have the kernel read files ahead into the cache and leave at once), whichever is longer. A
run's stretch goes from the start of its test code to the later of its reaping and the
judge's handling of its answer, whose size the run chose (red team 26 padded it). The clean
runs' stretches because the value worth relaying comes from them (a relay that keeps clean
runs quick and lets only the others wait is caught by the wave's), the wave's own because a
run that waited to re-set the phase widens the very next pause.
The measuring run counts for the next pause only: it comes after every classic mutant, so
what its time could tell reaches no run a relay could fool, and traced it is the slowest.
Honest runs take about as long as each other, so the price is half the test code's own time
per wave on average (measured in docs/mutation.md); runs that do not run test code add
nothing.

Not seeded by the schedule's seed: that one is the same for the same files, and known to
anyone who can read the project's key (:mod:`pytest_quest.schedule`); a pause an agent could
predict it could subtract. Timing never decides an honest test's outcome, so the verdict
stays the same for the same files.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

__all__ = ["Gaps"]

#: The pause's width, as a multiple of the longest stretch of test code seen.
SCALE = 1.0


class Gaps:
    """What the waves so far ran, and the pause before the next one."""

    def __init__(self, scale: float = SCALE, sleep: Callable[[float], None] = time.sleep,
                 draw: Callable[[float, float], float] | None = None) -> None:
        self.scale = scale
        self._sleep = sleep
        self._draw = draw if draw is not None else random.SystemRandom().uniform
        #: The longest test code of any clean run so far, in seconds.
        self.clean = 0.0
        #: The longest test code of any run ended since the last pause.
        self.wave = 0.0
        #: Seconds paused in all.
        self.total = 0.0

    def ended(self, clean: bool, seconds: float) -> None:
        """A run ran ``seconds`` of test code (from its start record to its end)."""
        seconds = max(0.0, seconds)
        self.wave = max(self.wave, seconds)
        if clean:
            self.clean = max(self.clean, seconds)

    def width(self) -> float:
        """How wide the next pause may be."""
        return self.scale * max(self.clean, self.wave)

    def pause(self) -> float:
        """Wait before the next wave; the seconds waited."""
        width = self.width()
        self.wave = 0.0
        if width <= 0.0:
            return 0.0
        seconds = self._draw(0.0, width)
        self._sleep(seconds)
        self.total += seconds
        return seconds
