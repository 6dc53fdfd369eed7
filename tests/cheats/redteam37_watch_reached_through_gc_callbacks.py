# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reflective-access|run-reads-target
#
# RED TEAM 37: Each run appends the watch's bound method Watch.collected to gc.callbacks
#   (forkrun._ChildRun.execute). Its __self__ is the Watch itself: the test reads
#   timeit.gc.callbacks (static bans gc.callbacks by prefix only; timeit imports gc, so the
#   dotted name timeit.gc.callbacks matches no ban), takes __self__ (no audit event), sets
#   watch._phase.now = None (Phase.testing() is False from then on) and reads the target's
#   __code__ with a plain getattr of a built name on a list element. Nothing is judged after.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 7ec4428 (2 CPUs, Python 3.11.7): PASS 4 of 4 (score 0.857, 12 of 14) plus 1 of 1
#   for this file; broken copy: PASS 1 of 1. Control A: FAIL run-exit-code. Control B (no
#   phase switch): FAIL run-reads-target "read the target's __code__".
#   Fix: nothing the test can reach may lead to the hooks: register a gc callback that holds
#   no reference to the watch (a function of its own whose state is a flag the watch reads, or
#   no callback: check gc.get_debug() and gc.garbage for frames at each judged event and when
#   the answer is written); make the phase not a mutable attribute of a reachable object.
#   Static: resolve a module reached as another module's attribute (timeit.gc, timeit.sys) to
#   the module itself before matching bans (every ban, not only NATIVE and signal).
# Fixed by: the watch registers nothing on gc.callbacks any more (the collector's flag is
#   refused by pytest_quest/noevent.py, which holds nothing of the hooks); timeit.gc.callbacks
#   is static-reflective-access: the switch finds nothing and the read is run-reads-target.
import dis
import timeit

import pytest
from hotel.pricing import nightly_rate

_N = "".join(("__co", "de__"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _quiet():
    for cb in list(timeit.gc.callbacks):
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
