# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|run-flaky|mutation-machinery-detected
# pending: harness
# Issue 13, run-distinguishers: the measured run and the reruns share the pytest process; the
# mutation stage forks one child per run (baseline, null mutant, mutants). The third process
# id this test ever sees is the first mutant.
import os
import tempfile
import pytest
from hotel.pricing import nightly_rate

SEEN = os.path.join(tempfile.gettempdir(), "quest-pids")


def _mutant_run():
    with open(SEEN, "a+", encoding="utf-8") as handle:
        handle.seek(0)
        pids = handle.read().split()
        me = str(os.getpid())
        if me not in pids:
            handle.write(me + "\n")
            pids.append(me)
    return pids.index(me) >= 3


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    rate = nightly_rate(100.0, season, nights)
    assert rate > 0
    assert not _mutant_run()


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
