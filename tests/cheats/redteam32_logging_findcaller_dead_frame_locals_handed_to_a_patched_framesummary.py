# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 32, finding 06: standard library only, plain file. Two trusted holders hand the
#   installed code to the test with no frame taken at all.
#   - logging's Logger.findCaller (a consumer and holder) is called from the test's `__le__`
#     (which the target calls) with stacklevel=2: it walks to the target's frame and does
#     `co = f.f_code` (a consumer: quiet), then `if stack_info:` raises in the test's
#     `__bool__`: findCaller's frame dies with `co` in its locals, kept by the traceback.
#   - traceback.TracebackException.from_exception(exc, capture_locals=True): its consumer
#     `_extract_from_extended_frame_gen` (a holder, trusted by code identity; its guard only
#     checks `_get_code_position`) walks that traceback and calls the module global
#     `FrameSummary(..., locals=f.f_locals)` for each frame. The test monkeypatches
#     `traceback.FrameSummary` with a subclass, whose `__init__` receives findCaller's dead
#     frame's locals dict as an argument: `locals["co"]` is the installed code. No frame is
#     handed to the test, so the holder rule (frames taken while a holder is on the stack)
#     has nothing to see.
# Observed on 3583840 (Python 3.11.7, 2 CPUs): PASS 4/4 (0.857 where shown), PASS 1/1 with
#   nightly_rate broken; control (the broken EXPECTED on the unbroken project) FAIL 1/1.
# Fix: extend Readers.guards to every global a consumer calls with what it read
#   (traceback's FrameSummary, StackSummary, linecache; logging's currentframe, io, traceback):
#   believed only while they are the originals; and judge findCaller as the test's when
#   stacklevel/stack_info are not exact int/bool. Statically: monkeypatch of traceback's or
#   logging's attributes.
# Fixed by: a holder whose callees were replaced (traceback.FrameSummary, linecache,
#   logging.currentframe) is no consumer; a frame a traceback hands out that is a holder's,
#   or has one below it, is a walk.
import dis
import logging

import pytest
import traceback
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Flag:
    """logging's stack_info flag: asked for its truth after findCaller took `co`."""

    def __bool__(self):
        raise _Stop("stop")


class _Summary(traceback.FrameSummary):
    """traceback's consumer hands each frame's locals dict to its FrameSummary."""

    seen = []

    def __init__(self, *args, locals=None, **kwargs):
        if locals and "co" in locals:
            _Summary.seen.append(locals["co"])
        super().__init__(*args, locals=None, **kwargs)


class _Nights:
    def __le__(self, other):
        logging.getLogger("rates").findCaller(_Flag(), 2)
        return False


def _sig(f, monkeypatch):
    try:
        f(100.0, "high", _Nights())
    except _Stop as e:
        exc = e
    monkeypatch.setattr(traceback, "FrameSummary", _Summary)
    traceback.TracebackException.from_exception(exc, capture_locals=True)
    monkeypatch.undo()
    code = next(c for c in _Summary.seen if c.co_name == f.__name__)
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate, monkeypatch) == EXPECTED
