# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 28: the same gadget as redteam28_signature_frame_locals_through_logging_currentframe
#   with nothing but pytest's public API: a Parameter subclass whose __init__ raises, called
#   by inspect._signature_from_function (a trusted reader of __code__: Readers.signature)
#   through Signature.from_callable of a Signature subclass; pytest.raises catches it, and
#   `excinfo.traceback[i].locals["func_code"]` (TracebackEntry.locals -> Frame.f_locals) of the
#   _signature_from_function entry is the installed code object. pytest reads tb_frame for the
#   test (TracebackEntry.frame): _walk_by_test judges the pytest frame, not the test (pytest is
#   "only for its text getters" in _code_through, but not in _walk_by_test), and f_locals
#   raises no audit event. No frame attribute, no getattr, no exec in the file.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8, 12/15 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: inspect.signature's read of __code__ is no longer excused, and pytest reading a
#   frame for the test (TracebackEntry.locals, not a text getter) is the test's walk: FAIL run-
#   reads-target.
# Suggested fix: (1) tb_frame read by pytest for the test is the test's read (apply
#   _for_itself's keeper rule in _walk_by_test too; TracebackEntry.locals/frame are not
#   keepers); (2) a trusted __code__ reader must not call code of the test while holding the
#   code in a local: trust _signature_from_function only when its `cls` is inspect.Signature
#   (or give inspect.signature's answer from the judge's copy); (3) static: a subclass of
#   inspect.Parameter/Signature with _parameter_cls in a quest test is suspicious.
import dis
import inspect

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Param(inspect.Parameter):
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise _Stop(args[0])


class _Sig(inspect.Signature):
    __slots__ = ()
    _parameter_cls = _Param


def _sig(f):
    with pytest.raises(_Stop) as excinfo:
        _Sig.from_callable(f)
    code = next(e.locals["func_code"] for e in excinfo.traceback if "func_code" in e.locals)
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
