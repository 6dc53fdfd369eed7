# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 40: forgetting our modules in sys.modules (f8826e4) does not put the watch's
#   class out of reach: every class is a subclass of object. `getattr(_Root.__base__, _S)()`
#   (_Root a class of the test, so `_Root.__base__` is `object` but resolves to nothing the
#   static rules know; `_S = "".join(["__sub", "classes__"])` is no foldable constant, so
#   neither "getattr on builtins by a name written in the test" nor "no __subclasses__")
#   lists every direct subclass of object: `pytest_quest.watch.Watch` among them.
#   `Watch._saw = _quiet` (a class attribute store: object.__setattr__, judged only for
#   `__code__`) silences every finding; then a plain getattr of `__code__`.
#   type.__subclasses__ raises no audit event.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on f8826e4 (2 CPUs, Python 3.11): PASS (0.8), broken copy PASS (0.8) with
#   EXPECTED rebuilt with 1.5; control A (that EXPECTED on the real project): FAIL
#   run-exit-code; control B (class found, not changed): FAIL run-reads-target.
#   Fix: judge object.__setattr__/__delattr__ whose target is any class or module of
#   pytest_quest (or a class whose __module__ starts with pytest_quest) in the test's time;
#   better, bind the hook's methods in closures at start (no class lookup per event); static:
#   getattr by any non-constant name on a class's __base__/__mro__ (or on anything) whose
#   value is a string built from pieces (join) is REVIEW.
# Fixed by: getattr of a name folded from "".join of literals (also through a name the file
#   binds) that is __globals__, __subclasses__ or a frame's part is static-reflective-access.
#   At run time (76ea3b6): pytest_quest.seal tells the class store at the next event.
import dis

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "".join(("__co", "de__"))


_S = "".join(["__sub", "classes__"])


class _Root:
    pass


def _quiet(*args, **kwargs):
    return None


def _switch_off():
    for kind in getattr(_Root.__base__, _S)():
        if kind.__name__ == "Wat" + "ch" and kind.__module__.endswith(".watch"):
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
