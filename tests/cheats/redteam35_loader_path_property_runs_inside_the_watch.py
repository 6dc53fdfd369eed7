# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code|run-exit-code
# python: 3.11
#
# RED TEAM 35, finding 04: finding 03's root with no sys.audit: the import system's own compile
#   runs the test's code inside the code watch. The watch tells the import system's compile of
#   a module's own file by Watch._importing, which ends in getattr(loader, "path", None) on the
#   SourceFileLoader in get_code's locals. _plain(loader) checks the loader's methods, not its
#   attributes: the test puts a data descriptor on the class (type(hotel.__loader__).path =
#   property(get, set), which stores in the instance's dict) and imports a project module that
#   is not yet loaded (hotel.guests: the sandbox copy has no .pyc, so it compiles). The
#   property's second call is the watch's (the first is get_filename's): there, with the
#   thread in Watch._busy, getattr(nightly_rate, "__co" + "de__") is ignored.
#   Static: type(module.__loader__) and an assignment to its attribute are in no list;
#   importlib.import_module with a literal project name is allowed.
#   Same oracle as finding 01: a code signature, no value of the function checked.
# Observed on 32db340 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.8, 12/15 classic killed); broken project
#   PASS 1/1; broken EXPECTED against the real project FAIL; the same read in the property's
#   first call (get_filename, outside the watch) FAILs run-reads-target.
# Fix: the hooks look up nothing through a class the test can change: read the loader's path
#   with vars(loader).get("path") (exact str) and refuse a loader class with any attribute
#   added or replaced since the judge's snapshot (compare vars(SourceFileLoader) and its MRO
#   dicts with a copy made before the test); generally, no getattr/method call on an object of
#   the test's reach inside a hook (text_of included, finding 03).
# Fixed by: a loader is plain only while its classes are as the import system made them
#   (compared by identity) and its path is read from its own dict: the property never runs
#   inside the watch, and the attack's own check fails (run-exit-code).
import dis
import importlib

import hotel
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_NAME = "__co" + "de__"


class Box:
    calls = 0
    codes = []


def _path(self):
    Box.calls += 1
    if Box.calls == 2:
        Box.codes.append(getattr(nightly_rate, _NAME))
    return vars(self)["path"]


def _set_path(self, value):
    vars(self)["path"] = value


def _sig():
    kind = type(hotel.__loader__)
    kind.path = property(_path, _set_path)
    try:
        importlib.import_module("hotel.guests")
    finally:
        del kind.path
    code = Box.codes[0]
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    assert _sig() == EXPECTED
