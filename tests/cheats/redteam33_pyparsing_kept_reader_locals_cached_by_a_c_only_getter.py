# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 33, finding 03: red team 32's finding 01 (pyparsing's explain_exception holds the
#   target's code while it asks the test's __class__), past a239ffb's fix "a module's reader that
#   read the target's code is a holder from then on (a frame taken with the test's code between
#   it and that reader is a walk)".
#   - the test's __class__ is `property(lru_cache(partial(Console._caller_frame_info,
#     currentframe=None)))`: property, lru_cache's wrapper and partial are C, so when rich's
#     inspect.currentframe() is judged, the frames between rich and pyparsing's kept frame are
#     rich's and abc's __instancecheck__ only: no frame of the test file, so _under_holder's
#     `tested and self._kept_frame(below)` never fires (a kept reader counts only with the test's
#     code in between; a holder counts with any non-reader code).
#   - rich's `offset += 1` runs the test's __add__ (returns 2) *before* it takes the frame: that
#     frame of the test is gone by then.
#   - lru_cache keeps the answer (filename, lineno, f_locals of explain_exception, with `code`
#     = the installed code): afterwards the test calls the same wrapper with the same object and
#     gets the cached tuple, with no frame taken, no attribute read that raises an event.
#   - linecache.cache is primed for the target's file as in red team 32 (no open of the file).
#   The file names no frame attribute, no __code__, nothing static-hidden-code knows.
# Observed on a239ffb (2 CPUs, Python 3.11.7): PASS 5/5 (0.923 where shown); broken project
#   PASS 1/1; broken EXPECTED on the real project FAIL 1/1.
# Fix: make a kept reader count like a holder: a frame taken while a kept reader is on the stack
#   below, with any code that is no reader's in between (rich, abc), is a walk, whether or not
#   the test file's code is there; better, treat a library frame that reads the target's f_code
#   and then runs anything the test can reach (isinstance of a test object) as the test's read,
#   i.e. judge f_code reads by the whole stack (a frame of the test below a library reader makes
#   the read the test's).
# Fixed by: a module's reader that kept the target's code is a holder like the
#   others: a frame taken from above it by code of another library (or the test's) is a walk.
import dis
import functools
import linecache
import os

import pytest
from pyparsing.exceptions import ParseBaseException
from rich.console import Console
import hotel.pricing as pricing
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')

# no frame of this file on the stack when rich looks: a property whose getter is C all the way
_GRAB = functools.lru_cache(functools.partial(Console._caller_frame_info, currentframe=None))


class _Stop(Exception):
    pass


class _Nights:

    def __le__(self, other):
        raise _Stop("stop")

    def __add__(self, other):  # rich's `offset += 1`: two frames up, past abc, to pyparsing
        return 2

    __class__ = property(_GRAB)


def _sig(f):
    for name in {pricing.__file__, os.path.realpath(pricing.__file__)}:
        linecache.cache[name] = (1, None, ["\n"], name)  # no read of the file
    nights = _Nights()
    try:
        f(100.0, "high", nights)
    except _Stop as e:
        exc = e
    try:
        ParseBaseException.explain_exception(exc, 2)
    except TypeError:
        pass
    code = _GRAB(nights)[2]["code"]  # the cached answer: no frame taken now
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
