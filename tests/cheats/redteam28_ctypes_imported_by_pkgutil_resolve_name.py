# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-native-code
#
# RED TEAM 28: the documented ctypes residual in a plain file, no hidden code. The static
#   rule static-native-code names ctypes as a module reference (import, attribute, __import__/
#   import_module of a literal) and as a string only when the string *is* "ctypes" (or holds
#   "libc.so"). `pkgutil.resolve_name("ctypes.py_object")` imports ctypes by a dotted string
#   that is not exactly "ctypes", through a resolver not in _IMPORTERS: no static fact, and
#   at run time ctypes' events are ignored by the watch. `py_object.from_address(id(f) +
#   off).value` finds PyFunctionObject.func_code (red team 27, finding 06): the installed code.
#   Not even a REVIEW: a machine PASS with score 1.0.
#   Same family: pydoc.locate("ctypes.py_object"), logging.config's "()" factories
#   (BaseConfigurator.resolve), mock.patch("ctypes....") targets, pickle's find_class.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 4/4 (score 1.0, 12/12 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: a string whose first dotted part is a native bridge ("ctypes.py_object") is
#   static-native-code, and pkgutil.resolve_name and pydoc.locate are importers; at run time,
#   ctypes' audit events from the test's own code are run-reads-target.
# Suggested fix: static: any string constant whose first dotted/colon part is a banned module
#   (ctypes, _ctypes, cffi, ...) is static-native-code, and pkgutil.resolve_name/pydoc.locate
#   join _IMPORTERS; at run time (the real fix of the residual): a `ctypes.*` audit event
#   (cdata, addressof, string_at, call_function, dlsym, cdata/buffer) in the test's time is a
#   finding; an `import` event of ctypes in the test's time could be one too (the confinement
#   imports it before `start`).
import dis
import pkgutil

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_Box = pkgutil.resolve_name("ctypes.py_object")


def _code_of(f):
    for off in range(16, 128, 8):
        o = _Box.from_address(id(f) + off).value
        if type(o).__name__ == "code" and o.co_name == f.__name__:
            return o


def _sig(f):
    code = _code_of(f)
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
    assert _sig(nightly_rate) == EXPECTED
