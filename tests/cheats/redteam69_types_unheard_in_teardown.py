# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested
#
# RED TEAM 69 (side finding, not from c8d0c49): a pseudo-tested file whose every check holds
#   for `return 0.0` calls the target only in a fixture's teardown, where the 3.11 recorder
#   does not listen, so no `return 0.0` extreme mutant is ever made.
#   1. The checks are relations only (as redteam69_extreme_rerun_without_control): they kill
#      12+ of 20 classic mutants and hold on proj, on broken and for `return 0.0`.
#   2. They run in the teardown of the yield fixture `checked`. recorder.Recorder windows are
#      opened by forkrun's pytest_runtest_call / pytest_fixture_setup (setup only) and the
#      collection hook, never by a fixture's teardown: the measuring run records no call and
#      no return type (`types` = [], `calls` = 0 in import mode, which no rule reads).
#   3. mutate._with_extremes makes extreme mutants from `given.report.types`: only
#      `return None` (killed by the first comparison, a TypeError). `return 0.0`, the one the
#      checks cannot tell, is never planned, so mutation-pseudo-tested cannot fire.
#   A teardown failure is a failing report, so the classic mutants still die there.
#   (docs/security.md lists "a forged types list changes which extreme mutants are made" as a
#   residual; this is the same without forging anything, and it ends in PASS, where
#   recorder.py says an unheard call "can only make the count smaller (a REVIEW, never a PASS)".)
# Observed on c8d0c49 (Python 3.11.7): PASS 4 of 4 on proj; PASS 4 of 4 on broken (same file)
# Fix suggested: do not take the zero values from what the run heard alone: when the body ran
#   (coverage) but the recorder heard no call or no return (import mode: `calls == 0`), or in
#   every case, also plan the zero values of the target's return annotation and of the types
#   of its `return` expressions' constants (float here: 0.0); and open a recorder window around
#   fixture teardown (pytest_fixture_post_finalizer / runtest_teardown) as around setup.
import pytest

from hotel.pricing import nightly_rate

SEASONS = ("high", "low", "mid")


def _relations():
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


@pytest.fixture
def checked():
    yield SEASONS
    _relations()


def test_relations(checked):
    assert checked == SEASONS
