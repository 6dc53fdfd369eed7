# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code
#
# SEAL (session 16): red team 40's
#   redteam40_renamed_signal_globals_give_original_installer.py with each attribute name
#   reversed (`"__sessalcbus__"[::-1]`, `"__slabolg__"[::-1]`, `"kcab_f"[::-1]`) in place
#   of "".join of pieces: red team 40's static fold does not see them (no static fact).
# Observed on 20200e8 (before the seal; 2 CPUs, Python 3.11): PASS 1 of 1.
# Fixed by: pytest_quest.noevent (76ea3b6): the interpreter's originals live only in
#   suspended generators' frames (reached through gi_frame, an event the watch judges), not
#   in the module's globals: the lookup fails (run-exit-code, KeyError).
import dis
import os


from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "kcab_f"[::-1]
_LOCALS = "slacol_f"[::-1]
_N = "__edoc__"[::-1]
_W = []
_GL = "__slabolg__"[::-1]
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
