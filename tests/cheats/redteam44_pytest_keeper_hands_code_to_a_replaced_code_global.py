# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 44: a pytest keeper reads the frame's code "for itself" and hands it to a module
#   global of _pytest._code.code that the test replaced (no guard covers pytest's globals).
#   - TracebackEntry.path (a keeper: "answers with text only") is
#     `self.frame.code.path`; TracebackEntry.frame is `Frame(self._rawentry.tb_frame)` and
#     Frame.code is `Code(self.raw.f_code)`, both reporters called by name from the keeper,
#     so _for_itself() walks up to the keeper, a consumer, and _intact() (guards for
#     traceback/linecache/logging names only) says True: the tb_frame and f_code reads are
#     quiet.
#   - `Code` there is a global of _pytest._code.code, looked up at each call: the test sets it
#     (a dict store, no audit event) to a class of its own for the one call, and its
#     __init__ receives the installed code (a mutant's in a mutant run). (`Frame` swapped the
#     same way hands out the raw frame.)
#   - the module dict is reached as pytest.ExceptionInfo.exconly.__globals__ (no event; the
#     name reversed and the function held in a list: the static stage's getattr fold misses
#     it); the traceback entry is nightly_rate's own frame (ValueError for nights=0).
#   - oracle: the blinded oracle's code signature (constants, operators), computed outside.
# Observed on 70798c6 (Python 3.11, 2 CPUs): probe PASS (0.8), submit_n PASS 3 of 3; with the
#   function broken (base * 1.5, signature from that source): PASS 1 of 1 (0.923).
#   Control (the test reads TracebackEntry(tb).frame.code.raw itself): FAIL run-reads-target.
# Fix (suggested): add pytest's globals that its keepers and the reporters under them call
#   with a frame or code to Readers.guards (_pytest._code.code: Code, Frame, Source,
#   getstatementrange_ast, extract_tb...), or better, believe a keeper only while every
#   global name its reporters look up is as at the test's start (compare the module dict
#   like _passing_intact does for inspect/types).
# Fixed by: pytest's keepers read for themselves only while its traceback API (the globals of
#   _pytest._code.code, _pytest._code.source, _pytest.nodes, _pytest.python and the classes of
#   the first two) is as at the test's start (Watch._keeping); then the frame read is the
#   test's (run-reads-target).
import dis

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "__slabolg__"[::-1]
_F = [pytest.ExceptionInfo.exconly]
_G = getattr(_F[0], _N)


class _Grab:
    got = []

    def __init__(self, code):
        _Grab.got.append(code)
        self.path = "x"


def _code(tb):
    name = "edoC"[::-1]
    saved = _G[name]
    _G[name] = _Grab
    try:
        _G["yrtnEkcabecarT"[::-1]](tb).path
    finally:
        _G[name] = saved
    return _Grab.got[-1]


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
