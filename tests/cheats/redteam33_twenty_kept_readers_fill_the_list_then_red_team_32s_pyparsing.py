# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 33, finding 05: Watch._kept is capped at MAX_READS (20) and fails open. In
#   _code_through, a library's read of the target's f_code is "kept" only
#   `elif len(self._kept) < MAX_READS`; past 20 the read is neither kept nor a finding.
#   - 25 warm-up calls: the target raises from a plain object's __le__, and pip's vendored
#     pyparsing ParseBaseException.explain_exception(exc, 2) reads `code = frm.f_code` of the
#     target's frame each time: 20 kept frames, then nothing.
#   - then red team 32's finding 01 unchanged (the test's __class__ property, called by
#     pyparsing's isinstance with `code` in its locals, takes rich's
#     Console._caller_frame_info(depth) and picks `code` out of explain_exception's f_locals):
#     the holder that a239ffb made of pyparsing is never recorded.
# Observed on a239ffb (2 CPUs, Python 3.11.7): PASS 4/4 (0.923 where shown); broken project
#   PASS 1/1; control (red team 32's a01 as it was, no warm-up) FAIL run-reads-target "(sys.
#   _getframe) while a reader held code" 1/1.
# Fix: no silent cap: past the limit, a library read of the target's code is a finding (FAIL)
#   like the other caps (MAX_MADE), or keep readers in a set without a limit (they are frames of
#   one run; a run that makes thousands is suspicious in itself).
# Fixed by: past the number of modules' reads the watch keeps (200), a read of the
#   target's code is a finding (the list fails closed).
import dis
import linecache
import os

import pytest
from pyparsing.exceptions import ParseBaseException
from rich.console import Console
import hotel.pricing as pricing
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Plain:

    def __le__(self, other):
        raise _Stop("stop")


class _Nights:
    """Raises in the target's first comparison; pyparsing later asks for its class."""

    seen = []

    def __le__(self, other):
        raise _Stop("stop")

    @property
    def __class__(self):
        for depth in (1, 2, 3):  # abc's __instancecheck__, then explain_exception
            here = Console._caller_frame_info(depth)[2]
            if "code" in here:
                _Nights.seen.append(here["code"])
        return _Nights


def _sig(f):
    for name in {pricing.__file__, os.path.realpath(pricing.__file__)}:
        linecache.cache[name] = (1, None, ["\n"], name)  # no read of the file
    for _ in range(25):  # every explain_exception of the target's frame is one more "kept" reader
        try:
            f(100.0, "high", _Plain())
        except _Stop as e:
            ParseBaseException.explain_exception(e, 2)
    try:
        f(100.0, "high", _Nights())
    except _Stop as e:
        exc = e
    ParseBaseException.explain_exception(exc, 2)
    code = next(c for c in _Nights.seen if c.co_name == f.__name__)
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
