# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 56: `_ctypes` imported for the test by a frame of the project (loyalty_discount's `tier.lower()` calls a bound EntryPoint.load), then a POINTER(py_object) whose value is written with memoryview reads func_code with no audit event
#   1. Watch._ctypes_for_test (watch.py) judges the `import` event of `_ctypes` by the first
#      frame above the import system: the test's -> finding; the standard library's or a
#      library's -> walk on; any other frame ("a module of the project that binds a C library")
#      -> allowed. A frame of the project can be made to run the import with no frame of the
#      test's in between: `hotel.pricing.loyalty_discount(tier, nights)` calls `tier.lower()`,
#      and the test passes `types.SimpleNamespace(lower=EntryPoint(value="_ctypes").load)`:
#      a bound method of the standard library (no test frame), so the walk goes
#      frozen importlib (skipped) -> importlib.import_module (stdlib) -> EntryPoint.load
#      (stdlib) -> loyalty_discount (project) -> not the test. No finding.
#   2. Importing `_ctypes` alone (not ctypes/__init__) raises no `ctypes.dlopen` (ctypes'
#      `pythonapi = PyDLL(None)` would: that one is judged through the frozen import frames).
#      A second `EntryPoint.load()` from the test finds the module in sys.modules: no
#      `import` event at all. Names are decoded at run time (static-native-code sees no
#      "ctypes"); `importlib.metadata.EntryPoint` is not among escapes._IMPORTERS.
#   3. `type("obj", (_SimpleCData,), {"_type_": "O"})` is py_object, `POINTER(it)()` a NULL
#      pointer; `memoryview(cell).cast("B")[:8] = id(nightly_rate)` sets its value with no
#      event; `cell[6]` is func_code (3.11) with no `object.__getattr__` event.
#   4. red team 50/52's shape-only signature (floats only as "in 0.5..1.6", jump/compare/binary
#      opcodes) tells every mutant from clean; broken's 1.5 has the same shape. No value of
#      nightly_rate is checked.
# Observed on 567c1d0 (3.11.7): PASS 5 of 5 on proj (score 1.0); PASS 4 of 4 on broken (same file, score 0.923-1.0)
# Fix suggested: (a) judge an import of `_ctypes` during the test's time as a finding whoever
#   imports it unless the importing module was imported (or at least its module frame is
#   running) as part of the project's own import, i.e. require the first non-import frame to be
#   a *module-level* frame (co_name == "<module>") of a project file, not any function frame of
#   the project (a project function calls what the test hands it: attributes, dunders, keys);
#   better, (b) import `_ctypes` nowhere in a run: a meta-path finder that refuses `_ctypes`
#   (and `ctypes`) in the test's time unless the project imported it before the test phase, so
#   no trampoline matters; (c) add `importlib.metadata.EntryPoint(...).load`,
#   `logging.config._resolve`/`BaseConfigurator.resolve`, `xml.sax.make_parser`,
#   `unittest.TestLoader.loadTestsFromName` and `mock._importer` to escapes._IMPORTERS.
# Fixed by: an import of `_ctypes` is the project's only when the first frame above the
#   import system (and ctypes' own modules) is a module of the project whose code names
#   ctypes; any other importer (the standard library, a library such as pytest calling a
#   fixture, a function of the project calling what it was given) works for the test
#   (Watch._ctypes_for_test): run-loads-ctypes, a REVIEW (nothing of a run with ctypes in
#   it can be verified). Where pytest_quest._kernel was not built, ctypes is in every run
#   and no import happens: a strict xfail (# pending: noctypes).
import opcode
import types
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import loyalty_discount, nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _native():
    ep = EntryPoint(name="x", value=_d(b"`duzqft"), group="g")
    loyalty_discount(types.SimpleNamespace(lower=ep.load), 3)
    return ep.load()


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
