# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
# pending: noctypes
# python: 3.11
#
# RED TEAM 52: variant of redteam52_ctypes_pointer_value_via_memoryview_reads_func_code.py with no pointer type: two _SimpleCData subclasses (c_char_p-like "z" reads bytes at an address, py_object-like "O" turns an address into the object), their values written with memoryview
#   Only `_SimpleCData` is needed (found through `type.__subclasses__`, names decoded at run
#   time). `class Text(_SimpleCData): _type_ = "z"`: with its stored value set to an address
#   through `memoryview(text).cast("B")`, `text.value` (z_get, PyBytes_FromString) reads the
#   bytes there with no audit event; read byte by byte from `id(nightly_rate) + 48` (func_code
#   in 3.11's PyFunctionObject) it gives the installed code's address. `class Obj(_SimpleCData):
#   _type_ = "O"` with that address written the same way: `obj.value` (O_get) is the installed
#   code object. No from_address/from_buffer (no `ctypes.cdata`), no cast (no
#   `ctypes.call_function`), no `__code__`. Then the same shape-only signature (floats only as
#   "in 0.5..1.6", opcodes from co_code): broken's 1.5 has the clean shape.
#   Shows that refusing pointer types would not be enough: any ctypes simple type whose value
#   can be written through the buffer protocol is an arbitrary read and a fakeobj.
# Observed on baab0f4 (3.11.7): PASS 3 of 3 on proj (score 1.0); PASS 3 of 3 on broken (same file, score 0.923)
# Fix suggested: as redteam52_ctypes_pointer_value_via_memoryview_reads_func_code.py: no
#   `_ctypes` loaded in a run's process at all.
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
    simple = kinds[_d(b'`TjnqmfDEbub')]

    class Text(simple):
        _type_ = "z"

    class Obj(simple):
        _type_ = "O"

    text = Text()
    view = memoryview(text).cast("B")
    raw = bytearray()
    for i in range(8):
        view[:8] = (id(func) + 48 + i).to_bytes(8, "little")
        got = text.value
        raw.append(got[0] if got else 0)
    view[:8] = bytes(8)
    where = int.from_bytes(bytes(raw), "little")
    obj = Obj()
    view = memoryview(obj).cast("B")
    view[:8] = where.to_bytes(8, "little")
    got = obj.value
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
