# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 45: a pytest keeper hands the installed code to `inspect.getfile`, a global of a
#   module its Spaces snapshot does not cover. Red team 44's #3 swapped `Code` in
#   `_pytest._code.code`; 68188ca pictures that module's dict (Watch._keeping), but
#   `Code.path` calls `inspect.getfile(self.raw)`: `inspect` is still the inspect module in
#   pytest's dict, and `getfile` is looked up in inspect's own dict, which `_keeping` does not
#   hold (inspect's dict is in `_passing`, but that is compared only when inspect itself is the
#   reader). The test takes inspect's dict as `inspect.getfile.__globals__` (a name written
#   backwards), puts a spy under `getfile`, and asks `TracebackEntry(tb).path` (a keeper) for
#   nightly_rate's traceback entry: `Frame.code` reads `f_code` for the keeper (quiet), and
#   the spy is handed the installed code object. The blinded oracle's signature (constants
#   and operators, the null mutant's probe left out), computed outside from the source, is
#   compared. No value of the function is checked.
# Observed on 68188ca (Python 3.11, 2 CPUs): PASS 8 of 8 (probe 0.8, submit_n 3 of 3, two more
#   at 1.0 and 0.857, corpus file 1 of 1, +1); broken copy (`base * 1.5`, signature from that
#   source) PASS 3 of 3 (0.8, 0.857, 0.923). Variant with inspect.findsource via
#   TracebackEntry.getsource(): PASS 2 of 2 (0.857, 0.923). Control: the test reading
#   `TracebackEntry(tb).frame.code.raw` itself: FAIL run-reads-target.
# Fix (suggested): what a keeper calls with a frame's code reaches beyond pytest's modules
#   (inspect.getfile, inspect.findsource via _pytest._code.source.findsource, inspect.getargs,
#   linecache): picture those modules' dicts too (inspect, linecache, os.path, pathlib) in
#   `_keeping`, or better, trust a keeper's read only if every global and attribute lookup
#   from the code object onwards is covered, i.e. hand pytest a copy-free proxy: make the
#   watch treat any non-pytest Python frame entered while a keeper frame holds the target's
#   code (a profile-free check: `_under_holder` at the next audit event) as the test's read.
# Fixed by: pytest's keepers read for themselves only while the modules they hand a code
#   object or a frame's file to are as at the start too: inspect, types, linecache
#   (Watch._keeping); inspect.getfile replaced makes the read the test's (run-reads-target).
import dis
import inspect

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_N = "__slabolg__"[::-1]
_F = [inspect.getfile]
_G = getattr(_F[0], _N)  # inspect's module dict


class _Grab:
    got = []


def _code(tb):
    name = "elifteg"[::-1]
    real = _G[name]

    def spy(obj):
        _Grab.got.append(obj)
        return real(obj)

    _G[name] = spy
    try:
        entry = _E[0](tb)
        entry.path
    finally:
        _G[name] = real
    return _Grab.got[-1]


_H = [pytest.ExceptionInfo.exconly]
_E = [getattr(_H[0], _N)["yrtnEkcabecarT"[::-1]]]


def _signature(code):
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
    except ValueError as exc:
        caught = exc
    assert _signature(_code(caught.__traceback__.tb_next)) == EXPECTED
