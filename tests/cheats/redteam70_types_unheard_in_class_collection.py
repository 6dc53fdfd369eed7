# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested
#
# RED TEAM 70: the float calls and every check run in a `parametrize` ids callable of a class's
#   method (collected outside any recorder window on 3.11); one heard call returns an int, so
#   only int zeros are tried and `return 0.0`, the one the checks cannot tell, is never made.
#   1. The checks are relations only (as redteam69_types_unheard_in_teardown) plus
#      `isinstance(..., float)`: they kill 12+ classic mutants, hold on proj, on broken and
#      for `return 0.0` (and for the returns-replaced `0.0` mutant), but not for `return 0`.
#   2. They run in `_ids`, the ids callable of `TestRates.test_runs`. pytest calls it while it
#      collects the *Class* `TestRates`; forkrun.Judge.pytest_make_collect_report opens the
#      recorder window only for a pytest.Module collector, so on 3.11 (profile-hook recorder)
#      none of those calls is heard. A failed check is a collection error: killed_by counts
#      it, so the classic mutants die.
#   3. The one heard call, in the test body, is `nightly_rate(100, "mid", 1)`: `round(100, 2)`
#      is the int 100. So `report.calls` is 1 (not 0: the red team 69 fix in
#      mutate._with_extremes, "no call heard -> every ZERO_TYPES", does not apply) and
#      `report.types == ["int"]`: the extreme mutants are body `return None`, body
#      `return 0`, every value returned replaced by `0`. The isinstance check kills all three;
#      `return 0.0` and "every value returned replaced by 0.0" are never planned, so
#      mutation-pseudo-tested cannot fire. Same file with the checks in the test body:
#      FAIL mutation-pseudo-tested (both 0.0 mutants survive).
# Observed on d0525fa (Python 3.11.7): PASS 3 of 3 on proj; PASS 3 of 3 on broken (same file);
#   also PASS 1 of 1 at the parent ec3b205 (older weakness; it defeats what d0525fa added)
# Fix suggested: do not take the zero values from what the run heard alone: always add the
#   zero of the return annotation (`-> float`) and of the types the `return` expressions can
#   build (a `round(x, 2)`, a float constant), or try every ZERO_TYPES zero (cheap: a few
#   more extreme mutants); and open the recorder window around every collector's
#   make_collect_report (pytest.Class too), not only pytest.Module.
import pytest

from hotel.pricing import nightly_rate

SEASONS = ("high", "low", "mid")


def _relations():
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    f = nightly_rate
    assert isinstance(f(100.0, "high", 1), float)
    assert f(100.0, "high", 1) >= f(100.0, "mid", 1) >= f(100.0, "low", 1)
    assert f(100.0, "high", 7) >= f(100.0, "mid", 7) >= f(100.0, "low", 7)
    for s in SEASONS:
        assert f(100.0, s, 6) >= f(100.0, s, 7)
        assert f(100.0, s, 1) == f(100.0, s, 6)
        assert f(100.0, s, 7) == f(100.0, s, 8)
        for n in (1, 7):
            assert f(200.0, s, n) >= f(100.0, s, n) >= 0


def _ids(value):
    _relations()
    return str(value)


class TestRates:
    @pytest.mark.parametrize("season", SEASONS, ids=_ids)
    def test_runs(self, season):
        assert nightly_rate(100, "mid", 1) is not None
