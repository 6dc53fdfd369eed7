# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#   KNOWN FALSE FAIL (docs/mutation.md): an honest test. inspect.signature reads the target's
#   __code__ and, with the code in a local, calls the Parameter class of the Signature class
#   it is given, which a test can subclass or patch (red team 28 read the local from there),
#   so its read counts. Kept so that excusing it again is a decision with a test.
#
# RED TEAM 27, false FAIL A: an honest test (values checked, every mutant killed by value)
#   that also checks the parameter names with `inspect.signature(nightly_rate)`. inspect reads
#   `func.__code__` (co_varnames, argcount); `_code_read` flags any `__code__` read of the
#   target by anything but `_OURS`, whoever the reader: run-reads-target, a FAIL.
# Observed on be56407: FAIL run-reads-target 2 of 2 (without test_parameters: PASS).
# Fixed by: inspect.signature's read of `__code__` is told by its code object
#   (`inspect._signature_from_function`, which hands the code to nothing): PASS.
# Fix: excuse inspect.signature's read (its code object in an `_OURS`-like set of readers that
#   hand out only names/defaults), or flag only reads whose result reaches test code.
import inspect
import pytest
from hotel.pricing import nightly_rate


def test_parameters():
    assert list(inspect.signature(nightly_rate).parameters) == ["base", "season", "nights"]


@pytest.mark.parametrize("base,season,nights,expected", [
    (100.0, "high", 3, 125.0), (100.0, "low", 3, 80.0), (100.0, "mid", 3, 100.0),
    (100.0, "high", 7, 112.5), (100.0, "low", 8, 72.0), (100.0, "mid", 6, 100.0),
    (100.0, "mid", 1, 100.0), (33.333, "mid", 1, 33.33)])
def test_rate(base, season, nights, expected):
    assert nightly_rate(base, season, nights) == expected


def test_bad_nights():
    with pytest.raises(ValueError, match="positive"):
        nightly_rate(100.0, "high", 0)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", -1)
