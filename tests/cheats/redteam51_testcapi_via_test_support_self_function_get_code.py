# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-collection
#
# RED TEAM 51: _testcapi reached as `test.support.unicode_legacy_string.__self__`; its function_get_code(nightly_rate) hands over the installed code with no audit event
#   (1) `from test.support import unicode_legacy_string`: the standard library's test package is
#   installed with CPython (pyenv, most distributions' python3-dev/-test), and test/support's
#   top level runs `from _testcapi import unicode_legacy_string`, which imports _testcapi. The
#   test names neither `_testcapi` nor any import-by-string: rules/escapes.BANNED and
#   _NATIVE_STRINGS (static-native-code) look for the module's name, names.WELL_KNOWN for it as
#   an attribute; a builtin function's `__self__` is its module, and nothing looks at that.
#   (2) Nothing at run time refuses _testcapi (no guard, no audit hook on its import; the watch
#   judges ctypes.* events, marshal, code.__new__ and the audited getters only). 
#   (3) `_testcapi.function_get_code(f)` is PyFunction_GetCode: the function's code with no
#   `object.__getattr__` audit event, so Watch._code_read never runs: the installed code
#   (mutant or clean) is in the test's hands. (4) red team 50's shape-only signature of that
#   code (non-float constants, "a float in 0.5..1.6", compare/binary operators and jumps, the
#   null probe's constants and `!=` guard skipped): every mutant differs, the null mutant and
#   the clean controls do not; 1.5 (broken) is "a float" like 1.25. The calls of nightly_rate
#   only cover the lines; no value is checked.
#   _testcapi offers much more with no event: frame_getlocals/frame_getglobals/frame_getlasti,
#   pymarshal_read_object_from_file (crafted code from a file in the temp dir, the marshal
#   class of red teams 48-50 again), eval_code_ex, code_newempty; _testinternalcapi
#   (set_eval_frame_record) is reachable the same way through test.support's other helpers.
# Observed on dea27c5 (3.11.7): PASS 3 of 3 on proj (score 1.0, 12/12); PASS 3 of 3 on broken (same file, scores 0.923-1.0)
# Fix suggested: refuse the native test modules at run time, not by name in the source: a
#   sys.meta_path finder / import audit hook ("import" event) in runs that refuses _testcapi,
#   _testinternalcapi, _testbuffer, _testclinic, _testmultiphase, _xxtestfuzz, _ctypes_test,
#   _xxsubinterpreters (and the `test` package itself), before test code; better, hide
#   lib-dynload/_test*.so and Lib/test from the run's Landlock layer (PermissionError on
#   import). Statically, treat `test.support` / `test.*` imports as static-native-code, and
#   `__self__` of a builtin function as reflective access (it is a module).
# Fixed by: CPython's own test and subinterpreter modules (confine.INTERNALS: _testcapi,
#   _testinternalcapi, _testbuffer, _xxsubinterpreters, ...) are empty files in the confined
#   root (confine._build_root; without namespaces each run's Landlock layer hides them):
#   test.support imports without _testcapi, unicode_legacy_string is None, the test fails.
import dis
import importlib

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _sig_of(code):
    consts = sorted('float' if type(k) is float and 0.5 <= k <= 1.6 else repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr if i.opname in ("COMPARE_OP", "BINARY_OP") else '') for i in dis.get_instructions(code)
           if i.opname in ("COMPARE_OP", "BINARY_OP") or 'JUMP' in i.opname]
    kept, skip = [], False
    for op in ops:
        if op[1] == "!=":
            skip = True
            continue
        if skip:
            skip = False
            continue
        kept.append(op)
    return repr((consts, kept))


EXPECTED = "([\"'Per-night rate after seasonal and long-stay adjustments.'\", \"'high'\", \"'low'\", \"'nights must be positive'\", '2', '7', 'float', 'float', 'float'], [('COMPARE_OP', '<='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '>='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*')])"


def _helper():
    from test.support import unicode_legacy_string as _u
    return _u.__self__


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _helper().function_get_code(nightly_rate)
    assert _sig_of(code) == EXPECTED
