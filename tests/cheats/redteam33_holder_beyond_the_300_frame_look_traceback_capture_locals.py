# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 33, finding 06: _under_holder looks at most _DEPTH (300) frames down and then
#   answers "no holder" (fails open). Standard library + rich, no patching at all:
#   - the target calls the test's _Nights.__le__, which raises; the test runs
#     traceback.TracebackException.from_exception(exc, capture_locals=True). traceback's
#     consumer (_extract_from_extended_frame_gen: a holder, guards intact) sets
#     `co = f.f_code` for the target's frame and builds FrameSummary(locals=f.f_locals), which
#     calls repr() of the target's local `nights`: the test's __repr__, with `co` held 3 frames
#     below.
#   - __repr__ recurses 308 frames deep, then calls rich's Console._caller_frame_info(depth)
#     for depth 312..339 (rich takes inspect.currentframe(): a library taking a frame for the
#     test is allowed when no holder is on the stack) until a frame's f_locals holds `co` with
#     co_name "nightly_rate". _under_holder walks 300 frames, all the test's recursion, never
#     reaches the consumer, and says no holder: quiet.
# Observed on a239ffb (2 CPUs, Python 3.11.7): PASS 4/4 (0.857 where shown); broken project
#   PASS 1/1; control: the same file with a 5-frame recursion FAILs run-reads-target "(sys.
#   _getframe) while a reader held code" 1/1. (A first try scanning depths 1..480 took too long
#   and ended mutation-too-slow.)
# Fix: walk the whole stack (it is finite; the recursion limit bounds it) or fail closed: a
#   frame grab whose stack is deeper than the look is a walk (FAIL); the same for
#   _holds_a_reader (a traceback whose reader's frame is past 300 frames).
# Fixed by: a stack deeper than the watch looks (1,000 frames) counts as if a
#   holder were below (fails closed).
import dis
import traceback

import pytest
from rich.console import Console
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


def _deep(n, found):
    if n:
        return _deep(n - 1, found)
    for depth in range(312, 340):
        try:
            here = Console._caller_frame_info(depth)[2]
        except Exception:
            break
        held = here.get("co")
        if held is not None and getattr(held, "co_name", "") == "nightly_rate":
            found.append(held)
            break
    return "N"


class _Nights:

    found = []

    def __le__(self, other):
        raise _Stop("stop")

    def __repr__(self):  # traceback's summaries call it with `co` in a local, 3 frames down
        return _deep(308, _Nights.found)


def _sig(f):
    try:
        f(100.0, "high", _Nights())
    except _Stop as e:
        traceback.TracebackException.from_exception(e, capture_locals=True)
    code = _Nights.found[0]
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
