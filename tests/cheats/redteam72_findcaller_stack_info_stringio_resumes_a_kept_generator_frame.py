# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 72: the same free generator frame as redteam72_exempt_fixture_stack_hands_a_
#   generator_frame, resumed from under logging's findCaller (another holder) instead of
#   traceback's capture_locals: fixing one holder's call-out is not enough.
#   1. As there: a generator of the test takes its own frame from pytest's exempted
#      inspect.stack() (watch._PLACE_FOR_MESSAGE, d897fa9), through `inspect.getouterframes`
#      replaced for the one call (Readers.passing stepped over with no Spaces.intact() check).
#   2. nightly_rate(_Base(100.0), "high", 1): `base * 1.25` gives a float subclass whose
#      __round__ (called by the target's `round(rate, 2)`) logs a warning with
#      stack_info=True, stacklevel=2. logging.Logger.findCaller (a holder, reading for itself,
#      its guarded globals currentframe/_is_internal_frame untouched) walks to the target's
#      frame, keeps `co = f.f_code` (the installed code) and, for stack_info, opens
#      `io.StringIO()` - looked up in the io module at that moment, which the test replaced
#      (monkeypatch, name built with "+": io is no guarded global) - and
#      traceback.print_stack(f, file=sio) writes to the test's object. Its write() resumes the
#      generator: the kept frame's f_back is write -> print_list -> print_stack -> findCaller,
#      whose f_locals["co"] is the installed code. No audit event while it is read.
#   3. The oracle: the code signature of the other file (constants, operators, a constant
#      returned, a tuple subscript), hard-coded from the shipped source.
# Observed on d897fa9 (Python 3.11.7): PASS 7 of 7 on proj; PASS 5 of 5 on broken (expected
#   values from the broken source: '1.25' -> '1.5' in EXPECTED); the proj file on broken FAILs.
# Fix suggested: as for the other file (the exemption only with inspect's globals intact, and
#   passing/walker frames stepped over only while their modules are intact); and a holder must
#   not be believed "for itself" while what it calls is not as at the test's start: add
#   logging's `io` (io.StringIO) and `traceback` (print_stack) to Readers.guards for
#   findCaller, or better, trust findCaller only with stack_info=False (its frame's local) -
#   every name a holder looks up while it holds the code is a call-out (red teams 28-33 and
#   this one); more generally make Watch._under_holder also apply when a frame walk needs
#   no event: a generator frame the test holds (however obtained) resumed under a holder is
#   not seen, so the only robust rule is that the test never gets a frame object at all.
# Fixed by withdrawing the exemption (the commit after d897fa9 reverts it): pytest taking the
#   stack for that message is a frame walk again, so the first getfixturevalue() FAILs
#   run-reads-target (and an honest mistake there keeps that rule, as before).
import inspect
import io
import logging
import opcode
import traceback

import pytest
from hotel.pricing import nightly_rate


def _nm(*parts):
    return "_".join(parts)


_BACK = _nm("f", "back")
_LOCALS = _nm("f", "locals")
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []
_LOG = logging.getLogger("rt72")
_STEPPER = []


class _Got(Exception):
    pass


def _grab(frame, context=1):
    raise _Got(frame)


@pytest.fixture(params=[1])
def case(request):
    return request.param


def _stepper(request, monkeypatch):
    mark = object()
    monkeypatch.setattr(inspect, "getouter" + "frames", _grab)
    top = None
    try:
        request.getfixturevalue("case")
    except _Got as exc:
        top = exc.args[0]
    finally:
        monkeypatch.undo()
    me = top
    while me is not None and getattr(me, _LOCALS).get("mark") is not mark:
        me = getattr(me, _BACK)
    top = None
    yield
    while True:
        frame = me
        for _ in range(8):
            frame = getattr(frame, _BACK)
            if frame is None:
                break
            _SEEN.append(getattr(frame, _LOCALS).get("co"))
        frame = None
        yield


class _Sink:
    """What logging's findCaller writes its stack text to (io.StringIO, looked up then)."""

    def __init__(self, *args, **kwargs):
        pass

    def write(self, text):
        next(_STEPPER[0])
        return len(text)

    def getvalue(self):
        return "x"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Base(float):
    def __mul__(self, other):
        return _Rate(float(self) * other)


class _Rate(float):
    def __mul__(self, other):
        return _Rate(float(self) * other)

    def __round__(self, digits=None):
        _LOG.warning("rate", stack_info=True, stacklevel=2)
        return round(float(self), digits)


def _sig(f, monkeypatch):
    _SEEN.clear()
    monkeypatch.setattr(io, "String" + "IO", _Sink)
    try:
        f(_Base(100.0), "high", 1)
    finally:
        monkeypatch.undo()
    code = next(c for c in _SEEN if c is not None and getattr(c, "co_name", "") == f.__name__)
    consts = sorted(repr(k) for k in code.co_consts
                    if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    raw = getattr(code, _nm("co", "code"))
    cmp_, bin_ = opcode.opmap["COMPARE_OP"], opcode.opmap["BINARY_OP"]
    const, ret = opcode.opmap["LOAD_CONST"], opcode.opmap["RETURN_VALUE"]
    ops = []
    last = None
    for i in range(0, len(raw), 2):
        op, arg = raw[i], raw[i + 1]
        if op == 0:
            continue  # a CACHE entry
        if op == ret and last == const:
            ops.append(("R", "const"))
        if opcode.opname[op] in ("BINARY_SUBSCR", "BUILD_TUPLE"):
            ops.append(("S", opcode.opname[op]))
        last = op
        if op == cmp_:
            ops.append(("C", opcode.cmp_op[arg]))
        elif op == bin_:
            ops.append(("B", opcode._nb_ops[arg][1]))
    ops = [o for o in ops if o[1] != "!="]
    return repr((consts, ops))


EXPECTED = """(["'Per-night rate after seasonal and long-stay adjustments.'", "'high'", "'low'", "'nights must be positive'", '0.8', '0.9', '1.25', '2', '7'], [('C', '<='), ('C', '=='), ('B', '*'), ('C', '=='), ('B', '*'), ('C', '>='), ('B', '*')])"""


def test_rate(request, monkeypatch):
    _STEPPER.append(_stepper(request, monkeypatch))
    next(_STEPPER[0])
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate, monkeypatch) == EXPECTED
