# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 40: as redteam40_object_subclasses_reach_watch_class, but the class found among
#   `object.__subclasses__()` (reached as `getattr(_Root.__base__, _S)()`, `_S` a joined
#   string: no static fact, no audit event) is `pytest_quest.hooked.Phase`, and
#   `Phase.testing = _quiet` makes both hooks (the code watch and the guard) believe the
#   test's time never began. Then a plain getattr of `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on f8826e4 (2 CPUs, Python 3.11): PASS (0.8), broken copy PASS (0.923) with
#   EXPECTED rebuilt with 1.5; control A: FAIL run-exit-code; control B (class found, not
#   changed): FAIL run-reads-target.
#   Fix: no per-event lookup on a mutable class: the phase a closure cell set once by the
#   start; judge object.__setattr__ on any class whose __module__ is ours; static: getattr
#   by a built name on `X.__base__`/`__mro__`/`object`/`type` is a finding.
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
        if kind.__name__ == "Pha" + "se" and kind.__module__.endswith(".hooked"):
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
