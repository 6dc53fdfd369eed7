# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
# pending: noctypes
# python: 3.11
#
# RED TEAM 52: ctypes' own classes (already loaded in every run) read the installed code through a pointer whose value is written with memoryview: no ctypes audit event at all
#   1. `_ctypes` is in every run's process (pytest_quest.confine and seccomp import ctypes).
#      Its base classes `_SimpleCData` and `_Pointer` are found by walking
#      `type.__subclasses__` from `object`, every name decoded at run time from shifted bytes:
#      no "ctypes", "__subclasses__" or "from_buffer" text for rules/escapes (static-native-code,
#      static-reflective-access) to see; `getattr(type, <computed>)` is left to the run.
#   2. `class Obj(_SimpleCData): _type_ = "O"` (a py_object) and `class Ptr(_Pointer): _type_ =
#      Obj` make a pointer-to-object type; making types raises no event.
#   3. `cell = Ptr()` (a NULL pointer, no event), then `memoryview(cell).cast("B")[:8] =
#      id(nightly_rate).to_bytes(8, "little")` writes the pointer's value through the buffer
#      protocol: no `from_address`/`from_buffer`, so no `ctypes.cdata` (PyCData_AtAddress) and
#      no `ctypes.cdata/buffer` event; watch._ctypes_by_test never runs.
#   4. `cell[6]` dereferences word 6 of the PyFunctionObject (func_code in 3.11's layout:
#      refcnt, type, globals, builtins, name, qualname, code) as a py_object: O_get hands over
#      the installed code object. Pointer indexing raises no audit event (only cdata
#      construction does); `object.__getattr__("__code__")` is never raised, so
#      Watch._code_read never sees a read.
#   5. Red team 50/51's shape-only signature of that code (float constants only as "a float
#      in 0.5..1.6", the null/reach probes' constants and `!=` compare filtered; opcodes read
#      from co_code with `opcode.opname`, not `dis`, which rules/escapes names) equals the
#      clean code's in clean runs and under the null mutant, differs under every classic and
#      extreme mutant; broken's 1.5 has the same shape. The test checks no value.
# Observed on baab0f4 (3.11.7): PASS 3 of 3 on proj (score 1.0); PASS 3 of 3 on broken (same file, score 0.923-1.0)
# Fix suggested: no `_ctypes` in a run's process. pytest_quest.confine and pytest_quest.seccomp
#   import ctypes at module level in the judge, so every forked run has `_ctypes` loaded, and its
#   classes stay reachable through `type.__subclasses__` however sys.modules is scrubbed; a
#   pointer's deref and a ctypes object's buffer raise no audit event, so once a test can make
#   a ctypes type it reads any memory unseen. Do the Landlock/seccomp/prctl calls from a helper
#   that is not in the zygote's memory (a small C extension or a separate launcher process,
#   before exec), or import ctypes only in a process that never forks runs. Also statically:
#   `getattr(type|object, <computed>)` as static-reflective-access (the name can only be
#   `__subclasses__`-like mischief), and a class body assigning `_type_` (a ctypes type) as
#   static-native-code.
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


def _classes():
    name = _d(b'``tvcdmbttft``')
    home = _d(b'`duzqft')
    found = {}
    todo = [object]
    while todo:
        cls = todo.pop()
        try:
            kids = getattr(type, name)(cls)
        except TypeError:
            continue
        for kid in kids:
            if kid.__module__ == home:
                found[kid.__name__] = kid
            todo.append(kid)
    return found


def _installed(func):
    kinds = _classes()

    class Obj(kinds[_d(b'`TjnqmfDEbub')]):
        _type_ = "O"

    class Ptr(kinds[_d(b'`Qpjoufs')]):
        _type_ = Obj

    cell = Ptr()
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
