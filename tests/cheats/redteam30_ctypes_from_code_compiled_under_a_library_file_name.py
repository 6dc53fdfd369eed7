# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-native-code
#
# RED TEAM 30: ctypes from code compiled under a library's file name. `_ctypes_by_test` counts
#   a ctypes event when the calling frame is the test file's, `<string>` or the stdlib's - all
#   told by co_filename. `installed(f)` = `_BOX.from_address(id(f) + 48).value` is a string
#   literal compiled as "/opt/quest-helpers/memory.py" and made a function with
#   `type(lambda: None)(code, globals())`: the call is "a library's", believed. ctypes is
#   `multiprocessing.sharedctypes.ctypes.py_object` (no static fact).
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 2/2; broken copy (base * 1.5, EXPECTED with
#   1.5): PASS 1/1; control: the same read called from the test file's own code FAILs
#   run-reads-target "used ctypes (ctypes.cdata)" 1/1 (redteam30_ctypes_called_by_pytest_callinfo_from_call.py's control).
# Suggested fix: as redteam30_probe_compiled_under_a_library_file_name.py (the test's code by
#   identity, not by name) and as the pytest CallInfo file (ctypes memory reads in the test's
#   time are the test's).
# Fixed by: code compiled in the test's time under any file name is the test's
#   (the import system's compile of a module's file aside); compile() under a name that is
#   not <...> is static-hidden-code; sharedctypes.ctypes is static-native-code.
import dis
import functools
from multiprocessing import sharedctypes

import pytest
from hotel.pricing import nightly_rate

_BOX = sharedctypes.ctypes.py_object
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


_LIB = compile('''
def installed(f):
    return _BOX.from_address(id(f) + 48).value
''', "/opt/quest-helpers/memory.py", "exec")
_installed = type(lambda: None)(_LIB.co_consts[0], globals())


def _sig(f):
    code = _installed(f)
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
