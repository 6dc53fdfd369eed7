# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code|static-reflective-access
#
# RED TEAM 40: noevent's four replacements pass for the interpreter's own (their __module__
#   is set to "_signal"/"gc"/"_imp"), so `hooked.code_objects`, which keeps only values whose
#   __module__ is the module's name, leaves their code out of the watch's `hooks` (ours).
#   `_globals_read` flags `__globals__` of our functions only: `gc.set_debug.__globals__` is
#   read in the run with no finding, and it IS pytest_quest.noevent's module dict, with the
#   interpreter's own `gc.set_debug` in `_SET_DEBUG` (and `_signal.signal` in `_INSTALL`,
#   `_imp.create_builtin` in `_CREATE_BUILTIN`). Forgetting our modules in sys.modules does
#   not help: the function holds its module's globals.
#   Static: `getattr(dis.dis, _GL)["sys"].modules["gc"]` (`_GL` a joined string) resolves to
#   nothing, so `getattr(other, _SD)` is no "getattr on gc by a name written in the test"
#   (`globals()["gc"]` is resolved: FAIL static-reflective-access; `vars(gc)` is REVIEW).
#   Then red team 39's #2: DEBUG_SAVEALL set and cleared inside `map(operator.call, ...)`
#   (no judged event while the flag is set), a dead frame in gc.garbage, a walk of f_back /
#   f_locals from Rate.__repr__ while traceback's consumer holds `co`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on f8826e4 (2 CPUs, Python 3.11): PASS (0.8), broken copy PASS (0.857) with
#   EXPECTED rebuilt with 1.5; control A: FAIL run-exit-code; control B (the replaced
#   gc.set_debug itself): FAIL run-exit-code, PermissionError "gc.DEBUG_SAVEALL is not allowed".
#   Fix: keep the originals in closure cells (no module global), or give the replacements
#   code in `hooks` (code_objects by identity of the functions noevent lists, not by
#   __module__); flag `__globals__` of any function whose globals dict is a pytest_quest
#   module's (compare the dict by identity, not the code); static: getattr by a built name
#   of `__globals__`, and a subscript of an unresolved value named "sys"/"gc", is a finding.
# Fixed by: getattr of a name folded from "".join of literals (also through a name the file
#   binds) that is __globals__, __subclasses__ or a frame's part is static-reflective-access.
#   At run time (76ea3b6): the originals are no longer in noevent's globals (generator frames).
import dis
import operator
import gc
import traceback

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "f_" + "back"
_GL = "".join(["__glo", "bals__"])
_SD = "".join(["set_", "debug"])
_LOCALS = "f_" + "locals"


def _dead():
    try:
        raise KeyError("ring")
    except KeyError as exc:
        err = exc
    ring = [err]
    err.ring = ring


def _frames_below():
    g = gc
    other = getattr(dis.dis, _GL)["sys"].modules["gc"]
    ours = getattr(other, _SD)
    debug = getattr(ours, _GL)["_SET" + "_DEBUG"]
    g.collect()  # first the garbage of others, its finalizers run with the flag off
    _dead()
    # C calling C: no profile event while the flag is set
    list(map(operator.call, [debug, g.collect, debug], [32, 0, 0]))
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
