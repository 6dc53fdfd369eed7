# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|run-flaky|mutation-machinery-detected
# pending: harness
# Issue 13, run-distinguishers: the clock. Every run notes when it started; the runs that start
# after the fifth start time (the mutants, in today's fixed order) fail.
import os
import tempfile
import time
import pytest
from hotel.pricing import nightly_rate

CLOCK = os.path.join(tempfile.gettempdir(), "quest-clock")
_STARTED = {}


def _mutant_run():
    pid = os.getpid()
    if pid not in _STARTED:
        _STARTED[pid] = time.monotonic_ns()
        with open(CLOCK, "a", encoding="utf-8") as handle:
            handle.write(f"{_STARTED[pid]}\n")
    with open(CLOCK, encoding="utf-8") as handle:
        starts = sorted(int(line) for line in handle)
    return starts.index(_STARTED[pid]) >= 5


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    rate = nightly_rate(100.0, season, nights)
    assert rate > 0
    assert not _mutant_run()


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
