# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|static-hidden-code
#
# RED TEAM 39: pytest_quest.noevent keeps the interpreter's own `_signal.signal` in a module
#   global (`_INSTALL`), for its wrapper to call. `[sys.modules][0]["pytest_quest.noevent"]`
#   (laundered through a list: Names.resolve gives None) and `vars(ne)["_INS" + "TALL"]` give it
#   back with no event: a raw SIGALRM handler, then red team 38's #5 (interval timer of 0.1 ms,
#   os.listdir in a loop, a signal lands inside Watch.__call__, the handler walks f_back to
#   `self` and sets `_phase.now = None`), then a plain getattr of `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 28b72b7 (2 CPUs, Python 3.11.7): PASS 1 of 1 (0.75) plus 2 of 2 for this file; broken copy PASS 1 of 1.
#   Control A: FAIL run-exit-code. Control B (the handler finds the Watch, leaves it on):
#   FAIL run-reads-target.
#   Fix: keep the originals out of reach (closure cells of the wrappers, not module
#   globals; the module out of sys.modules); make Phase one-way (not a mutable attribute
#   reachable from `self` in a hook frame); block signals while inside the hook.
# Fixed by: a module that reaches the process put in a container ([sys.modules][0]) is
#   static-hidden-code (REVIEW); and a run forgets pytest-quest's modules by name before
#   test code (forkrun.forget_our_modules): sys.modules no longer leads to the watch's
#   classes or to noevent's originals.
import dis
import os

import sys

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "f_" + "back"
_LOCALS = "f_" + "locals"
_N = "".join(("__co", "de__"))
_W = []


def _catch(signum, frame):
    if _W:
        return
    while frame is not None:
        me = getattr(frame, _LOCALS).get("self")
        if me is not None and type(me).__name__ == "Watch":
            me._phase.now = None
            _W.append(1)
            return
        frame = getattr(frame, _BACK)


def _switch_off():
    ne = [sys.modules][0]["pytest_quest.noevent"]
    s, inst = vars(ne)["_sig" + "nal"], vars(ne)["_INS" + "TALL"]
    inst(s.SIGALRM, _catch)
    s.setitimer(s.ITIMER_REAL, 0.0001, 0.0001)
    for _ in range(400000):
        if _W:
            break
        os.listdir(".")
    s.setitimer(s.ITIMER_REAL, 0)
    inst(s.SIGALRM, s.SIG_DFL)


def _sig():
    _switch_off()
    fs = [nightly_rate]
    code = getattr(fs[0], _N)
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
