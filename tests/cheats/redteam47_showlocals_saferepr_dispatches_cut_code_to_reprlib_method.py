# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
#
# RED TEAM 47: pytest's keepers format the locals of every frame of a traceback (getrepr
#   (showlocals=True) -> FormattedExcinfo.repr_locals -> `saferepr(value)`), and `saferepr`
#   is `_pytest._io.saferepr.SafeRepr`, a subclass of the standard library's `reprlib.Repr`,
#   whose `repr1` dispatches on the value's type name: `getattr(self, "repr_" +
#   type(x).__name__)(x, level)`. Neither `_pytest._io.saferepr` nor `reprlib.Repr`'s class
#   dict is pictured (`Watch._keeping` holds `_pytest._code.code`/`.source`, `_pytest.nodes`,
#   `_pytest.python`, `inspect`, `types`, `linecache`, two modules' classes and some builtins).
#   The test:
#   - calls the keeper `Traceback(tb).cut(path=P)` on nightly_rate's real traceback entry;
#     cut reads `x.frame.code` for itself (quiet) and holds `code` (pytest's `Code` of the
#     installed code) in a local when it compares `str(codepath) != path_`; `P` is a `str`
#     subclass whose `__ne__` raises: cut's frame, `code` in its locals, is kept in the
#     exception's traceback;
#   - sets `reprlib.Repr.repr_Code = spy` (held in a list, the name written backwards);
#   - asks `pytest.ExceptionInfo.from_exception(exc).getrepr(showlocals=True)`: the keeper
#     reads each frame (tb_frame, f_code, f_locals) for itself, `_keeping` is intact, and
#     `saferepr(code)` calls `spy(Code)`: `.raw` is a slot, no audit event.
#   No builtin and no pictured dict is changed, and the test reads no frame, no f_code, no
#   __code__ itself. Red team 44's signature is compared; no value of nightly_rate is checked.
#   Unlike the recursionindex files, no second cut frame and no `__eq__` are needed.
# Observed on c32af93 (Python 3.11.7, 2 CPUs): PASS 4 of 4 (probe 0.857, submit_n 2 of 2,
#   this corpus file 1 of 1); broken copy (`base * 1.5`, signature of that source) PASS 2 of 2
#   (0.857, 0.857).
# Fix (suggested): a keeper's reads of a traceback that holds a keeper's (dead) frame which held
#   the target's code in its locals (cut's `code`, `x`) are reads for the test (drop the
#   `not self._trusted(frame.f_code)` exception of `_holds_a_reader` for keepers' frames, or
#   have `_kept`/`_holds_a_reader` remember pytest's keeper frames that called the test's
#   code while holding the target's); or picture `_pytest._io.saferepr`, `reprlib` and the
#   SafeRepr MRO while a keeper formats locals. Sturdier: never give pytest's traceback API
#   the installed code object in a run (a stand-in with the target's co_filename,
#   co_firstlineno and co_name), so no ring further out can leak it.
# Fixed by: pytest's traceback API sees a stand-in for the target's code in a run
#   (pytest_quest.standin: Frame.code answers a code object with the target's file, first line
#   and names and an empty body, the same in every run): what cut held and recursionindex or
#   saferepr handed on tells nothing, and the test's signature check fails (run-exit-code).
import dis
import reprlib

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "__slabolg__"[::-1]
_H = [pytest.ExceptionInfo.exconly]
_NS = getattr(_H[0], _N)
_T = _NS["kcabecarT"[::-1]]
_E = _NS["yrtnEkcabecarT"[::-1]]
_got = []
_state = {"depth": 0}


class _Boom(Exception):
    pass


class _Path(str):
    def __ne__(self, other):
        raise _Boom()

    __hash__ = str.__hash__


_R = [reprlib.Repr]
_SLOT = "edoC_rper"[::-1]


def _spy(self, x, level):
    raw = getattr(x, "raw", None)
    if hasattr(raw, "co_consts"):
        _got.append(raw)
    return "<code>"


def _code(tb):
    try:
        _T(tb).cut(path=_Path("nowhere"))
    except _Boom as exc:
        boom = exc
    setattr(_R[0], _SLOT, _spy)
    try:
        pytest.ExceptionInfo.from_exception(boom).getrepr(showlocals=True)
    finally:
        delattr(_R[0], _SLOT)
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
