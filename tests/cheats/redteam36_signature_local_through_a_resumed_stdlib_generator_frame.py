# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 36: inspect._signature_from_function (trusted again by 57a8178: its read of __code__ is quiet)
#   keeps the installed code in its local `func_code` and calls cls._parameter_cls(...): a
#   Parameter subclass of the test (Signature.from_callable of a Signature subclass). The
#   holder rule (Watch._under_holder) only judges frames *taken* while the holder is on the
#   stack. This test takes no frame then: before the call it reads gi_frame of a suspended
#   generator of the standard library (iter() of a collections.abc.Sequence subclass: the
#   generator Sequence.__iter__, code file "<frozen _collections_abc>"), which _code_through
#   lets pass (not running, not the test's code, not the target's code). Parameter.__init__
#   resumes that generator with next(); Sequence.__iter__ calls the test's __getitem__, which
#   reads f_back of the frame it already holds (the caller of next(): Parameter.__init__),
#   f_back again (_signature_from_function) and f_locals["func_code"]: f_back and f_locals
#   raise no audit event. Attribute names built with str.join, so static sees no f_back.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py
#     (constants + COMPARE_OP/BINARY_OP, the null mutant's probe left out). No value checked.
# Observed on 57a8178 (2 CPUs, Python 3.11.7): PASS 7 of 7 (6 of the working copy, 1 of this file as written; score 0.8 to 0.923, 12 of
#   13-15 classic killed); broken copy (base * 1.5,
#   EXPECTED with 1.5): PASS 1 of 1. Control: the same file with the generator written in the
#   test (Sequence.__iter__ overridden) FAILs run-reads-target (gi_frame) 1 of 1.
#   Fix (the gadget): a frame getter (gi_frame, cr_frame, ag_frame) read by the test is a
#   walk whatever the generator's code is (Watch._code_through returns quietly for a suspended
#   generator or coroutine whose code is not the test's): a frame of the standard library's
#   generator, resumed later from under a holder, hands the holder's frame out through
#   f_back with no audit event at all. Only the keepers (getgeneratorstate/locals, asyncio's
#   repr) stay quiet.
#   Fix (the trust): no frame-local holder of the installed code can be made safe while a
#   Python-level signal handler can run at any bytecode boundary (see
#   redteam36_plain_signature_interrupted_by_an_interval_timer): answer inspect.signature of the
#   target without reading its code. The run sets the target's __signature__ (computed from
#   the original before test code), so _signature_from_callable returns before
#   _signature_from_function; the read of __code__ by _signature_from_function is a finding
#   again (red team 27's honest test PASSes, a test that deletes __signature__ FAILs).
# Fixed by: inspect.signature's read of __code__ counts again, and any generator's frame the
#   test takes is a walk (gi_frame of Sequence.__iter__): run-reads-target.
import collections.abc
import dis
import inspect

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_GF = "_".join(("gi", "frame"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


class _Seq(collections.abc.Sequence):
    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i:
            raise IndexError(i)
        f = getattr(_HOLD[0], _BACK)
        while f is not None:
            loc = getattr(f, _LOCALS)
            if "func_code" in loc:
                _SEEN.append(loc["func_code"])
                break
            f = getattr(f, _BACK)
        return 0


_HOLD = []


class _Param(inspect.Parameter):
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        if _HOLD and not _SEEN:
            next(_HOLD[1], None)
        super().__init__(*args, **kwargs)


class _Sig(inspect.Signature):
    __slots__ = ()
    _parameter_cls = _Param


def _sig(f):
    _SEEN.clear()
    gen = iter(_Seq())
    _HOLD[:] = [getattr(gen, _GF), gen]
    _Sig.from_callable(f)
    code = _SEEN[0]
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
