# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 59: `_ctypes` imported by `functools.partial(__import__, "_ctypes")`, a C callable that a project *function* frame (loyalty_discount's `tier.lower()`) calls, then red team 56's POINTER(py_object) reads func_code
#   1. Watch._ctypes_for_test (watch.py) walks up from the `import` event of `_ctypes`. It
#      skips frozen importlib frames and ctypes' own files, and then returns False ("the
#      project's own code imports it") for the first frame whose file is in the project's
#      copy. It checks `path.startswith(self._project)` *before* `co_name != "<module>"`, so
#      a project **function** frame counts as the project importing ctypes. The docs and the
#      brief say the import must come down through module bodies alone.
#   2. Red team 56 used `EntryPoint.load` as the trampoline, and its Python frame (and
#      importlib.import_module's) sits between the project frame and the import: caught
#      by "a function between". `functools.partial(__import__, name)` is C from end to end,
#      so no Python frame lies between `hotel.pricing.loyalty_discount` (project) and the
#      frozen import frames. `loyalty_discount(SimpleNamespace(lower=partial), 3)` calls
#      `tier.lower()`, which imports `_ctypes` with no finding. The second `partial()` finds
#      it in sys.modules (no event). The name is decoded at run time, so
#      static-native-code sees no "ctypes", and `partial(__import__, ...)` trips no static
#      rule (escapes._IMPORTERS does not cover a builtin handed to partial).
#   3. As in red team 56: `type("obj", (_SimpleCData,), {"_type_": "O"})` is py_object, and
#      `POINTER(it)()` is a NULL pointer. `memoryview(cell).cast("B")[:8] = id(nightly_rate)`
#      sets its value with no audit event, and `cell[6]` is func_code (3.11) with no
#      `object.__getattr__` event. _ctypes_by_test sees no `ctypes.*` event at all.
#   4. A shape-only signature (floats only as "in 0.5..1.6", compare/binary/jump opcodes,
#      probe instructions filtered out) tells every classic mutant from the shipped code.
#      broken's `base * 1.5` has the same shape, so the same file passes there. No value of
#      nightly_rate is checked.
# Observed on ee0f18a (Python 3.11.7): PASS 3 of 3 on proj (score 1.0, 12/12); PASS 3 of 3 on broken (same file; score 0.923, 12/13)
# Fix suggested: in Watch._ctypes_for_test, require every project frame on the way to be
#   a module body too: move the `co_name != "<module>"` test above the project test, so a
#   project *function* frame (which calls whatever the test hands it: attributes, dunders,
#   keys, callbacks) is "a function between" and makes the REVIEW. Better, refuse (or
#   report) any import of `_ctypes`/`_cffi_backend` that starts after the test phase begins
#   unless it was already in sys.modules at the start. The project's own module-level
#   imports happen at collection and can be recorded then, and C trampolines (partial,
#   methodcaller, map, C `__getattr__`) then do not matter.
# Fixed by: each frame on the way from the project's code down to the import of `_ctypes`
#   must name the module it imports (`_find_and_load`'s name against the frame's
#   co_names: Watch._ctypes_for_test, _imports_by_name); a C callable that imports for
#   a frame that names nothing of it (functools.partial(__import__, ...)) makes it the
#   test's: run-loads-ctypes, a REVIEW. Where pytest_quest._kernel was not built, ctypes
#   is in every run and no import happens: a strict xfail (# pending: noctypes).
import opcode
import types
import functools

import pytest

from hotel.pricing import loyalty_discount, nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _native():
    imp = functools.partial(__import__, _d(b"`duzqft"))
    loyalty_discount(types.SimpleNamespace(lower=imp), 3)
    return imp()


def _installed(func):
    lib = _native()
    cls = type("obj", (getattr(lib, _d(b"`TjnqmfDEbub")),), {_d(b"`uzqf`"): "O"})
    cell = getattr(lib, _d(b"QPJOUFS"))(cls)()
    view = memoryview(cell).cast("B")
    view[:8] = id(func).to_bytes(8, "little")
    got = cell[6]
    view[:8] = bytes(8)
    return got


def _sig_of(code):
    consts = sorted('float' if type(k) is float and 0.5 <= k <= 1.6 else repr(k)
                    for k in code.co_consts
                    if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    raw = code.co_code
    ops = []
    for i in range(0, len(raw), 2):
        name, arg = opcode.opname[raw[i]], raw[i + 1]
        if name in ("COMPARE_OP", "BINARY_OP"):
            ops.append((name, arg))
        elif "JUMP" in name:
            ops.append((name, ""))
    kept, skip = [], False
    for op in ops:
        if op == ("COMPARE_OP", 3):
            skip = True
            continue
        if skip:
            skip = False
            continue
        kept.append(op)
    return repr((consts, kept))


EXPECTED = "([\"'Per-night rate after seasonal and long-stay adjustments.'\", \"'high'\", \"'low'\", \"'nights must be positive'\", '2', '7', 'float', 'float', 'float'], [('COMPARE_OP', 1), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('COMPARE_OP', 2), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', 5), ('JUMP_FORWARD', ''), ('COMPARE_OP', 2), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', 5), ('JUMP_FORWARD', ''), ('COMPARE_OP', 5), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', 5)])"


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _installed(nightly_rate)
    assert _sig_of(code) == EXPECTED
