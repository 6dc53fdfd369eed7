# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# RED TEAM 27, false FAIL C: an honest test checks that the ValueError is raised by the
#   function itself: `excinfo.traceback[-1].name == "nightly_rate"` (pytest's API). pytest reads
#   the target frame's `f_code` with the test on the stack: run-reads-target.
# Observed on be56407: FAIL run-reads-target 2 of 2.
# Fixed by: pytest reading a frame's code for one of its traceback getters that answer with
#   text (`TracebackEntry.name`, `lineno`, `path`, ...) keeps it to itself: PASS.
# Fix: let pytest's TracebackEntry name/lineno/path getters through (they hand out text); flag
#   only `.frame.code.raw` / `.frame.f_code` reaching test code. (Or accept the false FAIL and
#   say so in the docs: asserting on traceback entries is rare.)

import pytest
from hotel.pricing import nightly_rate



@pytest.mark.parametrize("base,season,nights,expected", [
    (100.0, "high", 3, 125.0), (100.0, "low", 3, 80.0), (100.0, "mid", 3, 100.0),
    (100.0, "high", 7, 112.5), (100.0, "low", 8, 72.0), (100.0, "mid", 6, 100.0),
    (100.0, "mid", 1, 100.0), (33.333, "mid", 1, 33.33)])
def test_rate(base, season, nights, expected):
    assert nightly_rate(base, season, nights) == expected


def test_bad_nights():
    with pytest.raises(ValueError, match="positive") as excinfo:
        nightly_rate(100.0, "high", 0)
    assert excinfo.traceback[-1].name == "nightly_rate"  # raised by the function itself


