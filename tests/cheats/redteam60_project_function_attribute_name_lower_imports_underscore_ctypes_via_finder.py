# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 60: `_ctypes` served by a meta_path finder as a module named "lower", imported by `functools.partial(__import__, "lower")` that a project FUNCTION calls as `tier.lower()` (loyalty_discount); co_names holds the attribute "lower", so the frame "names what it imports"; then red team 56's POINTER(py_object) reads func_code
#   1. Red team 59's fix (Watch._ctypes_for_test + _imports_by_name, watch.py) requires each
#      frame from the project's code down to the import to name the module `_find_and_load`
#      loads, by looking it up in `frame.f_code.co_names`. co_names holds attribute and global
#      names as well as imported ones, and `_find_and_load`'s name is whatever the test
#      imports: with a finder that answers any name with the spec of `_ctypes`, the test picks
#      a name the project's code already has. loyalty_discount's `tier = tier.lower()` has
#      "lower" in co_names.
#   2. `_Tier.lower = functools.partial(__import__, "lower")` (a partial has no __get__: the
#      attribute is the partial itself, C all the way). A finder first in sys.meta_path
#      (obtained by EntryPoint "sys:meta_path", as red team 58) answers "lower" with
#      `PathFinder.find_spec("_ctypes")` (lib-dynload's real file: the native guard agrees).
#      `loyalty_discount(_Tier(), 3)`: the `import` event for `_ctypes` has, above the frozen
#      import frames, `_find_and_load("lower")` and then loyalty_discount's frame, which names
#      "lower" and is the project's: "the project's own code imports it", no finding. No
#      sys.modules entry is touched and no project module body runs again.
#   3. The module goes into sys.modules as "_ctypes" (spec.name), not as "lower". The test gets
#      it with a second `_Tier().lower()` from its own frame: `_imp.create_dynamic` finds the
#      already-loaded single-phase extension in its cache and returns it with NO audit event,
#      and the import event that remains names "lower" with no file: `_names_ctypes` is False.
#   4. As red team 56/59: py_object from `_SimpleCData`, POINTER(...)() set through memoryview
#      to id(nightly_rate), `cell[6]` is func_code with no audit event, and a shape-only
#      signature kills every classic mutant; broken's 1.5 has the same shape. No value of
#      nightly_rate is checked.
# Observed on 26b02ae (Python 3.11.7): PASS 7 of 7 on proj (score 1.0); PASS 5 of 5 on broken (same file; score 0.923-1.0)
# Fix suggested: (a) require the `import` event's own name (args[0]: the extension's spec name)
#   to be what the nearest `_find_and_load` frame loads; (b) "names what it imports" must mean
#   the frame is AT an IMPORT_NAME (or IMPORT_FROM) instruction whose argument is that name
#   (read the instruction at f_lasti), not that the name is somewhere in co_names (attributes
#   are there); (c) best: whether the project imports `_ctypes`/`_cffi_backend` is decided in the
#   judge before the test's time, and any later load of them is run-loads-ctypes; and the
#   watch should treat any module object of `_ctypes` (sys.modules["_ctypes"] appearing, or
#   the extension's cache served under another name) as loaded for the test.
# Fixed by: a load of ctypes' C half must be of the name under way (`_find_and_load`), and
#   each module body on the way must be the file of the module it is imported as, in
#   the run's import folders (Watch._ctypes_for_test, watch._module_file): a file served
#   for another name by a finder of the test's is the test's: run-loads-ctypes, a REVIEW.
#   Where pytest_quest._kernel was not built, ctypes is in every run: a strict xfail.
import functools
import opcode
import sys
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import loyalty_discount, nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _load(value):
    return EntryPoint(name="x", value=value, group="g").load()


class _Finder:
    def __init__(self, spec):
        self.spec = spec

    def find_spec(self, name, path=None, target=None):
        return self.spec if name == "lower" else None


class _Tier:
    """A loyalty tier whose `lower` is a C callable: __import__("lower")."""

    lower = functools.partial(__import__, "lower")


def _native(monkeypatch):
    spec = _load(_d(b'jnqpsumjc/nbdijofsz;QbuiGjoefs')).find_spec(_d(b'`duzqft'))
    places = _load(_d(b'tzt;nfub`qbui'))
    finder = _Finder(spec)
    monkeypatch.delitem(sys.modules, "lower", raising=False)
    places.insert(0, finder)
    try:
        # loyalty_discount's `tier = tier.lower()` names "lower": the import it makes is
        # taken for the project's own
        loyalty_discount(_Tier(), 3)
        # the second time the extension is already loaded: _imp.create_dynamic returns it
        # from its cache with no audit event, and "lower" names no C half of ctypes
        lib = _Tier().lower()
    finally:
        places.remove(finder)
    return lib


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
