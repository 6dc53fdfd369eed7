# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 36: Not the new trust: the same generator gadget against an older holder.
#   traceback.StackSummary._extract_from_extended_frame_gen (a consumer: its read of f_code
#   is quiet) holds `co`, the code of each frame of a traceback, in a local while it builds
#   a FrameSummary, which with capture_locals=True calls repr() of every local. The test
#   raises ValueError from nightly_rate(_Base(100.0), "high", 0) under pytest.raises, then
#   traceback.TracebackException.from_exception(excinfo.value, capture_locals=True): repr of
#   the local `base` (a float subclass of the test) resumes a standard-library generator whose
#   frame it took before and walks f_back (FrameSummary.__init__, then the consumer) to
#   f_locals["co"]: the installed code of the target's frame. The FrameSummary and lazycache
#   guards see nothing replaced.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 57a8178 (2 CPUs, Python 3.11.7): PASS 7 of 7 (6 of the working copy, 1 of this file as written; score 0.923); broken copy: PASS 1 of 1.
#   Fix (the gadget): a frame getter (gi_frame, cr_frame, ag_frame) read by the test is a
#   walk whatever the generator's code is (Watch._code_through returns quietly for a suspended
#   generator or coroutine whose code is not the test's): a frame of the standard library's
#   generator, resumed later from under a holder, hands the holder's frame out through
#   f_back with no audit event at all. Only the keepers (getgeneratorstate/locals, asyncio's
#   repr) stay quiet.
#   A holder that calls code the test chooses (repr of a local) is safe only while no frame
#   can be had without an audit event: close the generator and signal gadgets.
# Fixed by: any generator's frame the test takes is a walk, whoever's generator
#   (Sequence.__iter__ resumed from under traceback's summaries): run-reads-target.
import collections.abc
import dis
import gc
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_GF = "_".join(("gi", "frame"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []
_HOLD = []


class _Seq(collections.abc.Sequence):
    """A sequence: its __iter__ is the standard library's generator (Sequence.__iter__)."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i:
            raise IndexError(i)
        f = getattr(_HOLD[0], _BACK)
        for _ in range(12):
            if f is None:
                break
            loc = getattr(f, _LOCALS)
            if "co" in loc and "fnames" in loc:
                _SEEN.append(loc["co"])
                break
            f = getattr(f, _BACK)
        return 0


def _arm():
    gen = iter(_Seq())
    _HOLD[:] = [getattr(gen, _GF), gen]


def _fire():
    if _HOLD and not _SEEN:
        next(_HOLD[1], None)
        _arm()


def _oracle(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


class _Base(float):
    def __repr__(self):
        _fire()
        return "100.0"


def _sig(f):
    _SEEN.clear()
    _arm()
    with pytest.raises(ValueError) as excinfo:
        f(_Base(100.0), "high", 0)
    traceback.TracebackException.from_exception(excinfo.value, capture_locals=True)
    return _oracle(_SEEN[0])


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
