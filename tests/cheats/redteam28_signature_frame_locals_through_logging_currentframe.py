# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 28: the code watch trusts inspect._signature_from_function's read of __code__
#   (Readers.signature), but that frame keeps the installed code object in its local
#   `func_code` and then calls `cls._parameter_cls(...)`: a Parameter subclass of the test.
#   Its __init__ takes its own frame with logging.currentframe() (a lambda calling
#   sys._getframe(1): the watch judges the lambda, a logging file, not the test; the static
#   stage bans inspect.currentframe/sys._getframe but not logging.currentframe), walks to the
#   caller with getattr(frame, "f_" + "back") built by str.join (static sees no f_back; f_back
#   and f_locals raise no audit event) and takes f_locals["func_code"]: the installed code of
#   the run (original or mutant), with no finding. Signature.from_callable is a classmethod,
#   so a Signature subclass with `_parameter_cls` is all it takes. Plain file: no exec, no
#   static rule fires.
#   - the oracle: the same code signature as oracle_code_signature_with_the_watch_blinded.py
#     (constants + COMPARE_OP/BINARY_OP, null mutant's probe left out). No value checked.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.8, 12/15 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: inspect.signature's read of __code__ is no longer excused (it calls the caller's
#   Parameter class with the code in a local), and logging.currentframe is judged by its caller
#   like inspect.currentframe: FAIL run-reads-target.
# Suggested fix: judge the frame *handed out*, not the immediate caller of sys._getframe:
#   any sys._getframe in the test's time whose result leaves a stdlib/pytest frame (logging.
#   currentframe, typing._caller...) is the caller's (treat logging.currentframe like
#   inspect.currentframe: a `passing` reader); and do not trust a reader of __code__ that
#   keeps it in a frame local while calling out to code of the test (_signature_from_function
#   calls cls._parameter_cls and get_annotations): trust it only when `cls` is
#   inspect.Signature itself (check the caller's frame: from_callable with cls is Signature),
#   or read parameters in the judge before the run. A static rule for logging.currentframe
#   and for attribute names built at run time on frames (getattr(x, <computed>)) helps too.
import dis
import inspect
import logging

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


class _Param(inspect.Parameter):
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        here = logging.currentframe()
        caller = getattr(here, _BACK)
        _SEEN.append(getattr(caller, _LOCALS).get("func_code"))
        super().__init__(*args, **kwargs)


class _Sig(inspect.Signature):
    __slots__ = ()
    _parameter_cls = _Param


def _sig(f):
    _SEEN.clear()
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
