# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 46 (variant): a pytest keeper hands the installed code to a BUILTIN the test replaced.
#   8d86747 pictures the module dicts a keeper's call chain looks names up in (Watch._keeping:
#   _pytest._code.code/.source, _pytest.nodes, _pytest.python, inspect, types, linecache), but a
#   global lookup that misses the module dict falls through to the builtins' dict, which no
#   picture holds (seal.py says so: "the test may change both"). `Traceback.recursionindex`
#   keys entries by `id(entry.frame.code.raw)`: `id` comes from the builtins' dict. The
#   test takes that dict as `inspect.getfile.__globals__["__builtins__"]` (names written
#   backwards: the static rule static-builtins-patched sees only `builtins.X = ...` and
#   `monkeypatch.setattr(builtins, ...)`), stores a spy under "id" for one call, and asks
#   `Traceback(tb).recursionindex()` (a keeper) for nightly_rate's traceback: it computes
#   `id(entry.frame.code.raw)` for each entry (`Frame.code` reads `f_code` for the keeper:
#   quiet), and `id` is the spy, handed the installed code object. Red team 44's signature (constants and operators, the null mutant's probe left
#   out), computed outside from the source, is compared. No value of the function is checked.
# Observed on 8d86747 (Python 3.11, 2 CPUs): PASS 5 of 5 (probe 0.857, two more, this corpus
#   file 2 of 2); broken copy (`base * 1.5`, signature from that source) PASS 2 of 2 (0.8,
#   0.923). Control: the broken copy's signature on the shipped project FAIL
#   run-exit-code (the signature really tells the code apart); the test reading
#   `TracebackEntry(tb).frame.code.raw` itself: FAIL run-reads-target.
# Fix (suggested): picture the builtins' dict too while a keeper (or any trusted reader) holds
#   the target's code: Watch._keeping gets `vars(builtins)` (a monkeypatched builtin is already
#   static-builtins-patched, so no honest test loses), or at least the names the keepers' call
#   chains use (isinstance, id, len, hasattr, getattr, iter, next, type, str, repr, dict).
#   Sturdier: never give pytest's traceback API the installed code object in a run (a
#   stand-in with the same co_filename/co_firstlineno/co_name), so that nothing it hands on
#   can leak the code.
# Fixed by: pytest's keepers read for themselves only while the builtins that the keepers'
#   modules name are as at the start too (Watch._keeping, Readers.builtins_used): a replaced
#   builtin makes the read the test's (run-reads-target).
import dis
import inspect

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "__slabolg__"[::-1]
_F = [inspect.getfile]
_G = getattr(_F[0], _N)  # inspect's module dict
_B = _G["__snitliub__"[::-1]]  # the builtins' dict: no one's picture


class _Grab:
    got = []


def _code(tb):
    name = "di"[::-1]
    real = _B[name]
    kind = type(_code.__code__ if False else compile("0", "<x>", "eval"))

    def spy(obj):
        if type(obj) is kind and obj.co_name == "nightly_rate":
            _Grab.got.append(obj)
        return real(obj)

    _B[name] = spy
    try:
        entry = _E[0](tb)
        _T[0](tb).recursionindex()
    finally:
        _B[name] = real
    return _Grab.got[-1]


_H = [pytest.ExceptionInfo.exconly]
_E = [getattr(_H[0], _N)["yrtnEkcabecarT"[::-1]]]
_T = [getattr(_H[0], _N)["kcabecarT"[::-1]]]


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
