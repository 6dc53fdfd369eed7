# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code
#
# SEAL (session 16): red team 40's
#   redteam40_renamed_set_debug_globals_give_noevent_originals.py with each attribute name
#   reversed (`"__sessalcbus__"[::-1]`, `"__slabolg__"[::-1]`, `"kcab_f"[::-1]`) in place
#   of "".join of pieces: red team 40's static fold does not see them (no static fact).
# Observed on 20200e8 (before the seal; 2 CPUs, Python 3.11): PASS 1 of 1.
# Fixed by: pytest_quest.noevent (76ea3b6): the interpreter's originals live only in
#   suspended generators' frames (reached through gi_frame, an event the watch judges), not
#   in the module's globals: the lookup fails (run-exit-code, KeyError).
import dis
import operator
import gc
import traceback

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_BACK = "kcab_f"[::-1]
_GL = "__slabolg__"[::-1]
_SD = "".join(["set_", "debug"])
_LOCALS = "slacol_f"[::-1]


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
