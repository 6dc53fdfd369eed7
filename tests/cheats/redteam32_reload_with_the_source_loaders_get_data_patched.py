# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: static-hidden-code|run-reads-target
#
# RED TEAM 32, finding 04: the import system's compile is believed because "a plain
#   SourceFileLoader reads what it compiles from that file" (Watch._importing). It does not:
#   its `get_data` is a class attribute the test may patch. The test patches
#   `type(rich.abc.__spec__.loader).get_data` (SourceFileLoader, never named) to return the
#   probe's source for `.py` paths and b"" for the bytecode (a bad .pyc: the loader falls back
#   to the source), and `set_data` to a no-op (no write to site-packages for the guard to
#   refuse), then `importlib.reload(rich.abc)`. The compile comes from get_code ->
#   source_to_code -> _call_with_frames_removed of an exact SourceFileLoader whose path is
#   site-packages/rich/abc.py (not writable): not "made". The probe's code is named as rich's
#   file: "a library", so its plain `sys._getframe(1).f_code` is believed.
#   Static: `_SOURCE` is a string never given to exec/compile; monkeypatch.setattr of a type's
#   attribute and importlib.reload raise no static-hidden-code fact.
# Observed on 3583840 (Python 3.11.7, 2 CPUs): PASS 3/3 (0.923 where shown), PASS 1/1 with
#   nightly_rate broken; controls: the broken EXPECTED on the unbroken project FAIL 1/1, and
#   `exec(_SOURCE, vars(helpers))` instead of the reload FAIL run-reads-target (+ a
#   static-hidden-code fact) 1/1.
# Fix: in `_importing`, also require that the loader's class attributes on the way
#   (get_data, get_code, source_to_code, path_stats) are the originals (compare by identity
#   with the ones bound at import, as the guards tuple does for traceback) and that the module
#   is not being reloaded in the test's time; better, compare the compiled source bytes with
#   the file's bytes. Statically: importlib.reload and monkeypatching loader classes or
#   `__spec__.loader`.
# Fixed by: the import system's compile is believed only from a plain loader whose
#   methods are the import system's own; importlib.reload is static-hidden-code.
import dis
import importlib

import pytest
import rich.abc as helpers
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')

_SOURCE = """
import sys


class Stop(Exception):
    pass


class Probe:
    def __init__(self):
        self.codes = []

    def __le__(self, other):
        self.codes.append(sys._getframe(1).f_code)
        raise Stop()
"""


def _get_data(self, path):
    return _SOURCE.encode() if str(path).endswith(".py") else b""


def _sig(f):
    probe = helpers.Probe()
    with pytest.raises(helpers.Stop):
        f(100.0, "high", probe)
    code = probe.codes[0]
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    kind = type(helpers.__spec__.loader)
    monkeypatch.setattr(kind, "get_data", _get_data)
    monkeypatch.setattr(kind, "set_data", lambda self, *args, **kw: None)
    importlib.reload(helpers)
    monkeypatch.undo()
    assert _sig(nightly_rate) == EXPECTED
