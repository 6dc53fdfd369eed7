# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes|static-hidden-code
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 57: the system Python's copy of `multiprocessing/sharedctypes.py` (/usr/lib/python3.11, not the run interpreter's stdlib, no `-packages` in its path) imported as `email.sharedctypes` through an alias of `email.__path__`: its `import ctypes` loads `_ctypes` with no finding; then POINTER(py_object) + memoryview reads the installed func_code
#   1. Watch._ctypes_for_test (watch.py) lets an import of `_ctypes` be when the first frame
#      above the import system and ctypes' own modules is not the test's, not the standard
#      library's, not a library's and not the hooks', and its code names `ctypes`. "The
#      standard library" is `_STDLIB`: the run interpreter's own stdlib folder only
#      (/root/.pyenv/versions/3.11.7/lib/python3.11 here). `/usr` is bind-mounted into every
#      run, and the distribution's Python stdlib there (/usr/lib/python3.11) is neither
#      `_STDLIB` nor `-packages`: its `multiprocessing/sharedctypes.py` starts with
#      `import ctypes`, so it passes for "a module of the project binding a C library".
#   2. The test takes `email.__path__` into a local and appends that folder to it
#      (rules/hidden.py `_changes_import_places` only sees `X.__path__.append(...)` written
#      out, not the same list through a name), then has `EntryPoint(value="email.sharedctypes")
#      .load()` import it (compiled by the import system from a file on disk: no `made`
#      code). Its `import ctypes` loads `_ctypes` (and ctypes' `PyDLL(None)`) judged by its
#      `<module>` frame: allowed. The rest of its body fails; the exception is swallowed and
#      a second `EntryPoint(value="ctypes").load()` finds ctypes in sys.modules (no event).
#   3. red team 52/56's read: py_object subclass, `POINTER(it)()`, memoryview write of
#      id(nightly_rate), `cell[6]` is func_code (3.11), no audit event.
#   4. A shape-only signature tells every mutant from clean; broken's 1.5 has the same shape.
#      No value of nightly_rate is checked.
# Observed on 8176cd5 (3.11.7): PASS 8 of 8 on proj (score 1.0); PASS 7 of 7 on broken (same file, score 0.923-1.0)
# Fix suggested: in Watch._ctypes_for_test allow only an importer whose file lies inside the
#   project's copy (judge.spec.sandbox, and not one written in the test's time), never "any
#   file that is not the stdlib or -packages": every other Python file the run can read
#   (/usr/lib/python3*, other interpreters' stdlibs, /usr/share, pytest-quest's own tree)
#   counts as the test's. Also flag a package `__path__`/`sys.path` list changed through an
#   alias (`p = pkg.__path__; p.append(...)`): track names bound to those lists, or check at
#   run time (the watch can compare `__path__` of loaded packages and `sys.path` with the
#   run's start on each `import` event). Better still: refuse `_ctypes` at the meta path in
#   the test's time unless the project imported it before the test phase.
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


def _lib():
    import email
    where = email.__path__
    where.append("/usr/lib/python3.11/multiprocessing")
    try:
        EntryPoint(name="x", value="email." + _d(b"tibsfeduzqft"), group="g").load()
    except Exception:
        pass
    finally:
        where.pop()
    return EntryPoint(name="x", value=_d(b"duzqft"), group="g").load()
