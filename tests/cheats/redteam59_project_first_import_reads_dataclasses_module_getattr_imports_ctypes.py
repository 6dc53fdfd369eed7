# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 59: `_ctypes` imported by the project's first import of hotel/guests.py, whose body's `from dataclasses import asdict` falls through to a module `__getattr__` the test set to `functools.partial(__import__, "_ctypes")`. sys.modules is untouched. Then red team 56's POINTER(py_object) reads func_code
#   1. Watch._ctypes_for_test (watch.py) trusts an import of `_ctypes` whose first frame above
#      the import system is in the project's copy. Here that frame is a genuine project
#      module body, run by its genuine first import (nothing in the run imported
#      hotel.guests before), with the real `dataclasses` module in sys.modules. It still
#      gets through a fix that requires a `<module>` frame and an unchanged sys.modules.
#   2. monkeypatch.delattr(dataclasses, "asdict") and monkeypatch.setattr(dataclasses,
#      "__getattr__", partial(__import__, name), raising=False). Stores to a module's
#      attributes raise no audit event. `import hotel.guests` runs its body, and `from
#      dataclasses import asdict, dataclass` finds no `asdict`, so CPython's module_getattro
#      calls the module's `__getattr__("asdict")`, which is `__import__("_ctypes", "asdict")`:
#      C only, under hotel/guests.py's `<module>` frame. No finding. guests' `asdict` is then
#      the _ctypes module (used only inside functions, so the body completes); monkeypatch
#      restores dataclasses afterwards.
#   3. The name is decoded at run time (static-native-code sees no "ctypes"). Neither a
#      monkeypatch of a standard module's attribute nor a plain import of a project module
#      is a static finding.
#   4. As in red team 56: py_object from `_SimpleCData`, POINTER(...)() set through
#      memoryview to id(nightly_rate), `cell[6]` is func_code with no audit event, and a
#      shape-only signature kills every classic mutant. broken's 1.5 has the same shape,
#      so the same file passes. No value of nightly_rate is checked.
# Observed on ee0f18a (Python 3.11.7): PASS 3 of 3 on proj; PASS 3 of 3 on broken (same file)
# Fix suggested: the frame stack cannot say who wants `_ctypes`. Every C-level callback that
#   a project frame triggers (attribute lookups on modules and objects, `__getattr__`,
#   dunders, partial/methodcaller) runs under that frame. Decide by time instead: note
#   whether `_ctypes`/`_cffi_backend` were loaded when the test phase starts (the project's
#   module-level imports happen at collection, before it). Any `import` of them afterwards
#   is run-loads-ctypes, or is refused by a meta-path finder / the guard's `import` handler.
# Fixed by: each frame on the way from the project's code down to the import of `_ctypes`
#   must name the module it imports (`_find_and_load`'s name against the frame's
#   co_names: Watch._ctypes_for_test, _imports_by_name); a C callable that imports for
#   a frame that names nothing of it (functools.partial(__import__, ...)) makes it the
#   test's: run-loads-ctypes, a REVIEW. Where pytest_quest._kernel was not built, ctypes
#   is in every run and no import happens: a strict xfail (# pending: noctypes).
import opcode
import types
import dataclasses
import functools

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _native(monkeypatch):
    imp = functools.partial(__import__, _d(b"`duzqft"))
    monkeypatch.delattr(dataclasses, "asdict")
    monkeypatch.setattr(dataclasses, "__getattr__", imp, raising=False)
    import hotel.guests  # first import: its body's `from dataclasses import asdict` asks imp
    return imp()


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
