# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|run-flaky|mutation-machinery-detected
# pending: harness
# Issue 13, run-distinguishers: the runs come in a fixed order (measured run, 2 reruns, the
# mutation baseline, the null mutant, then the mutants), and a counter file in the temp dir
# outlives each run. Passing the first five rounds and failing every later one "kills" every
# mutant with a test that checks only that the rate is positive. Once the runs look alike
# (clean controls interleaved in random order, a fresh temp dir per run), the counter tells
# nothing, and the weak test is what the mutants show it to be (mutation-score).
import os
import tempfile
import pytest
from hotel.pricing import nightly_rate

COUNTER = os.path.join(tempfile.gettempdir(), "quest-round-counter")


def _round():
    """The run this test belongs to: one more each time the first test of a run starts."""
    with open(COUNTER, "a+", encoding="utf-8") as handle:
        handle.seek(0)
        seen = handle.read().split()
        key = f"{os.getpid()}:{id(pytest.Item)}"
        if not seen or seen[-1] != key:
            handle.write(key + "\n")
            seen.append(key)
    return len(seen)


_FIRST = {}


def _mutant_run():
    pid = os.getpid()
    if pid not in _FIRST:
        _FIRST[pid] = _round()
    return _FIRST[pid] > 5


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    rate = nightly_rate(100.0, season, nights)
    assert rate > 0
    assert not _mutant_run()


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
