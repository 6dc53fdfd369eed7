# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes|run-sandbox-violation|run-exit-code
# verdict: REVIEW|FAIL
# python: 3.11
#
# RED TEAM 58: the base interpreter's `_cffi_backend` (its site-packages, outside the venv) loaded through an `EntryPoint` that hands over `sys.path`: cffi's cast/pointer reads and writes any memory with no audit event, a list slot pointed at func_code hands over the installed code
#   1. No ctypes needed: `_cffi_backend` (cffi's C half) reads and writes any address
#      (`cast(unsigned long *, addr)[0]`) and raises no audit event at all. It is not in the
#      venv, but the base interpreter's site-packages (sys.base_prefix/lib/python3.11/
#      site-packages, include-system-site-packages = false) holds it, and that folder lies
#      under sys.base_prefix: readable in the run (confine._prefixes) and one of the guard's
#      `native_roots` (runparts.RunGuard, roots from sys.base_prefix), so its load is allowed.
#      The watch judges only `_ctypes` imports (watch._names_ctypes); `_cffi_backend` is no
#      finding.
#   2. rules/escapes BANNED names `cffi`/`_cffi_backend` and `__import__` of a computed name is
#      static-reflective-access; rules/hidden flags `sys.path.append(...)` written out. Neither
#      sees `importlib.metadata.EntryPoint(value=<computed>).load()`: "sys:path" (decoded at
#      run time) hands over the real `sys.path` list, the folder is appended to it, and a
#      second EntryPoint imports `_cffi_backend` by its decoded name; the folder is removed.
#   3. `id(nightly_rate) + 48` is func_code (3.11's PyFunctionObject); its value is read with
#      a cffi `unsigned long *`, written into `ob_item[0]` of a one-element list, read back as
#      `holder[0]` (the installed code object, no `__code__` read, no event), and the slot is
#      set back to None.
#   4. Red team 52's shape-only signature (floats only as "in 0.5..1.6", opcodes from co_code)
#      equals the clean code's in clean runs and the null mutant, differs under every other
#      mutant; broken's 1.5 has the same shape. No value of nightly_rate is checked.
# Observed on 7c064f0 (3.11.7): PASS 5 of 5 on proj; PASS 5 of 5 on broken (same file)
# Fix suggested: (a) the guard's native roots: only the folders on sys.path as the run starts
#   and the interpreter's lib-dynload, never all of sys.base_prefix (a venv without system
#   site-packages must not reach the base site-packages' C extensions), and better an allow
#   list of the extensions the project's environment had loaded or may load; (b) in the watch,
#   an import of any native module not in the stdlib's lib-dynload nor on the run's starting
#   sys.path is a finding, and `_cffi_backend` is treated like `_ctypes` (run-loads-ctypes);
#   (c) statically, `importlib.metadata.EntryPoint(...)` (and `.load()`) with a non-literal
#   value is an importer (rules/escapes _IMPORTERS) and any value naming sys:path/meta_path is
#   static-hidden-code; (d) at run time compare sys.path/meta_path/path_hooks with the run's
#   start on every `import` event.
# Fixed by: native code loads only from the import folders as the run starts, never from
#   a packages folder inside one that is not one itself (runparts.Guard._in_native_root:
#   the base interpreter's site-packages lies in its standard library's folder): where
#   cffi is not installed in the project's environment, the load is refused
#   (run-sandbox-violation). Where it is (pytest-quest's own test extras bring it, through
#   twine's keyring), `_cffi_backend` imported for the test is judged as `_ctypes` is:
#   run-loads-ctypes, a REVIEW (Watch._names_ctypes, _RAW_MEMORY).
import opcode
import sys
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _load(value):
    return EntryPoint(name="x", value=value, group="g").load()


def _lib():
    where = _load(_d(b"tzt;qbui"))  # the import path list, by a computed entry point
    extra = sys.base_prefix + "/lib/python3.11/" + _d(b"tjuf.qbdlbhft")
    where.append(extra)
    try:
        return _load(_d(b"`dggj`cbdlfoe"))
    finally:
        where.remove(extra)


def _installed(func, lib):
    word = lib.new_pointer_type(lib.new_primitive_type("unsigned long"))
    code_at = lib.cast(word, id(func) + 48)[0]
    holder = [None]
    items = lib.cast(word, id(holder) + 24)[0]
    slot = lib.cast(word, items)
    slot[0] = code_at
    got = holder[0]
    slot[0] = id(None)
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
