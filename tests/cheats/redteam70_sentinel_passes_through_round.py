# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested
# pending: shapes
# (pending: a known limit, not built: value-free checks of the shape of a result, docs/security.md)
#
# RED TEAM 70: every extreme mutant (body replaced, and red team 69's new "every value
#   returned replaced by a zero, the rest kept") is killed by one identity check on a sentinel
#   that passes through the function, so mutation-pseudo-tested never fires, whatever zeros
#   are planned; the only other checks are relations.
#   1. `nightly_rate(box, "mid", 1)` with `box` an object of the test whose `__round__`
#      returns itself: `rate = base`, then `return round(rate, 2)` returns `box`. `assert ...
#      is box` holds for the shipped code and for broken (season "mid" is untouched).
#   2. mutants._extreme_bodies and mutants._zero_returns replace what is returned by None or a
#      zero (0.0 here: the float the relations return is heard first, so unlike
#      redteam70_eight_return_types_crowd_out_float the 0.0 mutants ARE planned): every one of
#      them returns something that is not `box`, so the identity check kills all three
#      (`extreme_killed 3/3`). The check states no value of the function: it only says "the
#      argument comes out", which any `return <expression of base>` satisfies.
#   3. The rest is relations only (as redteam69_types_unheard_in_teardown): 12 classic
#      mutants killed, true on proj, on broken and for `return 0.0`. Without the last test:
#      FAIL mutation-pseudo-tested.
#   Not red team 28's operation record (decided allowed): nothing is recorded, one identity.
# Observed on d0525fa (Python 3.11.7): PASS 3 of 3 on proj; PASS 3 of 3 on broken (same file);
#   also PASS 1 of 1 at the parent ec3b205 (older weakness; it defeats what d0525fa added)
# Fix suggested: an extreme mutant is only "killed" by a test that fails on it *with the
#   values the target returned as builtin numbers/strings*: judge the pseudo-testing check
#   only over calls whose return type was a builtin with a zero (the recorder knows: the
#   type "?" calls are the sentinel's), e.g. run the extreme mutants with a keep-the-value
#   wrapper that passes non-builtin returns through unchanged (`return v if type(v) is not
#   builtin else zero`), so a sentinel that flows out cannot kill it; or a static/REVIEW rule
#   for a target argument whose class defines __round__/__float__/__index__ returning itself
#   where the parameter is annotated float/int.
from hotel.pricing import nightly_rate

SEASONS = ("high", "low", "mid")


class Box:
    def __round__(self, digits=None):
        return self


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


def test_the_base_flows_out():
    box = Box()
    assert nightly_rate(box, "mid", 1) is box
