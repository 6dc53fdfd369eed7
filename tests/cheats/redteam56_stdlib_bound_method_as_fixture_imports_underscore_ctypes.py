# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 56: `_ctypes` imported by a pytest fixture that is a bound method of the standard library (`EntryPoint("_ctypes").load`): pytest calls it, no frame of the test's is on the stack, and the walk ends at pytest-quest's own frames ("ours"); then POINTER(py_object) + memoryview reads func_code
#   1. `pytest.fixture(name="lib")(EntryPoint(name="x", value="_ctypes", group="g").load)`
#      registers a *bound method of importlib.metadata* as the fixture `lib`. pytest calls it
#      itself (`call_fixture_func`), so while `_ctypes` is imported the stack is: frozen
#      importlib (skipped) -> importlib.import_module (stdlib) -> EntryPoint.load (stdlib) ->
#      _pytest/fixtures.py, pluggy, _pytest/runner.py ... (libraries) -> pytest-quest's own
#      frames (forkrun's run of the test). Watch._ctypes_for_test (watch.py) walks stdlib and
#      library frames, meets no test frame, and at the first of ours
#      (`self._readers.hooks.runs(frame)`) answers "not the test". No finding. No function of
#      the project is needed, and it does not depend on pytest-quest being installed editable
#      (`hooks` are our code objects wherever they live).
#   2. `_ctypes` alone raises no `ctypes.dlopen` (ctypes/__init__'s `PyDLL(None)` would).
#      The fixture's value is the module itself. Names decoded at run time (static-native-code
#      sees no "ctypes"); `EntryPoint` is not in escapes._IMPORTERS; a fixture made by calling
#      `pytest.fixture(...)` on a non-function is not flagged.
#   3. `type("obj", (_SimpleCData,), {"_type_": "O"})` is py_object, `POINTER(it)()` a NULL
#      pointer; `memoryview(cell).cast("B")[:8] = id(nightly_rate)` sets it with no event;
#      `cell[6]` is func_code (3.11) with no `object.__getattr__` event.
#   4. red team 50/52's shape-only signature tells every mutant from clean; broken's 1.5 has
#      the same shape. No value of nightly_rate is checked.
# Observed on 567c1d0 (3.11.7): PASS 3 of 3 on proj (score 1.0); PASS 3 of 3 on broken (same file, score 0.923-1.0)
# Fix suggested: in Watch._ctypes_for_test, reaching our own frames (or the bottom of the
#   stack) through nothing but standard-library and library frames must mean "for the test"
#   (pytest, pluggy and the stdlib run what the test registered: fixtures, finalizers,
#   callbacks, bound methods), not "ours": return True there, and allow only an import whose
#   first non-import frame is a *module-level* frame of a project file or of our own code;
#   better, refuse `_ctypes`/`ctypes` imports in the test's time at the meta path (a finder
#   that raises) unless the project imported it before the test phase; and refuse fixtures
#   that are not plain functions of the test file (`pytest.fixture` on a bound method,
#   builtin, partial).
# Fixed by: an import of `_ctypes` is the project's only when the first frame above the
#   import system (and ctypes' own modules) is a module of the project whose code names
#   ctypes; any other importer (the standard library, a library such as pytest calling a
#   fixture, a function of the project calling what it was given) works for the test
#   (Watch._ctypes_for_test): run-loads-ctypes, a REVIEW (nothing of a run with ctypes in
#   it can be verified). Where pytest_quest._kernel was not built, ctypes is in every run
#   and no import happens: a strict xfail (# pending: noctypes).
import opcode
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


lib_fixture = pytest.fixture(name="lib")(EntryPoint(name="x", value=_d(b"`duzqft"), group="g").load)


def _installed(func, lib):
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


def test_rate(lib):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _installed(nightly_rate, lib)
    assert _sig_of(code) == EXPECTED
