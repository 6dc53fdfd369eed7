# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 28: a consumer (Readers.consumers: traceback) reads a frame's f_code for itself,
#   keeps it in a local and then calls a module attribute the test replaced. traceback.
#   extract_tb(tb) of the ValueError nightly_rate raised: _walk_tb_with_full_positions reads
#   tb_frame (a walker called by a walker: quiet), StackSummary._extract_from_extended_
#   frame_gen reads `co = f.f_code` (a consumer: quiet) and calls linecache.lazycache(
#   filename, f.f_globals) - replaced by the test for the call. The replacement takes its
#   frame with logging.currentframe(), walks f_back (attribute name built with str.join) and
#   reads f_locals["co"]: the installed code object, no finding. Plain file.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8, 12/15 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: logging.currentframe is judged by its caller (the test's replacement of
#   linecache.lazycache): a frame walk of the test: FAIL run-reads-target.
# Suggested fix: the frames of a trusted reader must not be reachable from code of the test
#   while it holds the code: a sys._getframe in the test's time is the test's when any frame
#   of the test is above the frame it returns (judge the frame handed out and the stack
#   under the caller, not the immediate caller: logging.currentframe); the readers' calls
#   into replaceable module attributes (linecache.lazycache/checkcache, os.path.*) are code
#   of the test. Static: assigning attributes of stdlib modules (linecache.x = ...) and
#   logging.currentframe are cheap to name.
import dis
import linecache
import logging
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


def _lazycache(filename, module_globals, _real=linecache.lazycache):
    caller = getattr(logging.currentframe(), _BACK)
    _SEEN.append(getattr(caller, _LOCALS).get("co"))
    return _real(filename, module_globals)


def _sig(f):
    try:
        f(100.0, "high", 0)
    except ValueError as exc:
        tb = exc.__traceback__
    _SEEN.clear()
    real = linecache.lazycache
    linecache.lazycache = _lazycache
    try:
        traceback.extract_tb(tb)
    finally:
        linecache.lazycache = real
    code = next(c for c in _SEEN if c is not None and c.co_name == f.__name__)
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
