# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code
#   (run-exit-code on 3.12+: the retrying sys exists on 3.11 only, and the file fails alone)
#
# RED TEAM 28: Readers.tracers trusts every code object of pytest_quest as an installer of
#   tracers/profilers, and the run leaves one such installer in the test's reach:
#   `threading._sys` is forkrun._RetryingSys (set by _steady_thread_starts in every run), whose
#   settrace(function) calls `_retry(self._real.settrace, function)` -> install(function).
#   The test sets `threading._sys._real` to a namespace whose settrace is `operator.call`,
#   then calls `threading._sys.settrace(prof.enable)`: operator.call(prof.enable) enables a
#   cProfile profiler in the main thread from C, nearest Python frame forkrun._retry
#   (trusted): no finding. nightly_rate runs, `threading._sys.settrace(prof.disable)` turns
#   it off the same way, `_real` is restored; prof.getstats()[i].code is the installed code.
#   In the measured run this also replaces the recorder's profile hook for the call and
#   then removes it (sys.setprofile(None) by lsprof's disable): nothing noticed that either.
#   Plain file: operator, threading, cProfile, types; no static rule fires.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8, 12/15 classic killed;
#   one with an M-run fallback, three without); broken copy (base * 1.5): PASS 1/1.
# Fixed by: forkrun's retrying sys is believed only when its `install` is the real
#   sys.settrace/setprofile and its `function` a hook of ours (or None); pytest-quest's code is
#   no longer an installer as a whole: FAIL run-reads-target.
# Suggested fix: trust installers by exact code object *and* exact function installed: never
#   all of pytest_quest (the _retry helper installs what it is given); keep _RetryingSys's
#   real sys in a closure or bind sys.settrace/setprofile at import in forkrun (not
#   `self._real` readable and writable by the test); in the hook, compare sys.getprofile()/
#   gettrace() of the thread after any setprofile/settrace event with the known hooks; refuse
#   _lsprof in runs; check after the measured run that the recorder's hook is still installed.
import cProfile
import dis
import operator
import sys
import threading
import types

import pytest
from hotel.pricing import nightly_rate

_KEEP = []
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _code_of(f):
    prof = cProfile.Profile()
    _KEEP.append(prof)  # never freed: its dealloc would disable it here, an event
    retrying = threading._sys  # the run's _RetryingSys: its settrace is pytest_quest code
    real = retrying._real
    try:
        retrying._real = types.SimpleNamespace(settrace=operator.call)
        retrying.settrace(prof.enable)
        f(100.0, "high", 3)
        retrying.settrace(prof.disable)
    finally:
        retrying._real = real
    for entry in prof.getstats():
        code = entry.code
        if type(code).__name__ == "code" and code.co_name == f.__name__:
            return code
    return None


def _sig(f):
    code = _code_of(f)
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
