# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reflective-access|run-reads-target|static-hidden-code
#
# RED TEAM 28: the 01 gadget (_signature_from_function holds func_code while calling the
#   test's Parameter subclass) with frames taken by gc.get_referents of the traceback: the
#   static stage bans `gc.get_referents` as a name, but `pkgutil.resolve_name("gc:get_
#   referents")` is a string it does not resolve; the watch flags gc.get_referents only when
#   its arguments are the target, its code, or a frame/generator running it - a traceback's
#   referents are its frame and the next traceback, so the frames of the trusted reader come
#   out unseen; f_locals (attribute name built) raises no event.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 1/1 (score 1.0, 12/12 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: any gc.get_referents in the test's time is a walk of the process's objects (run-
#   reads-target), and inspect.signature's read is no longer excused.
# Suggested fix: gc.get_referents in the test's time is a finding whatever it is given (it is
#   in _OBJECT_EVENTS' family: a traceback or any container leads to frames), and
#   pkgutil.resolve_name/pydoc.locate strings are resolved by the static stage like imports.
import dis
import inspect

import pkgutil

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


_REFERENTS = pkgutil.resolve_name("gc:get_referents")
_LOCALS = "_".join(("f", "locals"))


def _frames(tb):
    while tb is not None:
        parts = _REFERENTS(tb)
        yield from (p for p in parts if type(p).__name__ == "frame")
        tb = next((p for p in parts if type(p).__name__ == "traceback"), None)


def _sig(f):
    try:
        _Sig.from_callable(f)
    except _Stop as exc:
        tb = exc.__traceback__
    code = next(getattr(fr, _LOCALS)["func_code"] for fr in _frames(tb) if "func_code" in getattr(fr, _LOCALS))
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
