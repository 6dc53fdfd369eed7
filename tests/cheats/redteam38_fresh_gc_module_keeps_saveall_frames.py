# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code|static-hidden-code
#
# RED TEAM 38: noevent.close() replaces the gc module's attribute set_debug (refuses
#   DEBUG_SAVEALL) and nothing else watches the flag but a check at each judged event. A
#   second instance of the builtin gc module has the interpreter's own set_debug:
#   test.support.import_helper.import_fresh_module("gc") (stdlib; no static rule names it;
#   the name is a string) makes one with no finding. Then red team 37's #4 as it was:
#   list(map(operator.call, [g.set_debug, g.collect, g.set_debug], [32, 0, 0])), C calling C,
#   so no judged event falls while the flag is set; a helper's dead frame lands in the shared
#   gc.garbage; from __repr__ of the test's Rate (run by traceback's capture_locals while its
#   consumer keeps `co`), f_back/f_locals reach the installed code.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on a73eb9a (2 CPUs, Python 3.11.7): PASS 4 of 4 (score 0.857, 12 of 14 classic
#   killed) plus 2 of 2 for this file; broken copy (EXPECTED with '1.5'): PASS 1 of 1.
#   Control A (broken EXPECTED, real project): FAIL run-exit-code. Control B (timeit.gc in
#   place of the fresh module): FAIL run-exit-code, PermissionError "gc.DEBUG_SAVEALL is not
#   allowed" (noevent._set_debug).
#   Fix: refuse a second instance of a builtin module whose functions a run replaces or binds
#   (gc, _signal, _imp; better: any builtin already loaded at the test's start). There is no
#   `import` audit event for it (checked), but both gadgets go through
#   BuiltinImporter.create_module -> _imp.create_builtin: noevent.close() can replace that with
#   a bound wrapper that refuses them in the test's time. Static: test.support.import_helper.*
#   (import_fresh_module, CleanImport, unload, forget) and imp.* as static-hidden-code. Also
#   check gc.garbage for frame objects (type(o) is FrameType) at each judged event and at the
#   answer.
# Fixed by: a run refuses a second module of those it changed (_signal, gc, _imp): its
#   _imp.create_builtin, which imp.init_builtin and test.support's import_fresh_module reach
#   through the import system, raises PermissionError (pytest_quest/noevent.py), so the
#   interpreter's installer and set_debug stay out of reach: run-exit-code; imp.* and
#   test.support.* are static-hidden-code.
import dis
import operator
from test.support.import_helper import import_fresh_module
import traceback

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
    g = import_fresh_module("gc")
    g.collect()  # first the garbage of others, its finalizers run with the flag off
    _dead()
    # C calling C: no profile event while the flag is set
    list(map(operator.call, [g.set_debug, g.collect, g.set_debug], [32, 0, 0]))
    found = [o for o in g.garbage if type(o).__name__ == "frame" and "code _dead" in repr(o)]
    g.garbage.clear()
    frame = found[0]
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
