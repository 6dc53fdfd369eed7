# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 44: the run's audit hook's own frame taken through a pytest keeper with the
#   `Frame` global of _pytest._code.code replaced; the seal's closure then switched off.
#   (Independent of pytest-quest's own code as a consumer: fixing that alone leaves this.)
#   - a RecursionError raised inside the hook (open() near the recursion limit) carries the
#     hook's frames (`sealed`, ...) in its traceback.
#   - TracebackEntry(tb).path (a keeper) runs TracebackEntry.frame, `Frame(tb.tb_frame)`:
#     _hook_frame() walks up past the reporter to the keeper and believes it (keepers are
#     exempt), so the tb_frame read of the hook's frame is no finding; `Frame` is a module
#     global the test set to a class of its own, whose __init__ keeps the raw frame.
#   - f_locals of `sealed`: told.append("") (the seal stops comparing), the watch's `_saw`
#     and the guard's `deny` replaced by no-ops on the instances; then the test reads
#     nightly_rate.__code__ itself and takes the blinded oracle's code signature.
# Observed on 70798c6 (Python 3.11, 2 CPUs): probe PASS (0.857), submit_n PASS 2 of 2; with
#   the function broken (base * 1.5, signature from that source): PASS 1 of 1 (0.8).
# Fix (suggested): guard _pytest._code.code's globals for the keepers (Frame, Code, ...) as
#   the traceback module's are; _hook_frame() should exempt only pytest's own report of the
#   current failure (its runner's frames), not any keeper the test calls; and the seal's
#   `told` should stop the telling, never the comparing.
# Fixed by: pytest's keepers read for themselves only while its traceback API (the globals of
#   _pytest._code.code, _pytest._code.source, _pytest.nodes, _pytest.python and the classes of
#   the first two) is as at the test's start (Watch._keeping); then the frame read is the
#   test's (run-reads-target).
import dis
import sys

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_S = "__sessalcbus__"[::-1]


class _Root:
    pass


_N = "__slabolg__"[::-1]
_F = [pytest.ExceptionInfo.exconly]
_G = getattr(_F[0], _N)


class _Path:
    path = "x"


class _Grab:
    got = []

    def __init__(self, frame):
        _Grab.got.append(frame)
        self.code = _Path()


def _frames(tb):
    name = "emarF"[::-1]
    saved = _G[name]
    _G[name] = _Grab
    try:
        _G["yrtnEkcabecarT"[::-1]](tb).path
    finally:
        _G[name] = saved
    return [_Grab.got[-1]]


def _deep(n):
    if n <= 0:
        try:
            open("/nonexistent-rt44")
        except RecursionError as exc:
            return exc
        except OSError:
            return None
        return None
    return _deep(n - 1)


def _hook_error():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        for n in range(150, 400):
            exc = _deep(n)
            if exc is not None:
                tb = exc.__traceback__
                while tb.tb_next is not None and tb.tb_next.tb_next is not None:
                    tb = tb.tb_next
                # tb: the frame that called sys.audit, or one inside the hook
                depth, t = 0, exc.__traceback__
                while t is not None:
                    depth, t = depth + 1, t.tb_next
                return exc, n
    finally:
        sys.setrecursionlimit(old)
    return None, None


def _quiet(*args):
    return None


def _switch_off():
    exc, n = _hook_error()
    tb = exc.__traceback__
    found = []
    while tb is not None:
        for frame in _frames(tb)[:1]:
            names = getattr(frame, "slacol_f"[::-1])
            if "told" in names and "calls" in names:
                found.append(names)
        tb = tb.tb_next
    assert found, ("no hook frame", n)
    names = found[0]
    names["told"].append("")
    for _, hook in names["calls"]:
        vars(hook)["_saw"] = _quiet
        vars(hook)["deny"] = _quiet


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
    except ValueError:
        pass
    _switch_off()
    assert _signature(getattr(nightly_rate, "__edoc__"[::-1])) == EXPECTED
