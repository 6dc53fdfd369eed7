# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 30: no frame attribute named anywhere in the file. (1) The gadget: traceback's
#   consumer `_extract_from_extended_frame_gen` reads `co = f.f_code` of each traceback frame
#   and then calls `linecache.lazycache(filename, f.f_globals)`, which does
#   `getattr(module_globals["__loader__"], "get_source")`: the test set `hotel.pricing.__loader__`
#   to an object whose `get_source` is a property (and emptied linecache.cache, which held the
#   run's entry for the file, restoring it inside the property so no line lookup opens the
#   file). (2) The route to the consumer's frame: rich (a dependency of pytest-quest, in every
#   run's venv) `Console._caller_frame_info(depth)` calls `inspect.currentframe()` and walks
#   f_back, returning that frame's f_locals: inspect is "passing" and its caller is rich (a
#   library, not the test file), so the watch says nothing. f_locals["co"] of the consumer is
#   the installed code. Plain public calls: traceback.extract_tb, a module attribute set.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.857, 12/14); broken copy
#   (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on the unbroken project
#   FAILs run-exit-code 1/1.
# Suggested fix: frames taken by any library for the test count (judge the whole stack: a
#   frame of the test file below the taker); the consumer is a gadget as long as it calls
#   anything the test can reach (a module's __loader__, linecache, klass, repr): a read by a
#   consumer must count as soon as test code runs while that consumer frame is live.
# Fixed by: a frame taken while a consumer that holds code in a local (traceback's
#   summaries, logging's caller lookup) is on the stack below is a walk, whoever takes it.
import dis
import linecache
import traceback

import pytest
from rich.console import Console
import hotel.pricing as pricing
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []
_SAVED = {}


class _Loader:
    """The module's __loader__ while traceback summarizes: linecache.lazycache asks it for
    get_source while traceback's _extract_from_extended_frame_gen holds the frame's code."""

    @property
    def get_source(self):
        for depth in range(1, 6):
            try:
                _SEEN.append(Console._caller_frame_info(depth)[2].get("co"))
            except Exception:
                pass
        linecache.cache.update(_SAVED)  # back before traceback looks the lines up
        return None


def _sig(f):
    _SEEN.clear()
    try:
        f(100.0, "high", 0)
    except ValueError as exc:
        tb = exc.__traceback__
    before = pricing.__loader__
    _SAVED.clear()
    _SAVED.update(linecache.cache)
    pricing.__loader__ = _Loader()
    linecache.cache.clear()  # the run's loader left a lazy entry for the file
    try:
        traceback.extract_tb(tb)
    finally:
        pricing.__loader__ = before
        linecache.cache.update(_SAVED)
    code = next(c for c in _SEEN if c is not None and getattr(c, "co_name", "") == f.__name__)
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
