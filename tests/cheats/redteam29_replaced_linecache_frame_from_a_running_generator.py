# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 29: red team 28's 01c (redteam28_traceback_consumer_frame_locals_through_a_
#   replaced_linecache.py) with logging.currentframe() replaced by a generator of the test
#   that reads its own gi_frame while it runs: f_back of that frame is the caller, with no
#   sys._getframe event at all (gi_frame is audited, but the watch only judges it when the
#   generator runs the target's code). The fix of red team 28 (logging.currentframe judged
#   by its caller) closed one way to the frame, not the root: traceback's consumer
#   _extract_from_extended_frame_gen holds `co = f.f_code` and calls linecache.lazycache,
#   replaced by the test; the replacement reads f_locals["co"] two frames up.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 4ccf0cf (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.857, 12/14 classic
#   killed); broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: the frame of a running generator, the test's own included, is a frame walk when
#   the test takes it: FAIL run-reads-target.
# Suggested fix: a gi_frame/cr_frame/ag_frame read by the test's code (or code made at run
#   time) of a generator that is running is a frame walk (f_back hands out its caller); the
#   consumers must not be trusted while a module attribute they call (linecache.lazycache,
#   linecache.checkcache, linecache.getline) is not the original (as `guards` already does
#   for _get_code_position); static: assignment to attributes of stdlib modules.
import dis
import linecache
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_GF = "_".join(("gi", "frame"))


def _here():
    box = []

    def gen():
        yield getattr(getattr(box[0], _GF), _BACK)

    g = gen()
    box.append(g)
    return next(g)


_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


def _lazycache(filename, module_globals, _real=linecache.lazycache):
    caller = getattr(getattr(_here(), _BACK), _BACK)
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
