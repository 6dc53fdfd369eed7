# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
#
# RED TEAM 47 (variant of redteam47_recursionindex_compares_cut_locals_hands_code_to_test_eq.py):
#   the same two frames of the keeper `Traceback.cut` stopped at one line, and the keeper
#   `Traceback.recursionindex` comparing their f_locals with `==`. Here cut #2's `code` is no
#   subclass of pytest's `Code`, only an object with `.raw` and `.path`: `Code.__eq__` (pytest's
#   own, called by the dict compare) does `self.raw == other.raw`, i.e. `installed code ==
#   the test's _Raw()`; the code object's compare answers NotImplemented for a non-code, so
#   Python calls the reflected `_Raw.__eq__(installed code)`: the raw code object is handed
#   straight to the test, with no attribute read of the test's at all. Red team 44's signature
#   is compared; no value of nightly_rate is checked.
# Observed on c32af93 (Python 3.11.7, 2 CPUs): PASS 3 of 3 (0.923, 0.923, this corpus
#   file 1 of 1); broken copy (`base * 1.5`, signature of that source) PASS 2 of 2 (1.0, 0.857).
# Fix (suggested): as for the main file: a keeper's reads of a traceback that holds a keeper's
#   (dead) frame with the target's code in its locals are reads for the test; or never hand
#   pytest's traceback API the installed code object (a stand-in).
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


class _Raw:
    def __eq__(self, other):
        if hasattr(other, "co_consts"):
            _got.append(other)
        return True

    __hash__ = None


class _Holder:
    raw = _Raw()
    path = "zz"


class _Frame:
    def __init__(self):
        self.code = _Holder()


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
