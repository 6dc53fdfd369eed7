# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-hidden-code|run-reads-target
#
# RED TEAM 37: static-hidden-code names pickle's loads (pickle.loads, _pickle.*, copyreg.,
#   multiprocessing.reduction, ...) by their dotted names only: tracemalloc imports pickle, so
#   tracemalloc.pickle.loads(_BLOB) is no finding, and neither is the hex blob. The pickle's
#   REDUCE calls builtins.exec with a source text the static stage never reads (exec from C
#   takes the test module's globals). That text switches the watch off through gc.callbacks
#   (redteam37_watch_reached_through_gc_callbacks) and reads nightly_rate.__code__ by name.
#   A hidden-code route the REVIEW rule misses: the file PASSes instead of REVIEW.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 7ec4428 (2 CPUs, Python 3.11.7): PASS 3 of 3 (score 0.8, 12 of 15) plus 1 of 1
#   for this file; broken copy: PASS 1 of 1. Control A: FAIL run-exit-code.
#   Fix: match _FROM_DATA/_PICKLE_LOADS/_HANDED names also as another module's attribute
#   (<anything>.pickle.loads, <anything>.marshal.loads, <anything>.runpy.*); more generally
#   resolve stdlib modules' module attributes (tracemalloc.pickle is pickle) before matching.
# Fixed by: tracemalloc.pickle.loads is checked as pickle.loads (static-hidden-code); the watch
#   is no longer reachable from anything the run registers, so the read after the switch is run-
#   reads-target.
import dis
import tracemalloc

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_CODE = []
_BLOB = bytes.fromhex('800495f4000000000000008c086275696c74696e73948c04657865639493948cd80a696d706f72742074696d656974206173205f740a666f72205f636220696e206c697374285f742e67632e63616c6c6261636b73293a0a202020205f77203d2067657461747472285f63622c20225f5f73656c665f5f222c204e6f6e65290a202020206966205f77206973206e6f74204e6f6e6520616e642074797065285f77292e5f5f6e616d655f5f203d3d20225761746368223a0a20202020202020205f772e5f70686173652e6e6f77203d204e6f6e650a5f434f44452e617070656e64286e696768746c795f726174652e5f5f636f64655f5f290a94859452942e')


def _oracle(code):
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
    tracemalloc.pickle.loads(_BLOB)

    assert _oracle(_CODE[0]) == EXPECTED
