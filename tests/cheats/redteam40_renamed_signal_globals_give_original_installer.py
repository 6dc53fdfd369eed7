# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code|static-reflective-access
#
# RED TEAM 40: the same root as redteam40_renamed_set_debug_globals_give_noevent_originals
#   (noevent's replacements carry the interpreter's __module__, so their code is not in the
#   watch's `hooks` and their `__globals__` is read with no finding), through the replaced
#   `_signal.signal`: `getattr(dis.dis, _GL)["sys"].modules["_sig" + "nal"]` (unresolved by
#   the static rules), `getattr(getattr(s, _SG), _GL)["_INS" + "TALL"]` is the interpreter's
#   own `_signal.signal`. Then red team 39's #1: a raw SIGALRM handler on an itimer lands a
#   frame inside Watch.__call__, whose `self._phase.now = None` switches the watch off; the
#   handler is put back to SIG_DFL before a plain getattr of `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on f8826e4 (2 CPUs, Python 3.11): PASS (0.75), broken copy PASS (0.8) with
#   EXPECTED rebuilt with 1.5; control A: FAIL run-exit-code; control B (the replaced
#   installer, which shields the handler and hands it no frame): FAIL run-reads-target.
#   Fix: as for the set_debug file; also block signals inside the hook, and make the phase
#   unreachable from a frame's `self` (a closure cell), as red team 39 asked.
# Fixed by: getattr of a name folded from "".join of literals (also through a name the file
#   binds) that is __globals__, __subclasses__ or a frame's part is static-reflective-access.
#   At run time (76ea3b6): the originals are no longer in noevent's globals (generator frames).
import dis
import os


from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "f_" + "back"
_LOCALS = "f_" + "locals"
_N = "".join(("__co", "de__"))
_W = []
_GL = "".join(["__glo", "bals__"])
_SG = "".join(["sig", "nal"])


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
    s = getattr(dis.dis, _GL)["sys"].modules["_sig" + "nal"]
    ne = getattr(getattr(s, _SG), _GL)
    inst = ne["_INS" + "TALL"]
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
