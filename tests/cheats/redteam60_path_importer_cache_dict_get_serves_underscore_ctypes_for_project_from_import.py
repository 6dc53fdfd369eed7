# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-loads-ctypes
# verdict: REVIEW
# pending: noctypes
# python: 3.11
#
# RED TEAM 60: `_ctypes` loaded as `hotel.booking` for the project's own `from hotel.booking import Booking` (hotel/reports.py's module body): the package folder's entry in sys.path_importer_cache is a namespace whose find_spec is `dict.get` on {name: spec of _ctypes}; no code of the test in the import at all; then red team 56's POINTER(py_object) reads func_code
#   1. Same root as redteam60_meta_path_finder_serves_underscore_ctypes_for_project_import_json:
#      Watch._ctypes_for_test (watch.py) trusts the name `_find_and_load` loads
#      ("hotel.booking", which reports.py's body names in co_names, in the project's copy)
#      and never checks that the extension created under it is another module (the event
#      says "_ctypes"); the import system loads whatever spec the path entry's finder
#      returns, under spec.name.
#   2. Not sys.meta_path this time: PathFinder asks sys.path_importer_cache[entry] for each
#      entry of hotel's __path__ ("hotel", relative). The test sets that entry (monkeypatch.
#      setitem on the dict, obtained by EntryPoint "sys:path_importer_cache" so the static
#      stage never sees _IMPORT_PLACES) to `types.SimpleNamespace(find_spec=answers.get)`:
#      find_spec(name, target) is `answers.get(name, None)`, a C method. `answers` maps
#      "hotel.booking" to PathFinder.find_spec("_ctypes") (lib-dynload's real _ctypes.so:
#      Guard._native_allowed agrees) and "hotel.reports" to its own ordinary spec. Not one
#      frame of the test is on the stack in the import machinery, not even a finder.
#   3. monkeypatch.delitem(sys.modules, "hotel.booking"/"hotel.reports") and `import
#      hotel.reports`: its body's `from hotel.booking import Booking` loads `_ctypes`; the
#      first frame above the frozen import frames is that body, it names "hotel.booking", its
#      file is the project's: no run-loads-ctypes. The `from ... import Booking` then fails
#      (ImportError, ignored) but `_find_and_load_unlocked` has already set
#      `hotel.booking = <module _ctypes>` on the package; monkeypatch undoes everything.
#   4. As red team 56/59: py_object from `_SimpleCData`, POINTER(...)() set through memoryview
#      to id(nightly_rate), `cell[6]` is func_code with no audit event, and a shape-only
#      signature kills every classic mutant; broken's 1.5 has the same shape. No value of
#      nightly_rate is checked.
# Observed on 26b02ae (Python 3.11.7): PASS 10 of 10 on proj (score 1.0); PASS 7 of 7 on broken (same file; score 0.923)
# Fix suggested: as for the meta_path variant: the `import` event's own name (args[0], and the
#   extension's file) must be the module the nearest `_find_and_load` frame loads before
#   any project frame is believed; better, decide in the judge whether the project's imports
#   load `_ctypes`/`_cffi_backend` and make every later load of them in the test's time
#   run-loads-ctypes whoever is on the stack. A fix that looks only at sys.meta_path (or at
#   the test's code among the finders) misses this file: the finder here is
#   sys.path_importer_cache's, and it is a SimpleNamespace around dict.get.
# Fixed by: a load of ctypes' C half must be of the name under way (`_find_and_load`), and
#   each module body on the way must be the file of the module it is imported as, in
#   the run's import folders (Watch._ctypes_for_test, watch._module_file): a file served
#   for another name by a finder of the test's is the test's: run-loads-ctypes, a REVIEW.
#   Where pytest_quest._kernel was not built, ctypes is in every run: a strict xfail.
import opcode
import os
import sys
import types
from importlib.metadata import EntryPoint

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _d(data):
    return "".join(chr(c - 1) for c in data)


def _load(value):
    return EntryPoint(name="x", value=value, group="g").load()


def _native(monkeypatch):
    import hotel
    finder = _load(_d(b'jnqpsumjc/nbdijofsz;QbuiGjoefs'))
    entry = os.path.dirname(hotel.__file__)
    answers = {"hotel.booking": finder.find_spec(_d(b'`duzqft')),
               "hotel.reports": finder.find_spec("hotel.reports", [entry])}
    cache = _load(_d(b'tzt;qbui`jnqpsufs`dbdif'))
    monkeypatch.delitem(sys.modules, "hotel.booking", raising=False)
    monkeypatch.delitem(sys.modules, "hotel.reports", raising=False)
    monkeypatch.setattr(hotel, "booking", None, raising=False)
    # the entry's finder is a namespace whose find_spec is dict.get: find_spec(name, target)
    # is answers.get(name, None), C all the way, no code of the test in the import system
    monkeypatch.setitem(cache, entry, types.SimpleNamespace(find_spec=answers.get))
    try:
        import hotel.reports  # its body's `from hotel.booking import Booking` loads the C half
    except ImportError:
        pass
    return hotel.booking


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
