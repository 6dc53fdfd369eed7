# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 41: a zero-seal window inside the hook. The seal compares our modules only when an
#   event starts (nested events skip the comparison), so a change made and undone while the
#   hook runs is never seen. Test code runs inside the hook with no event: Watch._under_holder
#   calls _root(), which calls os.path.dirname, a module attribute of posixpath looked up at
#   call time (the test replaces it: a module setattr, no event). The trigger is honest-looking:
#   collections.namedtuple() calls sys._getframe(1); the watch judges that event and walks
#   the stack, reaching _root(collections/__init__.py). The test's dirname then
#     1. sets pytest_quest.watch's MAX_READS to 0 (a dict store: no event), so every _saw is
#        silent from here, the "ran code inside the code watch" of step 2 included;
#     2. takes its own frame with the watch module's `getframe` (sys._getframe; a nested
#        event: the seal passes it to the hooks unchecked) and walks f_back to the
#        _under_holder frame, whose f_locals["self"] is the Watch instance;
#     3. sets watch._phase.now = None (instance state: not in the picture, no event), so
#        Phase.testing() is False and Watch.__call__ ignores every later event;
#     4. puts MAX_READS back (the same object) before returning.
#   When the next event starts, the seal's picture matches again. Then a plain read of
#   nightly_rate.__code__ (getattr with "__edoc__"[::-1]) goes unjudged.
#   Names are spelled reversed ("__sessalcbus__", "__slabolg__", "slacol_f", "kcab_f"): the
#   static stage folds "".join but not [::-1].
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 76ea3b6 (2 CPUs, Python 3.11.7): PASS (0.8, plus the corpus runs below),
#   broken copy PASS (0.923) with EXPECTED rebuilt with 1.5; control A (that EXPECTED on the
#   real project): FAIL run-exit-code; control B (dirname not replaced): FAIL
#   run-reads-target (read the target's __code__); control C (MAX_READS left at 0, not put
#   back): FAIL run-reads-target "changed pytest-quest's own code in the run
#   (pytest_quest.watch)" - the seal catches the change, only the window hides it.
# Fix: nothing the hook calls may be looked up through a module the test can change: bind
#   os.path.dirname (or write _root with str methods only) at import like the builtins; give
#   the seal a check at the END of every outer event too (compare again before returning), or
#   better compare on every nested event as well; keep the watch's limits (MAX_READS) and
#   phase in closure cells / the seal's closure, not module globals and instance dicts;
#   treat any test frame found on the stack while the hook runs (an event whose raiser is not
#   ours while inside) as a finding that is written directly by the seal, not through
#   Watch._saw.
# Fixed by: the watch and the guard look up no module attribute inside the hook (os.path.dirname,
#   os.sep, os.devnull bound at import; tests/test_hook_modules.py checks every hook module),
#   and the seal pictures the hooks' own objects' attributes (a phase set to nothing is told).
import dis
import os
from collections import namedtuple

import pytest

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_REAL = os.path.dirname
_ARMED = []
_DONE = []


class _Root:
    pass


def _find(name, suffix):
    todo = [_Root.__base__]
    seen = set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k.__name__ == name and k.__module__.endswith(suffix):
            return k
        try:
            todo.extend(getattr(k, "__sessalcbus__"[::-1])())
        except TypeError:
            pass


def _dirname(p):
    if _ARMED and not _DONE:
        W = _ARMED[0]
        keep = W["MAX_READS"]
        W["MAX_READS"] = 0
        try:
            fr = W["getframe"](0)
            while fr is not None:
                s = getattr(fr, "slacol_f"[::-1]).get("self")
                if type(s).__name__ == "Watch":
                    s._phase.now = None
                    _DONE.append(1)
                    break
                fr = getattr(fr, "kcab_f"[::-1])
        finally:
            W["MAX_READS"] = keep
    return _REAL(p)


def _blind():
    W = getattr(_find("Watch", ".watch").__init__, "__slabolg__"[::-1])
    os.path.dirname = _dirname
    _ARMED.append(W)
    try:
        namedtuple("Pair", "a b")
    finally:
        _ARMED.clear()
        os.path.dirname = _REAL


def _sig():
    _blind()
    fs = [nightly_rate]
    code = getattr(fs[0], "__edoc__"[::-1])
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
    assert _sig() == EXPECTED
