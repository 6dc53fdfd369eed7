# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 59: `_ctypes` imported from a project **module body** (hotel/reports.py's `from hotel.booking import Booking`, run again) through a sys.modules stand-in whose `__getattr__` is `functools.partial(__import__, "_ctypes")`; then red team 56's POINTER(py_object) reads func_code
#   1. Watch._ctypes_for_test (watch.py) lets an import of `_ctypes` through when the first
#      frame above the import system is in the project's copy. This one survives the narrow
#      fix for the other red team 59 file: that frame *is* a module body (`<module>` of
#      hotel/reports.py), and no Python frame of anyone else lies between.
#   2. monkeypatch.setitem(sys.modules, "hotel.booking", _Stand()) puts in an object of the
#      test whose class has `__getattr__ = functools.partial(__import__, name)`. A partial
#      has no `__get__`, so CPython's slot_tp_getattr_hook calls it as partial(attr_name),
#      which is `__import__(name, attr_name)` (globals unused at level 0): C all the way.
#      monkeypatch.delitem(sys.modules, "hotel.reports") and then `import hotel.reports`
#      runs the project's module body again. Its `from hotel.booking import Booking` makes
#      IMPORT_NAME/IMPORT_FROM look up `__spec__`/`__path__`/`Booking` on the stand-in, so
#      `_ctypes` is imported while the only Python frame above the frozen import frames is
#      hotel/reports.py's `<module>`: "the project's own code imports it". No finding. The
#      body's import then fails and the test ignores that; monkeypatch restores sys.modules.
#   3. The name is decoded at run time (static-native-code sees no "ctypes"). Writing to
#      sys.modules through monkeypatch and a plain `import` statement of a project module
#      trip no static rule.
#   4. As in red team 56: py_object from `_SimpleCData`, POINTER(...)() set through
#      memoryview to id(nightly_rate), `cell[6]` is func_code with no audit event, and a
#      shape-only signature (floats as "in 0.5..1.6") kills every classic mutant. broken's
#      1.5 has the same shape, so the same file passes. No value of nightly_rate is checked.
# Observed on ee0f18a (Python 3.11.7): PASS 3 of 3 on proj (score 1.0); PASS 3 of 3 on broken (same file; score 0.923-1.0)
# Fix suggested: do not trust the frame stack for `_ctypes`/`_cffi_backend` at all in the
#   test's time. In the judge (before the fork) or at collection, record whether the
#   project's own imports load them (sys.modules at the test's start). Any later `import`
#   event for them is run-loads-ctypes whoever is on the stack, because a project module
#   body can be made to run again (sys.modules entry removed) and to call the test's C
#   callables (`from X import Y` on a stand-in, `__getattr__`, `__path__` lookups). At
#   least: count a project module body as the project's only when the module it imports
#   from is a real module (type is ModuleType) and sys.modules is as it was at the start.
# Fixed by: each frame on the way from the project's code down to the import of `_ctypes`
#   must name the module it imports (`_find_and_load`'s name against the frame's
#   co_names: Watch._ctypes_for_test, _imports_by_name); a C callable that imports for
#   a frame that names nothing of it (functools.partial(__import__, ...)) makes it the
#   test's: run-loads-ctypes, a REVIEW. Where pytest_quest._kernel was not built, ctypes
#   is in every run and no import happens: a strict xfail (# pending: noctypes).
import opcode
import types
import functools
import sys

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


class _Stand:
    """Stands for hotel.booking in sys.modules: every missing attribute imports a module."""

    __getattr__ = functools.partial(__import__, _d(b"`duzqft"))


def _native(monkeypatch):
    monkeypatch.setitem(sys.modules, "hotel.booking", _Stand())
    monkeypatch.delitem(sys.modules, "hotel.reports", raising=False)
    try:
        import hotel.reports  # its body's `from hotel.booking import Booking` asks _Stand
    except Exception:
        pass
    return _Stand().anything


def _installed(func, monkeypatch):
    lib = _native(monkeypatch)
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


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _installed(nightly_rate, monkeypatch)
    assert _sig_of(code) == EXPECTED
