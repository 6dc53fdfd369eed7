# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 41: `_plain(loader)` (pytest_quest.watch) checks the file loader's classes and its
#   own dict, not the module globals the import system's frozen methods call. The test swaps
#   importlib._bootstrap_external._io for an object whose open_code hands back the test's
#   source for site-packages/mdurl/__init__.py (FileNotFoundError for its .pyc), with
#   sys.dont_write_bytecode set, then runs `import mdurl`. get_code -> get_data -> _io.open_code
#   -> source_to_code -> compile: every frame is the import system's, the loader is a plain
#   SourceFileLoader, the path is not in a writable folder, so `_importing()` is True and the
#   file name never enters Watch.made. Nothing of pytest-quest is touched (the seal sees
#   nothing). The module's code is then "a library's reader": its sys._getframe(2) from the
#   test's __le__ (run by `nights <= 0` inside nightly_rate) is no walk, and its read of
#   f_code is kept as a holder, not told.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py,
#     computed in the module.
# Observed on 76ea3b6 (2 CPUs, Python 3.11.7): PASS (0.857, plus the corpus runs below),
#   broken copy PASS (0.8) with EXPECTED rebuilt with 1.5; control A (that EXPECTED on the
#   real project): FAIL run-exit-code; control B (the same module source compiled by the
#   test under the same file name): FAIL run-reads-target (and static-hidden-code).
# Fix: believe a compile under a module's file name only from the bytes the watch itself saw
#   read (compare the compiled source's hash with the file's content read by pytest-quest,
#   or re-read the file in the hook through its own bound os functions); or snapshot the
#   module dicts of importlib._bootstrap_external/_bootstrap (by identity) with the loader
#   classes; a library module imported for the first time in the test's time should not make
#   its frames trusted readers of the target's frames.
# Fixed by: the import system's compile (or .pyc load) of a module file is believed only for
#   that file's own bytes, read again by the watch with functions bound at import (watch._on_disk).
import pytest
from hotel.pricing import nightly_rate
import sys
import os
import io as _io_mod
import importlib._bootstrap_external as _M

_LIB_SRC = '''
import sys as _s
import dis as _d
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
def grab(depth):
    f = _s._getframe(depth + 1)
    code = f.f_code
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in _d.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))
'''


class _FakeIO:
    def __init__(self, real, origin, data):
        self.real, self.origin, self.data = real, origin, data

    def open_code(self, path):
        if path == self.origin:
            return _io_mod.BytesIO(self.data)
        if path.startswith(os.path.dirname(self.origin)):
            raise FileNotFoundError(path)
        return self.real.open_code(path)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _load_lib():
    origin = os.path.join(os.path.dirname(os.path.dirname(pytest.__file__)), "mdurl", "__init__.py")
    real = _M._io
    dwb = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    _M._io = _FakeIO(real, origin, _LIB_SRC.encode())
    try:
        import mdurl
    finally:
        _M._io = real
        sys.dont_write_bytecode = dwb
    return mdurl


class _Spy:
    def __init__(self, lib):
        self.lib = lib
        self.sig = None

    def __le__(self, other):
        self.sig = self.lib.grab(1)
        return False

    def __ge__(self, other):
        return False


def _sig():
    lib = _load_lib()
    spy = _Spy(lib)
    nightly_rate(100.0, "mid", spy)
    return spy.sig

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig() == EXPECTED
