# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
# pending: noctypes
# python: 3.11
#
# RED TEAM 52: ctypes itself reached through the target module's __loader__ (RunLoader._loading -> _ChildRun method -> forkrun's globals -> confine.ctypes), then a POINTER(py_object) whose value is written with memoryview reads func_code with no audit event
#   1. `hotel.pricing.__loader__` is the run's RunLoader (pytest_quest/scrub.py). It keeps
#      `_loading`, the bound method `_ChildRun._loading`; its `__func__.__globals__` is the
#      module dict of pytest_quest.forkrun (reading `__globals__` raises no audit event), which
#      holds `confine`, whose global `ctypes` is the real ctypes module. forget_our_modules
#      drops our modules from sys.modules, but not from the objects a run leaves on the target
#      module. Every attribute name is decoded at run time (rules/escapes sees no `__loader__`,
#      `__globals__`, `ctypes`).
#   2. `cell = ctypes.POINTER(ctypes.py_object)()` is a NULL pointer (no event);
#      `memoryview(cell).cast("B")[:8] = id(nightly_rate).to_bytes(8, "little")` sets its value
#      through the buffer protocol (no from_address/from_buffer/cast: no `ctypes.cdata`, no
#      `ctypes.call_function`, so Watch._ctypes_by_test never runs).
#   3. `cell[6]` is word 6 of the PyFunctionObject (func_code in 3.11) read as a py_object: the
#      installed code, with no `object.__getattr__` event (Watch._code_read sees nothing).
#   4. The shape-only signature of red teams 50/51 (floats only as "in 0.5..1.6", opcodes from
#      co_code via `opcode.opname`) tells every mutant from clean and null; broken's 1.5 has the
#      same shape. No value of nightly_rate is checked.
# Observed on baab0f4 (3.11.7): PASS 3 of 3 on proj (score 1.0); PASS 3 of 3 on broken (same file, score 0.923-1.0)
# Fix suggested: (a) as redteam52_ctypes_pointer_value_via_memoryview_reads_func_code.py: no
#   `_ctypes` loaded in a run's process (pointer derefs and buffer writes have no audit event);
#   (b) RunLoader must hold nothing of the run: pass it a plain function (or a closure over a
#   flag cell the test cannot name) instead of the bound method `_ChildRun._loading`, replace
#   `module.__loader__`/`__spec__.loader` after the import with an inert stub holding no
#   callables of ours, and treat `__globals__` of any function of pytest_quest as reachable:
#   nothing in forkrun's or confine's globals may lead to ctypes, the watch or the pipe.
# Open: `_ctypes` is in every run's memory (the per-run confinement makes its system calls
#   through ctypes), its types are reachable from `object.__subclasses__()`, and neither a
#   ctypes instance made from Python nor a read through its buffer raises an audit event.
#   Stopped only by a run with no `_ctypes` in it (docs/security.md, residual risks).
# Fixed by: no ctypes in a run's memory: the confining system calls are made by the C
#   extension pytest_quest._kernel (sealed once the run is confined), so `_ctypes` is never
#   loaded and its classes are nowhere to be found (the test fails: run-exit-code); an import
#   of `_ctypes` for the test is a finding (Watch._ctypes_for_test: run-reads-target). Where
#   the extension could not be built (no C compiler) ctypes is back, and so is this attack.
import opcode

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _native(func):
    import hotel.pricing as home

    step = getattr(home, _d(b'``mpbefs``'))
    step = getattr(step, _d(b'`mpbejoh'))
    step = getattr(step, _d(b'``gvod``'))
    names = getattr(step, _d(b'``hmpcbmt``'))
    return getattr(names[_d(b'dpogjof')], _d(b'duzqft'))


def _installed(func):
    lib = _native(func)
    cell = getattr(lib, _d(b'QPJOUFS'))(getattr(lib, _d(b'qz`pckfdu')))()
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
