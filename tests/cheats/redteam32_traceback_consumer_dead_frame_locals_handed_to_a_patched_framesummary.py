# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 32, finding 07: the traceback module alone, plain file, no probe object. traceback's
#   consumer `StackSummary._extract_from_extended_frame_gen` (a consumer and holder, trusted by
#   code identity) does `co = f.f_code` for each frame and then calls the *module global*
#   `FrameSummary(filename, lineno, name, ..., locals=f_locals)`. Only `_get_code_position`
#   is guarded (Readers.guards); FrameSummary is not.
#   1. monkeypatch traceback.FrameSummary with a subclass; TracebackException.from_exception of
#      the target's own ValueError (nights=0): for the target's frame (name "nightly_rate") the
#      subclass raises, so the consumer's frame dies with `co` = the installed code in its
#      locals, kept by the new exception's traceback.
#   2. TracebackException.from_exception(that exception, capture_locals=True): the consumer
#      walks it and hands each frame's f_locals dict to the subclass, among them its own dead
#      frame's: `locals["co"]`. No frame is handed to the test, no frame attribute named.
# Observed on 3583840 (Python 3.11.7, 2 CPUs): PASS 4/4 (0.8 where shown), PASS 1/1 with
#   nightly_rate broken; control (the broken EXPECTED on the unbroken project) FAIL 1/1.
# Fix: guard every global the consumer calls with what it read (FrameSummary, StackSummary
#   via klass, linecache): the consumer is believed only while they are the originals (by
#   identity, as for _get_code_position); and a consumer must never hand a frame's locals
#   (capture_locals) to code the test replaced. Red team 29-31's dead consumer frame `co`
#   remains the root: the hook could clear nothing, so flag a consumer that ends by an
#   exception raised in test code as a walk.
# Fixed by: a holder whose callees were replaced (traceback.FrameSummary) is no
#   consumer: its read of the target's code counts.
import dis
import traceback

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Summary(traceback.FrameSummary):
    """traceback's consumer hands each frame's name and locals dict to its FrameSummary."""

    seen = []
    armed = [True]

    def __init__(self, filename, lineno, name, *args, locals=None, **kwargs):
        if locals and "co" in locals:
            _Summary.seen.append(locals["co"])
        if name == "nightly_rate" and _Summary.armed:
            _Summary.armed.clear()
            raise _Stop("stop")  # the consumer's frame dies with `co` in its locals
        super().__init__(filename, lineno, name, *args, locals=None, **kwargs)


def _sig(f, monkeypatch):
    with pytest.raises(ValueError) as info:
        f(100.0, "high", 0)
    monkeypatch.setattr(traceback, "FrameSummary", _Summary)
    with pytest.raises(_Stop) as stop:
        traceback.TracebackException.from_exception(info.value)
    traceback.TracebackException.from_exception(stop.value, capture_locals=True)
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
