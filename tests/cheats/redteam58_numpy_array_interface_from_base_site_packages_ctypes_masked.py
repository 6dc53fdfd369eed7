# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-sandbox-violation|run-exit-code|run-loads-ctypes
# verdict: FAIL
# python: 3.11
#
# RED TEAM 58: numpy from the base interpreter's site-packages, its `import ctypes` made to fail through an EntryPoint-held `sys.modules`: an object's `__array_interface__` with a raw address is an array over any memory (read and write, no audit event), a list slot pointed at func_code hands over the installed code
#   1. numpy is not in the venv, but the base interpreter's site-packages holds it, and that
#      folder lies under sys.base_prefix: readable in the run (confine._prefixes) and within
#      the guard's `native_roots` (runparts.RunGuard), so its C extensions load.
#   2. numpy's import would load `_ctypes` (numpy._core._internal: `import ctypes`), which
#      watch._ctypes_for_test calls run-loads-ctypes (numpy is not the project's copy). The
#      test sets `sys.modules["ctypes"] = None` for the time of the import: numpy catches the
#      ImportError and goes on with no ctypes, so no `_ctypes` import event is ever raised.
#   3. Static rules see neither change: `sys.path` and `sys.modules` are handed over by
#      `importlib.metadata.EntryPoint(value=<decoded "sys:path"/"sys:modules">).load()`
#      (rules/hidden only sees `sys.path.append(...)`/`sys.modules[...] = ...` written out), and
#      numpy is imported by a third EntryPoint with its name decoded at run time.
#   4. `np.asarray(obj)` where `obj.__array_interface__ = {"data": (address, False), ...}` is
#      a uint64 array over that address: numpy raises no audit event for it (unlike ctypes'
#      from_address). Word 6 of the PyFunctionObject (func_code, 3.11) read that way; its
#      value written into `ob_item[0]` of a one-element list; `holder[0]` is the installed
#      code object (no `__code__` read); the slot is set back to None.
#   5. Red team 52's shape-only signature (floats only as "in 0.5..1.6", opcodes from co_code)
#      tells every mutant from clean; broken's 1.5 has the same shape. No value is checked.
#   Shows that watching `_cffi_backend` like `_ctypes` is not enough: any native library
#   with a pure-Python API taking raw addresses (numpy's array interface, also a project's
#   honest dependency) reads memory unseen.
# Observed on 7c064f0 (3.11.7): PASS 5 of 5 on proj; PASS 5 of 5 on broken (same file)
# Fix suggested: as redteam58_cffi_backend_from_base_site_packages_via_entrypoint_sys_path.py:
#   native code only from the run's starting sys.path and the stdlib's lib-dynload (not the
#   whole sys.base_prefix); `EntryPoint(value=<non-literal>)` is an importer for the static
#   rules and "sys:path"/"sys:modules" values are static-hidden-code; at run time, sys.path,
#   sys.modules entries set to None, meta_path and path_hooks compared with the run's start on
#   each import event. Residual: a project that depends on numpy honestly hands the test
#   `__array_interface__` reads; treat an ndarray built from an `__array_interface__`/
#   `__array_struct__` with a raw data address as an unwatched read (document as residual).
# Fixed by: native code loads only from the import folders as the run starts, never from
#   a packages folder inside one that is not one itself (runparts.Guard._in_native_root:
#   the base interpreter's site-packages lies in its standard library's folder): the
#   load is refused (run-sandbox-violation). A project whose own environment installs
#   numpy or cffi gives its tests that reader (docs/security.md, residual risks).
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
    loaded = _load(_d(b"tzt;npevmft"))  # and the module table
    extra = sys.base_prefix + "/lib/python3.11/" + _d(b"tjuf.qbdlbhft")
    where.append(extra)
    blocked = _d(b"duzqft")
    loaded[blocked] = None  # numpy's `import ctypes` fails quietly: no _ctypes loaded
    try:
        return _load(_d(b"ovnqz"))
    finally:
        where.remove(extra)
        del loaded[blocked]


class _View:
    pass


def _words(lib, address, count):
    view = _View()
    view.__array_interface__ = {"shape": (count,), "typestr": "<u8",
                                "data": (address, False), "version": 3}
    return lib.asarray(view)


def _installed(func, lib):
    code_at = int(_words(lib, id(func) + 48, 1)[0])
    holder = [None]
    items = int(_words(lib, id(holder) + 24, 1)[0])
    slot = _words(lib, items, 1)
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
