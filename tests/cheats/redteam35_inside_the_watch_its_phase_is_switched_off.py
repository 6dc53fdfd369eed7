# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code|static-reflective-access
# python: 3.11
#
# RED TEAM 35, finding 05: once the test's code runs inside the code watch (finding 03's
#   PurePath.__fspath__ under sys.audit("open", ...)), the watch itself is on the stack and
#   within reach: a dead frame from gc.garbage (finding 01) walks f_back to Watch.__call__,
#   whose f_locals["self"] is the Watch; its _phase.now set to anything but "test" makes
#   Phase.testing() False, and the watch judges nothing for the rest of the process. The test
#   then reads getattr(nightly_rate, "__co" + "de__") as plain code, after the call.
#   "Nothing of the run holds either hook" holds only while no code of the test runs inside
#   one: a frame walk from there finds both (the guard's Phase likewise, from a guard call).
#   Same oracle as finding 01: a code signature, no value of the function checked.
# Observed on 32db340 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.857, 12/14 classic killed);
#   broken project PASS 1/1; the same file without the switch FAILs run-reads-target.
# Fix: findings 01 and 03 (no frames from gc.garbage; no test code inside a hook). Also make
#   the phase one-way in code the test cannot reach: a closure cell or a module global of
#   hooked bound at import instead of an attribute of an object on the hook's frames.
# Fixed by: no code of the test runs inside the watch any more (path text from slots, loaders
#   read by their own dict), an event raised inside it by code not ours is run-reads-target, and
#   gc.garbage no longer hands out frames (static-reflective-access; DEBUG_SAVEALL in the run is
#   run-reads-target).
import dis
import gc
import pathlib
import sys

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_NAME = "__co" + "de__"
_BACK = "f_" + "back"
_LOCALS = "f_" + "locals"


def _dead():
    try:
        raise KeyError("ring")
    except KeyError as exc:
        err = exc
    ring = [err]
    err.ring = ring


def _quiet(self):
    """Inside the code watch: find it on the stack and move it out of the test's time."""
    _dead()
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    frame = [o for o in gc.garbage if type(o).__name__ == "frame" and "code _dead" in repr(o)][0]
    gc.garbage.clear()
    while frame is not None:
        owner = getattr(frame, _LOCALS).get("self")
        phase = getattr(owner, "_phase", None)
        if phase is not None and hasattr(owner, "made"):
            phase.now = "over"
        frame = getattr(frame, _BACK)
    return "/nowhere/rates.txt"


def _sig():
    original = pathlib.PurePath.__fspath__
    pathlib.PurePath.__fspath__ = _quiet
    try:
        sys.audit("open", pathlib.PurePosixPath("/nowhere/rates.txt"), "r", 0)
    finally:
        pathlib.PurePath.__fspath__ = original
    code = getattr(nightly_rate, _NAME)  # plain test code, after the watch was moved on
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
