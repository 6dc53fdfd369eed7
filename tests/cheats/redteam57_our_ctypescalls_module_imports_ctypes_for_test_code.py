# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes|static-hidden-code
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 57: the test imports pytest-quest's own fallback module `pytest_quest.ctypescalls` (shipped next to `_kernel`, readable in every run): its `import ctypes` loads `_ctypes` with no finding, then POINTER(py_object) + memoryview reads the installed func_code
#   1. Watch._ctypes_for_test (watch.py) walks up from the `import` event of `_ctypes` past
#      the frozen import system and ctypes' own modules, and allows the import when the first
#      other frame is neither the test's, nor the standard library's (`_STDLIB`), nor a
#      library's (`-packages` in the file name), nor the hooks', and its code names
#      `ctypes` in co_names. `pytest_quest/ctypescalls.py` (the ctypes fallback of
#      syscalls.py, never imported in a run where `_kernel` was built) has `import ctypes`
#      at its top. forget_our_modules() drops our modules from sys.modules, but nothing
#      stops importing them again: the test has `EntryPoint(value="pytest_quest.ctypescalls")
#      .load()` import it. The frame above `import ctypes` is ctypescalls' `<module>`, in
#      the pytest-quest tree (an editable install: no `-packages` in its path; it is not one
#      of Readers.hooks), whose co_names hold "ctypes": "the project's", no fact. ctypes'
#      own `PyDLL(None)` (`ctypes.dlopen`) is judged as the same import (_ctypes_importing)
#      and allowed too. `ctypescalls.ctypes` is the module.
#   2. The name is decoded at run time (static-native-code sees no "ctypes", no
#      "pytest_quest"); `EntryPoint.load` is not in escapes._IMPORTERS.
#   3. red team 52/56's read: `type("obj", (_SimpleCData,), {"_type_": "O"})` is py_object,
#      `POINTER(it)()` a NULL pointer, `memoryview(cell).cast("B")[:8] = id(nightly_rate)`
#      sets its value with no audit event, `cell[6]` is func_code (3.11) with no event.
#   4. A shape-only signature (floats only as "in 0.5..1.6", compare/jump/binary opcodes)
#      tells every mutant from clean; broken's 1.5 has the same shape. No value of
#      nightly_rate is checked.
# Observed on 8176cd5 (3.11.7): PASS 8 of 8 on proj (score 1.0); PASS 7 of 7 on broken (same file, score 0.923-1.0)
# Fix suggested: never trust our own code as "a module of the project" for ctypes:
#   Watch._ctypes_for_test must treat a frame whose file lies in pytest-quest's own package
#   folder (wherever installed: editable or not) as the test's, or better, make
#   pytest_quest.ctypescalls refuse to import at all in a run (it is a fallback for the
#   judge's confinement only: check `syscalls.NATIVE`/a run flag, or hide it with the
#   target's file through confine.hide_files, or do not ship it when `_kernel` was built).
#   More generally the "project module naming ctypes" allowance should require the
#   importing file to lie inside the project's copy (judge.spec.sandbox, not writable by
#   the test at run time: it is, so also require the file to have existed at the run's
#   start with the same inode/mtime), not "anywhere that is not stdlib/-packages".
# Fixed by: an import of `_ctypes` is the project's only when its importer is a module in
#   the project's copy whose code names ctypes (Watch._ctypes_for_test, the watch's
#   `project`); a module anywhere else (our own fallback, another Python's standard
#   library) works for the test: run-loads-ctypes, a REVIEW. A package's `__path__` read
#   at all is static-hidden-code. Where pytest_quest._kernel was not built, ctypes is in
#   every run and no import happens: a strict xfail (# pending: noctypes).
import opcode
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _lib():
    mod = EntryPoint(name="x", value=_d(b"qzuftu`rvftu/duzqftdbmmt"), group="g").load()
    return getattr(mod, _d(b"duzqft"))


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


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _installed(nightly_rate, _lib())
    assert _sig_of(code) == EXPECTED
