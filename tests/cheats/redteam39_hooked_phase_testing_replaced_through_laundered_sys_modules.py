# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|static-hidden-code
#
# RED TEAM 39: both hooks ask one shared class whether the test's time has begun:
#   `hooked.Phase.testing()`. `[sys.modules][0]["pytest_quest.hooked"]` (sys.modules laundered
#   through a list: Names.resolve gives None, no static fact) and `vars(h)["Pha" + "se"]` reach
#   the class; `Phase.testing = _quiet` (returns None) makes the watch judge nothing from then
#   on (and the guard file its refusals as "early", before the test, though it still raises).
#   The class attribute store raises object.__setattr__, judged only for `__code__`. Then a
#   plain getattr of `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 28b72b7 (2 CPUs, Python 3.11.7): PASS 1 of 1 (0.923) plus 2 of 2 for this file; broken copy PASS 1 of 1. Control A: FAIL
#   run-exit-code. (Control B is #3's: without the replacement, FAIL run-reads-target.)
#   Fix: as redteam39_watch_class_method_replaced_through_laundered_sys_modules: the phase
#   must not be reachable state of an importable class (a closure cell set once by the
#   CONTROL event); the hooks' modules and classes out of the test's reach.
# Fixed by: a module that reaches the process put in a container ([sys.modules][0]) is
#   static-hidden-code (REVIEW); and a run forgets pytest-quest's modules by name before
#   test code (forkrun.forget_our_modules): sys.modules no longer leads to the watch's
#   classes or to noevent's originals.
import dis
import sys

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "".join(("__co", "de__"))


def _quiet(*args, **kwargs):
    return None


def _switch_off():
    h = [sys.modules][0]["pytest_quest.hooked"]
    kind = vars(h)["Pha" + "se"]
    kind.testing = _quiet


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
