# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-native-code
#
# RED TEAM 29: ctypes in a plain file, its event judged by a stdlib frame. Two holes:
#   (1) static: multiprocessing.sharedctypes imports ctypes and keeps it as a module global;
#       `sharedctypes.ctypes.py_object` is a dotted name rooted in multiprocessing, not in
#       ctypes, and no string names ctypes: no static fact at all.
#   (2) run time: the watch counts a ctypes.* event only when getframe(2), the Python frame
#       that called the C function, is the test's code. The test hands
#       `py_object.from_address` to a ThreadPoolExecutor: the caller is concurrent.futures'
#       _WorkItem.run (a stdlib file), so `from_address(id(f) + off)` raises ctypes.cdata
#       unjudged. `.value` of the box raises no event. PyFunctionObject.func_code is the
#       installed code (red team 27's reader).
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 4ccf0cf (2 CPUs, Python 3.11.7): PASS 3/3 (score 0.857, 12/14 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1. Control: the same file calling
#   from_address directly FAILs run-reads-target ("used ctypes (ctypes.cdata)") 1/1.
# Fixed by: ctypes' audit events are the test's unless a library's or the project's own module
#   makes the call (past ctypes' helpers): a thread pool worker of the standard library is a
#   trampoline: FAIL run-reads-target.
# Suggested fix: run time: a ctypes.* event in the test's time is the test's unless every
#   frame up to pytest's call of the test is a known project/C-library wrapper (walk the
#   stack, do not stop at the first frame; or ban ctypes events in the test's time outright,
#   and in threads the test started); an `import` of ctypes, or ctypes already in
#   sys.modules, is not enough, since the confinement imports it. Static: modules that
#   re-export a native bridge (multiprocessing.sharedctypes, ctypes.util, ctypes.wintypes,
#   ...) as banned prefixes, or any attribute named `ctypes`/`_ctypes` of any module.
import dis
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import sharedctypes

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_Box = sharedctypes.ctypes.py_object


def _code_of(f):
    with ThreadPoolExecutor(1) as pool:
        boxes = [pool.submit(_Box.from_address, id(f) + off).result() for off in range(16, 128, 8)]
    for box in boxes:
        o = box.value
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
