# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 42: `inspect` is a "passing" reader (the watch judges its caller instead), and the
#   caller here is a library: pip's vendored pyparsing, ParseBaseException.explain_exception,
#   which calls inspect.getinnerframes(exc.__traceback__, context=depth). The tb_frame walk and
#   the f_code read are both raised in inspect's frames; past them the reader is pyparsing's
#   frame (site-packages, not made by the test, not the standard library): its read is "kept",
#   not told. But inspect hands that code to a module global of its own:
#   _get_code_position_from_tb -> `_get_code_position(code, tb_lasti)`, and the test has
#   monkeypatched inspect._get_code_position (and inspect.findsource, so that no `open` of the
#   target's file is seen). The test's function receives the installed code object of
#   nightly_rate (original or mutant) and computes the code signature of
#   oracle_code_signature_with_the_watch_blinded.py from it: no value of the function checked.
#   The traceback runs through nightly_rate because the test's `nights` object raises in __le__.
#   Plain file: no exec, no hex, no [::-1]; a plain monkeypatch.setattr.
# Observed on a90f0f8 (2 CPUs, Python 3.11): PASS (score 1.0), broken copy (EXPECTED with 1.5)
#   PASS (0.857); control A (that EXPECTED on the real project): FAIL run-exit-code; control B
#   (the test calls inspect.getinnerframes itself, hidden in wrap.py's hex exec): FAIL
#   run-reads-target (tb_frame walk, f_code read). Corpus runs: see FINDINGS.md.
# Fix: a passing reader (inspect, types) reads for its caller only while the module globals it
#   hands the code to are the originals (guard inspect._get_code_position, getargs, findsource,
#   getfile, ... like traceback's _get_code_position), or treat a read in a passing frame whose
#   code the test could receive (any call out with the code in a local) as the test's; and a
#   library frame whose read is kept should not be trusted when the read code leaves through a
#   module global the test can replace.
# Fixed by: inspect and types read for their caller only while their module globals are as at
#   the test's start (watch._passing_intact): with _get_code_position or iscode replaced, the
#   read is inspect's own, for no one: the test's (run-reads-target).
import inspect
import dis
import pytest
from pyparsing.exceptions import ParseBaseException
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
SEEN = {}


def _signature(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


def _position(code, index):
    if code.co_name == "nightly_rate":
        SEEN["sig"] = _signature(code)
    return (None, None, None, None)


def _no_source(obj):
    raise OSError("no source")


class _Stop(Exception):
    pass


class _Spy:
    def __le__(self, other):
        raise _Stop()

    def __ge__(self, other):
        return False


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    try:
        nightly_rate(100.0, "mid", _Spy())
    except _Stop as exc:
        caught = exc
    monkeypatch.setattr(inspect, "_get_code_position", _position)
    monkeypatch.setattr(inspect, "findsource", _no_source)
    ParseBaseException.explain_exception(caught, 4)
    assert SEEN.get("sig") == EXPECTED
