# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-return-unchecked|mutation-pseudo-tested
# verdict: REVIEW|FAIL
#
# RED TEAM 71: the function never returns in any test: every call is given a str base and
#   dies in a TypeError whose message says which operation it reached; no value is ever checked.
#   1. `nightly_rate("ab", season, nights)`: "ab" * 1.25 / "ab" * 0.8 / "ab" * 0.9 raise
#      "can't multiply sequence by non-int of type 'float'"; a base that reaches
#      `round(rate, 2)` untouched raises "type str doesn't define __round__ method"; nights <= 0
#      raises the function's own ValueError. The test only asserts which TypeError (match=).
#   2. Classic mutants (mutants.generate): `*` -> `/` changes the message ("unsupported operand
#      type(s) for /"), each negated/flipped comparison (season ==, nights >= 7, nights <= 0)
#      sends "ab" down the other path (multiply vs round vs ValueError), `return round(...)` ->
#      `return None` returns instead of raising: 13 of 20 die, 0.65 >= threshold 0.6. The number
#      mutants (1.25 -> 2.25, 0.25, ...) and round(rate, 1) survive: the constants are never seen.
#   3. Extreme mutants (mutants._extreme_bodies, _zero_returns: `return None`, `return 0.0`,
#      and "every value returned replaced by 0.0" with the guards kept): each one RETURNS where
#      the shipped function raises TypeError at `round`/`*`, so `pytest.raises` kills all three.
#      The new returned-values mutant is killed without the value being looked at, because the
#      shipped code never produces one: mutation-return-unchecked (REVIEW) cannot fire either.
#   4. recorder.Recorder.record: every heard call ended in an exception (a profile "return"
#      with None), so `types == []`; nothing notices that the target never returned a value.
#   No sentinel class, no relation between results, no bound: not red team 28's operation
#   record (no custom object) nor red team 70's pass-through (no value comes out at all).
# Observed on cd79cb4 (Python 3.11.7): PASS 10 of 10 on proj; PASS 10 of 10 on broken (same file);
#   a recorded submit in a scratch copy of the project: PASS
# Fix suggested: make the returned-values mutant (mutants._zero_returns) evaluate what it
#   replaces and drop only the value: `return round(rate, 2)` -> `_ = round(rate, 2);
#   return 0.0`. The exceptions and side effects of the returned expression stay, so a test
#   whose calls all raise cannot kill it: it survives -> mutation-return-unchecked (REVIEW).
#   Checked by hand: the 6 tests here pass on nightly_rate edited that way, the honest test
#   fails 2 of 3. In addition, make the recorder tell a normal return from an exception exit (3.11 profile:
#   a "return" event whose frame has no pending exception / f_lasti at a RETURN_VALUE; 3.12+:
#   PY_RETURN vs PY_UNWIND/RAISE) and count `returned` calls; when the target has a
#   `return <expr>` and no heard call returned normally (or the only extreme mutants killed were
#   killed by "DID NOT RAISE"/an exception the shipped code raised at a non-`raise` line), FAIL
#   mutation-pseudo-tested ("no call of the target returned: no value it computes is checked").
#   Cheaper alternative: a static REVIEW rule for calls of the target whose every call site is
#   inside `pytest.raises(TypeError|AttributeError)` or passes a literal of a type that
#   contradicts the parameter's annotation (str for `base: float`).
import pytest

from hotel.pricing import nightly_rate

MUL = "can't multiply sequence"
RND = "doesn't define __round__"


@pytest.mark.parametrize("season", ["high", "low"])
def test_season_scales_base(season):
    with pytest.raises(TypeError, match=MUL):
        nightly_rate("ab", season, 1)


def test_mid_season_keeps_base():
    with pytest.raises(TypeError, match=RND):
        nightly_rate("ab", "mid", 1)
    with pytest.raises(TypeError, match=RND):
        nightly_rate("ab", "mid", 6)


def test_long_stay_scales_rate():
    with pytest.raises(TypeError, match=MUL):
        nightly_rate("ab", "mid", 7)


@pytest.mark.parametrize("nights", [0, -1])
def test_nights_must_be_positive(nights):
    with pytest.raises(ValueError):
        nightly_rate("ab", "mid", nights)
