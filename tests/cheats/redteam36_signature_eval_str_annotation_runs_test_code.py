# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-target-replaced|static-reflective-access
#
# RED TEAM 36: The plain call inspect.signature(nightly_rate, eval_str=True, locals={...}): the test puts
#   a string annotation on the target (monkeypatch.setitem(nightly_rate.__annotations__,
#   "base", "_hook()"), undone after; static-target-replaced does not see a change of the
#   target's annotations dict), and get_annotations(eval_str=True), called by the holder with
#   the installed code in `func_code`, eval()s it: the test's _hook runs under the holder
#   (eval's compile is under "<string>", no finding), resumes the standard library's
#   generator whose frame it took before, and walks f_back to the holder's f_locals.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 57a8178 (2 CPUs, Python 3.11.7): PASS 7 of 7 (6 of the working copy, 1 of this file as written; score 0.8); broken copy: PASS 1 of 1.
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
#   Static: a write into the target's __annotations__ (setitem, update, item assignment)
#   could be static-target-replaced like an attribute assignment.
# Fixed by: inspect.signature's read of __code__ counts again, and any generator's frame the
#   test takes is a walk: run-reads-target.
import collections.abc
import dis
import gc
import inspect

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
            if "func_code" in loc:
                _SEEN.append(loc["func_code"])
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


def _hook():
    _fire()
    return float


def _sig(f, monkeypatch):
    _SEEN.clear()
    _arm()
    with monkeypatch.context() as patch:
        patch.setitem(f.__annotations__, "base", "_hook()")
        inspect.signature(f, eval_str=True, locals={"_hook": _hook})
    return _oracle(_SEEN[0])


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate, monkeypatch) == EXPECTED
