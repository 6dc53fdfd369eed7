# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code|static-hidden-code
#
# RED TEAM 38: redteam38_fresh_signal_module_hands_a_frame with another stdlib gadget:
#   imp.init_builtin("_signal") (deprecated but present in 3.11; only imp.load_source,
#   load_compiled, load_module and reload are named by static rules) builds a fresh _signal
#   instance (and puts it in sys.modules) whose signal() installs an unshielded handler.
# Observed on a73eb9a (2 CPUs, Python 3.11.7): PASS 3 of 3 (score 0.8 to 0.923) plus 1 of 1
#   for this file; broken copy: PASS 1 of 1. Control A: FAIL run-exit-code.
#   Fix: as the fresh-module findings; static: imp.* as a whole (imp.init_builtin,
#   init_frozen, load_dynamic, new_module) is static-hidden-code.
# Fixed by: a run refuses a second module of those it changed (_signal, gc, _imp): its
#   _imp.create_builtin, which imp.init_builtin and test.support's import_fresh_module reach
#   through the import system, raises PermissionError (pytest_quest/noevent.py), so the
#   interpreter's installer and set_debug stay out of reach: run-exit-code; imp.* and
#   test.support.* are static-hidden-code.
import dis
import operator
import imp
import traceback

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "f_" + "back"
_LOCALS = "f_" + "locals"


_GOT = []


def _keep(signum, frame):
    _GOT.append(frame)


def _frames_below():
    s = imp.init_builtin("_signal")
    s.signal(12, _keep)
    s.raise_signal(12)
    s.signal(12, s.SIG_DFL)
    frame = _GOT.pop()
    out = []
    while frame is not None:
        out.append(frame)
        frame = getattr(frame, _BACK)
    return out


class Rate:
    def __init__(self):
        self.codes = []

    def __mul__(self, other):
        raise LookupError("rate")

    def __repr__(self):
        if not self.codes:
            for frame in _frames_below():
                for value in getattr(frame, _LOCALS).values():
                    if type(value).__name__ == "code" and value.co_name == "nightly_rate":
                        self.codes.append(value)
        return "Rate()"


def _sig():
    rate = Rate()
    try:
        nightly_rate(rate, "high", 3)
    except LookupError as exc:
        traceback.TracebackException.from_exception(exc, capture_locals=True)
    code = rate.codes[0]
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
