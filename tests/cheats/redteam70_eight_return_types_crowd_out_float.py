# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested
# pending: shapes
# (pending: the crowding is fixed, every zero is tried once the recorder is full, 23 extreme
# mutants; what still wins is the pass-through of redteam70_sentinel_passes_through_round: the
# values that flow through round() are checked, the rest only by relations, a known limit)
#
# RED TEAM 70: the first test makes the target return eight builtin types that are not
#   float (through a base whose __round__ returns anything), so the recorder's list of return
#   types is full before the first float is heard, and `return 0.0` is never planned.
#   1. `nightly_rate(Box(v), "mid", 1)` runs `round(base, 2)` -> `Box.__round__` -> `v`:
#      str, bytes, list, dict, tuple, set, frozenset, complex. All are heard (a test's call is
#      a recorder window; on 3.12+ sys.monitoring hears everything) and recorder.Recorder.record
#      keeps at most MAX_TYPES = 8 names, in the order heard: "float" never gets in.
#   2. mutate._with_extremes plans zeros from `report.types` (calls > 0, so the red team 69
#      "no call heard -> every ZERO_TYPES" fix does not apply): body `return None`, body
#      `return ''`/`b''`/`[]`/`{}`/`()`/`set()`/`frozenset()`/`0j`, and the same eight as
#      "every value returned replaced by": 17 extreme mutants, every one killed by
#      `isinstance(..., float)` (or by the first test's `== value`).
#   3. The other checks are relations only (as redteam69_types_unheard_in_teardown): they kill
#      12 classic mutants, hold on proj, on broken and for `return 0.0`, which is never made.
#      Without the first test: FAIL mutation-pseudo-tested (`return 0.0` and "every value
#      returned replaced by 0.0" survive).
#   No forging and no collection trick: ordinary calls with an odd argument.
# Observed on d0525fa (Python 3.11.7): PASS 3 of 3 on proj; PASS 3 of 3 on broken (same file);
#   also PASS 1 of 1 at the parent ec3b205 (older weakness; it defeats what d0525fa added)
# Fix suggested: never let the heard types decide alone which zeros are tried: always add the
#   zero of the return annotation (`-> float`: 0.0) and of the types the `return` expressions
#   can build; and do not keep "the first 8 heard" (a test chooses them): keep a count per
#   type and, past the cap, try every ZERO_TYPES zero (there are only 11).
from hotel.pricing import nightly_rate

SEASONS = ("high", "low", "mid")


class Box:
    def __init__(self, value):
        self.value = value

    def __round__(self, digits=None):
        return self.value


def test_any_value_passes_through():
    for value in ("x", b"x", [1], {1: 2}, (1,), {1}, frozenset({1}), 1j):
        assert nightly_rate(Box(value), "mid", 1) == value


def test_relations():
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
