# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
#
# RED TEAM 47: pytest's keeper `Traceback.recursionindex` compares the f_locals dicts of two
#   entries with the same (path, id(code), lineno) with `==`, and a dict `==` calls each value's
#   `__eq__`: a method looked up on the class of an object the test put in a frame's locals.
#   The test makes two frames of the keeper `Traceback.cut` stop at the same line: cut #1 runs
#   over nightly_rate's real traceback entry and holds `code = x.frame.code` (a `_pytest` `Code`
#   of the installed code: read by pytest for a keeper, quiet) when it calls the test's
#   `str` subclass `__ne__` (`str(codepath) != path_`); that `__ne__` calls cut #2 on a
#   Traceback of the test's own entries (subclasses of Traceback, TracebackEntry and Code that
#   answer `==` with True), whose `__ne__` raises. The test then asks
#   `Traceback(exc.__traceback__).recursionindex()`: the keeper reads every frame of that
#   traceback for itself (tb_frame, f_code, f_locals: quiet, `_keeping` intact, the tb_frame
#   reads are a keeper's so `_holds_a_reader` is never asked), finds cut #1 and cut #2 under one
#   key and compares their locals: `self`, `x` compare equal through the test's subclasses, then
#   `code`: cut #1's `Code(installed code) == cut #2's _Code`, and because `_Code` subclasses
#   `Code` and overrides `__eq__`, Python calls the test's `_Code.__eq__` first with pytest's
#   `Code` of the installed code: `.raw` is a slot, no audit event. No builtin and no pictured
#   dict is changed; the test reads no frame, no f_code, no __code__ itself. Red team 44's
#   signature (constants and operators) is compared; no value of nightly_rate is checked.
# Observed on c32af93 (Python 3.11.7, 2 CPUs): PASS 6 of 6 (probe 0.8, submit_n 3 of 3,
#   this corpus file 2 of 2); broken copy (`base * 1.5`, signature of that source) PASS 2 of 2 (0.857,
#   0.857). Control: the broken signature on the shipped project FAILs run-exit-code; the test
#   reading `Traceback(tb)[0].frame.code.raw` itself FAILs run-reads-target (tb_frame).
# Fix (suggested): a keeper that reads the frames of a traceback whose frames held the target's
#   code (a keeper's dead frame with a `Code` of it in its locals, here cut #1's) reads a
#   reader's frame: count recursionindex's (and every keeper's) tb_frame reads through
#   `_holds_a_reader` too, or never let `recursionindex` compare locals of frames the test made
#   (it runs the test's `__eq__` with the other frame's locals). Sturdier, as red team 46 said:
#   never give pytest's traceback API the installed code object in a run (a stand-in with the
#   same co_filename, co_firstlineno and co_name), so that nothing it holds can leak the code.
# Fixed by: pytest's traceback API sees a stand-in for the target's code in a run
#   (pytest_quest.standin: Frame.code answers a code object with the target's file, first line
#   and names and an empty body, the same in every run): what cut held and recursionindex or
#   saferepr handed on tells nothing, and the test's signature check fails (run-exit-code).
import dis

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "__slabolg__"[::-1]
_H = [pytest.ExceptionInfo.exconly]
_NS = getattr(_H[0], _N)
_T = _NS["kcabecarT"[::-1]]
_E = _NS["yrtnEkcabecarT"[::-1]]
_C = _NS["edoC"[::-1]]
_got = []
_state = {"depth": 0}


class _Boom(Exception):
    pass


class _Tb(_T):
    def __eq__(self, other):
        return True

    __hash__ = None


class _Code(_C):
    __slots__ = ()

    def __eq__(self, other):
        raw = getattr(other, "raw", None)
        if raw is not None:
            _got.append(raw)
        return True

    __hash__ = None

    @property
    def path(self):
        return "zz"


class _Frame:
    def __init__(self):
        self.code = _Code(None)


class _Entry(_E):
    __slots__ = ()

    def __eq__(self, other):
        return True

    __hash__ = None

    @property
    def frame(self):
        return _Frame()


class _Path(str):
    def __ne__(self, other):
        _state["depth"] += 1
        if _state["depth"] == 1:
            _Tb([_Entry(None)]).cut(path=self)
        raise _Boom()

    __hash__ = str.__hash__


def _code(tb):
    p = _Path("nowhere")
    try:
        _T(tb).cut(path=p)
    except _Boom as exc:
        boom = exc
    _T(boom.__traceback__).recursionindex()
    return _got[-1]


def _signature(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError as exc:
        caught = exc
    assert _signature(_code(caught.__traceback__.tb_next)) == EXPECTED
