# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 42: the inspect `_get_code_position` gadget (see
#   redteam42_inspect_code_position_global_via_library_caller.py) with the project itself as
#   the trampoline: hotel.booking.confirm_booking(booking, send) awaits
#   `send(booking.guest_email, body)`. The test builds a Booking whose guest_email is a
#   traceback entry (a frozen dataclass checks no types) and passes inspect.getframeinfo as
#   `send`; one `.send(None)` on the coroutine runs getframeinfo(tb, body):
#   _get_code_position_from_tb reads tb.tb_frame.f_code (the reader, past inspect's passing
#   frames, is confirm_booking's coroutine frame: the project's file, not the test's, not
#   writable: kept, not told) and hands the code to the test's `_get_code_position`; then
#   `context > 0` with a str raises the TypeError the test expects. No library needed: any
#   project (or library) function that calls a callable it is handed.
# Observed on a90f0f8 (2 CPUs, Python 3.11): PASS (0.857), broken copy (EXPECTED with 1.5) PASS
#   (0.8); control A (that EXPECTED on the real project): FAIL run-exit-code; control B
#   (inspect.getframeinfo(tb, "101") called by the test itself): FAIL run-reads-target.
#   Corpus runs: see FINDINGS.md.
# Fix: as for the other two files: inspect must not pass a read on to its caller while the
#   globals it hands the code to are not its own (guard them), and a caller that does not name
#   what it calls (`send(...)`: a parameter) is a trampoline for whoever handed it the callable.
# Fixed by: inspect and types read for their caller only while their module globals are as at
#   the test's start (watch._passing_intact): with _get_code_position or iscode replaced, the
#   read is inspect's own, for no one: the test's (run-reads-target).
import inspect
import dis
import pytest
from datetime import date
from hotel.booking import Booking, confirm_booking
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
SEEN = {}


def _signature(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


def _position(code, index):
    if code.co_name == "nightly_rate":
        SEEN["sig"] = _signature(code)
    return (None, None, None, None)


def _no_source(obj):
    raise OSError("no source")


class _Stop(Exception):
    pass


class _Spy:
    def __le__(self, other):
        raise _Stop()

    def __ge__(self, other):
        return False


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    try:
        nightly_rate(100.0, "mid", _Spy())
    except _Stop as exc:
        caught = exc
    monkeypatch.setattr(inspect, "_get_code_position", _position)
    tb = caught.__traceback__
    while tb is not None:
        stay = Booking(tb, "101", date(2024, 1, 1), date(2024, 1, 3))
        with pytest.raises(TypeError):
            confirm_booking(stay, inspect.getframeinfo).send(None)
        tb = tb.tb_next
    assert SEEN.get("sig") == EXPECTED
