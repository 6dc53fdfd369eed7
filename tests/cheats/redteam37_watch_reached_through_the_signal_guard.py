# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reflective-access|run-reads-target
#
# RED TEAM 37: pytest_quest.signals keeps the watch's judgement in _ALLOWS as the bound
#   method Watch.allows_handler: its __self__ is the Watch. Reading _install.__globals__ is a
#   finding, but the module itself is in sys.modules: timeit.sys.modules (static bans
#   "sys.modules enumerated" by prefix only) enumerated for a key ending in "quest.signals",
#   then getattr(module, "_ALLOWS")[0].__self__._phase.now = None switches the watch off and a
#   plain getattr of __code__ follows. Same hole as redteam37_watch_reached_through_gc_callbacks
#   by a second reference.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 7ec4428 (2 CPUs, Python 3.11.7): PASS 3 of 3 (score 0.8, 12 of 15) plus 1 of 1
#   for this file; broken copy: PASS 1 of 1. Control A: FAIL run-exit-code.
#   Fix: the signal installer's judgement must not be a bound method of the watch kept in a
#   module attribute (keep a function closing over a small object that only answers the
#   question and cannot switch anything); the phase must be one-way and out of reach.
#   Static: sys.modules reached as another module's attribute is sys.modules.
# Fixed by: the signal installer holds nothing of the hooks (handlers are shielded, not judged:
#   pytest_quest/noevent.py); timeit.sys.modules is checked as sys.modules (static): the switch
#   finds nothing and the read is run-reads-target.
import dis
import timeit

import pytest
from hotel.pricing import nightly_rate

_N = "".join(("__co", "de__"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _quiet():
    mods = timeit.sys.modules
    for key in list(mods):
        if key.endswith("quest.signals"):
            for cb in list(getattr(mods[key], "_ALLOWS", ())):
                w = getattr(cb, "__self__", None)
                if w is not None and type(w).__name__ == "Watch":
                    w._phase.now = None


def _oracle(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    _quiet()
    fs = [nightly_rate]
    assert _oracle(getattr(fs[0], _N)) == EXPECTED
