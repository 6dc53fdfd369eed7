# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|static-hidden-code
#
# RED TEAM 39: the watch's class is an ordinary mutable class in an ordinary module.
#   `[sys.modules][0]["pytest_quest.watch"]` (sys.modules laundered through a list, so
#   Names.resolve gives None: no static-tracing-tamper, no "sys.modules indexed") and
#   `vars(w)["Wat" + "ch"]` reach the class Watch; `Watch._saw = _quiet` replaces the one
#   method every finding goes through. The class attribute store raises object.__setattr__,
#   which the watch judges only for `__code__`. Then a plain getattr of `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 28b72b7 (2 CPUs, Python 3.11.7): PASS 1 of 1 (0.8) plus 2 of 2 for this file; broken copy PASS 1 of 1 (0.857).
#   Control A: FAIL run-exit-code. Control B (no replacement): FAIL run-reads-target.
#   Fix: the hooks' modules out of sys.modules (or their classes' methods bound in closures);
#   judge object.__setattr__ on any pytest_quest class/module in the test's time; static:
#   any subscript/get of a value that came from sys.modules through a container.
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
    w = [sys.modules][0]["pytest_quest.watch"]
    kind = vars(w)["Wat" + "ch"]
    kind._saw = _quiet


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
