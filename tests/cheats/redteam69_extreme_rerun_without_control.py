# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-flaky|mutation-pseudo-tested
#
# RED TEAM 69: a pseudo-tested file (every check holds for `return 0.0`) kills the extreme
#   mutant in its re-run with every test, which is the only run of that re-run and has no clean
#   control beside it.
#   1. test_relations checks relations only (ordering of seasons, long stay <= short stay,
#      monotone in base, constant within a stay band), no expected value; the body replaced by
#      `return 0.0` satisfies all of them (without step 3: FAIL mutation-pseudo-tested, E1
#      survives), and they kill 12+ of the 20 classic mutants (score 0.857, on proj and broken).
#      It calls nightly_rate(100, "high", 0) in a try/except so line 7 runs: every reach check
#      R* dies for real in the selected reach phase.
#   2. test_a_setup_marker names nothing that reaches the target, so selection.unreachable_tests
#      leaves it out of the first schedule and (new at c8d0c49) out of the extreme/reach phase
#      (mutate._after_measuring). It runs first in the file and appends to SEEN: SEEN is
#      non-empty exactly in runs of every test (the measuring run and the re-runs).
#   3. In the extreme/reach phase with the selected tests, R* die, T* and C pass, E0 dies and E1
#      (`return 0.0`) survives. _after_measuring re-runs the survivors with every test; with no
#      reach check among them (pairs empty) it adds no twin and NO clean control: the re-run is
#      [E1] alone. test_relations fails when SEEN is set and the run is not the measuring one
#      (3.11: the recorder's profile hook is on inside a kept test's call in the measuring run;
#      4 len() calls per loop cost ~16x an addition there, ~2x elsewhere: red team 15's tell,
#      which docs say "no longer matters"). So E1 is killed in its re-run and counts as killed.
#   Before c8d0c49 the E mutants ran with every test beside a clean control C (reach checks
#   exist here), so failing in every run of every test but the measuring one failed C.
# Observed on c8d0c49 (Python 3.11.7): PASS 7 of 7 on proj; PASS 7 of 7 on broken (same file); at
#   c8d0c49^ (a venv importing it) FAIL run-flaky 3 of 3, as the header says. (An earlier
#   version with a weaker timing tell lost 1 of 4 on proj: the measuring run was not recognised.)
# Fix suggested: in _after_measuring always put a clean control (run with every test) into the
#   re-run when anything is re-run (`*(["C"] if again else [])`, not only when a reach check
#   is re-run), and judge its failure like any clean control (run-flaky / cut): a run of every
#   test after the measuring run must not be told apart from a clean one. Better: a re-run of
#   E mutants alone is a schedule of mutants only; give it the same shape as the first phase.
import time

from hotel.pricing import nightly_rate

SEASONS = ("high", "low", "mid")
SEEN = []


def test_a_setup_marker():
    SEEN.append(1)
    assert SEEN


def _hooked():
    x = [1]
    y = 0
    calls, plain = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(3000):
            len(x); len(x); len(x); len(x)
        t1 = time.perf_counter()
        for _ in range(3000):
            y = y + 1
        t2 = time.perf_counter()
        calls.append(t1 - t0)
        plain.append(t2 - t1)
    return min(calls) > 6 * min(plain)


def test_relations():
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    f = nightly_rate
    assert f(100.0, "high", 1) >= f(100.0, "mid", 1) >= f(100.0, "low", 1)
    assert f(100.0, "high", 7) >= f(100.0, "mid", 7) >= f(100.0, "low", 7)
    for s in SEASONS:
        assert f(100.0, s, 6) >= f(100.0, s, 7)
        assert f(100.0, s, 1) == f(100.0, s, 6)
        assert f(100.0, s, 7) == f(100.0, s, 8)
        for n in (1, 7):
            assert f(200.0, s, n) >= f(100.0, s, n) >= 0
    if SEEN and not _hooked():
        assert SEEN == []
