# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code
# python: 3.11
#
# RED TEAM 35, finding 03: the code watch runs the test's code inside itself. hooked.text_of
#   reads a pathlib path with path.__fspath__(), looked up on the class: the test replaces
#   pathlib.PurePath.__fspath__ with its own function and raises an "open" audit event with
#   sys.audit("open", PurePosixPath(...), "r", 0). The watch's _opened calls _is_target ->
#   text_of -> the test's function, with the thread in Watch._busy: every event the test's
#   code raises there (a plain getattr(nightly_rate, "__co" + "de__")) is ignored. The guard
#   does not look at a read-only "open".
#   Static: sys.audit is in no list; the assignment to a pathlib class attribute is not a
#   patch the rules name; getattr with a name built at run time on the target is allowed.
#   Same oracle as finding 01: a code signature, no value of the function checked.
# Observed on 32db340 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.75, 12/16 classic killed);
#   broken project PASS 1/1; broken EXPECTED against the real project FAIL.
# Fix: the hooks must call no Python code the test can reach: text_of takes str and bytes
#   only (or reads a pathlib path through functions bound at import and checks the class's
#   __fspath__/__str__ are the originals); a test's sys.audit of an event the watch parses
#   (open, compile, code.__new__, marshal.*) is a finding (its frame is the test's);
#   statically sys.audit and assignments to attributes of stdlib classes (REVIEW).
# Fixed by: the hooks read a path's text from its slots (pytest_quest/pathtext.py), running none
#   of its code; an event raised inside the watch by code not ours is run-reads-target ("ran
#   code inside the code watch"); sys.audit in a test is static-hidden-code.
import dis
import pathlib
import sys

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_NAME = "__co" + "de__"


class Box:
    codes = []


def _spelled(self):
    if not Box.codes:
        Box.codes.append(getattr(nightly_rate, _NAME))
    return "/nowhere/rates.txt"


def _sig():
    original = pathlib.PurePath.__fspath__
    pathlib.PurePath.__fspath__ = _spelled
    try:
        sys.audit("open", pathlib.PurePosixPath("/nowhere/rates.txt"), "r", 0)
    finally:
        pathlib.PurePath.__fspath__ = original
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
