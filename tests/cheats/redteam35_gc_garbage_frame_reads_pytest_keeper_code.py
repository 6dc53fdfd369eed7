# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access|static-hidden-code
# python: 3.11
#
# RED TEAM 35, finding 02: finding 01's frame with no event, under a second holder: pytest's
#   keeper Traceback.cut (code = x.frame.code, a _pytest Code whose .raw is the code object)
#   compares `x.lineno != lineno` with the test's object, whose reflected __ne__ runs while
#   `code` sits in cut's locals. __ne__ takes a dead frame from gc.garbage (DEBUG_SAVEALL),
#   walks f_back to cut's frame and reads f_locals["code"].raw: the installed code, no event
#   (.raw is a plain attribute; the reads by cut are a keeper's, quiet).
#   Same oracle as finding 01: a code signature, no value of the function checked.
# Observed on 32db340 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.8, 12/15 classic killed);
#   broken project PASS 1/1; broken EXPECTED against the real project FAIL.
# Fix: as finding 01 (no frames from gc.garbage; keepers compare nothing of the test's while
#   they hold a Code: os.fspath/int() the test's arguments before the loop, or treat a call
#   of the test's code under a holder as a walk however the frame is taken).
# Fixed by: gc.set_debug / gc.DEBUG_SAVEALL are static-reflective-access; in the run, a
#   collection in the test's time with DEBUG_SAVEALL set is run-reads-target.
import dis
import gc

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "f_" + "back"
_LOCALS = "f_" + "locals"


def _dead():
    try:
        raise KeyError("ring")
    except KeyError as exc:
        err = exc
    ring = [err]
    err.ring = ring


def _frames_below():
    _dead()
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    found = [o for o in gc.garbage if type(o).__name__ == "frame" and "code _dead" in repr(o)]
    gc.garbage.clear()
    frame = found[0]
    out = []
    while frame is not None:
        out.append(frame)
        frame = getattr(frame, _BACK)
    return out


class Rate:
    def __mul__(self, other):
        raise LookupError("rate")


class Line:
    """A line number that is never the one asked about."""

    def __init__(self):
        self.codes = []

    def __ne__(self, other):
        if not self.codes:
            for frame in _frames_below():
                for value in getattr(frame, _LOCALS).values():
                    raw = getattr(value, "raw", None)
                    if type(raw).__name__ == "code" and raw.co_name == "nightly_rate":
                        self.codes.append(raw)
        return True

    __eq__ = lambda self, other: False
    __hash__ = object.__hash__


def _sig():
    with pytest.raises(LookupError) as info:
        nightly_rate(Rate(), "high", 3)
    line = Line()
    info.traceback.cut(lineno=line)
    code = line.codes[0]
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
    assert _sig() == EXPECTED
