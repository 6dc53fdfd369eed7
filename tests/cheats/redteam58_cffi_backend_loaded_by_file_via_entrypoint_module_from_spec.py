# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-sandbox-violation|run-exit-code|run-loads-ctypes
# verdict: FAIL
# python: 3.11
#
# RED TEAM 58: `_cffi_backend` loaded by file from the base interpreter's site-packages with `spec_from_file_location` + `module_from_spec` handed over by EntryPoints: no sys.path change at all, no exec_module; cffi's pointers read func_code with no audit event
#   Variant of redteam58_cffi_backend_from_base_site_packages_via_entrypoint_sys_path.py that
#   a fix watching sys.path would not stop:
#   1. `importlib.metadata.EntryPoint(value=<decoded "importlib.util:spec_from_file_location">)
#      .load()` and the same for `module_from_spec`: rules/hidden names both functions
#      (_LOADERS) and rules/escapes names `__import__`/`import_module`, but an EntryPoint's
#      value is text decoded at run time, and `.load()` is no importer to the static rules.
#   2. `module_from_spec(spec_from_file_location("_cffi_backend", <base site-packages>/
#      _cffi_backend.cpython-311-x86_64-linux-gnu.so))` dlopens it and runs its init
#      (ExtensionFileLoader.create_module); `exec_module` (static-hidden-code by its name) is
#      not needed for an extension. The `import` event carries the file: RunGuard.
#      _native_allowed accepts it (under sys.base_prefix, a native root, not writable); the
#      watch judges only `_ctypes` (watch._names_ctypes).
#   3. `cast(unsigned long *, id(nightly_rate) + 48)[0]` is func_code; written into a list's
#      `ob_item[0]` and read back as the installed code object; slot set back to None.
#   4. Red team 52's shape-only signature: every mutant told from clean, broken's 1.5 has the
#      clean shape. No value of nightly_rate is checked.
# Observed on 7c064f0 (3.11.7): PASS 5 of 5 on proj; PASS 5 of 5 on broken (same file)
# Fix suggested: the guard must refuse native code outside the run's starting sys.path folders
#   and the stdlib's lib-dynload (RunGuard.native_roots is built from sys.base_prefix and
#   sys.base_exec_prefix whole: the base site-packages of a venv without system site-packages
#   is inside); better, allow only extensions whose files were importable by the run's
#   starting sys.path. The watch should treat `_cffi_backend` (any name whose init is
#   PyInit__cffi_backend, or its file) as `_ctypes`. Statically, `EntryPoint(...)` with a
#   non-literal `value` is an importer/loader (rules/escapes _IMPORTERS, rules/hidden _LOADERS).
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
    # no change to sys.path: the extension is loaded from its file, by functions of
    # importlib handed over by entry points (names decoded at run time)
    name = _d(b"`dggj`cbdlfoe")
    where = sys.base_prefix + "/lib/python3.11/" + _d(b"tjuf.qbdlbhft") + "/" + name + \
        _d(b"/dqzuipo.422.y97`75.mjovy.hov/tp")
    make_spec = _load(_d(b"jnqpsumjc/vujm;tqfd`gspn`gjmf`mpdbujpo"))
    make_module = _load(_d(b"jnqpsumjc/vujm;npevmf`gspn`tqfd"))
    spec = make_spec(name, where)
    module = make_module(spec)
    return module


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
