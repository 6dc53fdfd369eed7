# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 31: pytest's keeper `Traceback.cut` holds the target's code (a `_pytest` `Code`, whose
#   `.raw` is the installed code object, a plain attribute: no audit event) in its local `code`
#   while it compares `x.lineno != lineno`, and `lineno` is the test's object: its `__ne__`
#   runs with cut's frame right below it. The frame: rich's `Console._caller_frame_info(1)`
#   (a library calling inspect.currentframe; believed while no *holder* is below, and pytest's
#   keepers are not holders) returns cut's `f_locals`. cut's own reads (`x.frame` -> tb_frame,
#   `.code` -> f_code) are pytest reading for a keeper: quiet. The test never names a frame
#   attribute, reads no `f_code`, no `__code__`.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 799a834 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.857 (12/14));
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: the same file reading
#   `info.traceback[-1].frame.code.raw` itself FAIL run-reads-target (tb_frame, f_code) 1/1.
# Suggested fix: every reader that keeps the code in a local while it can call the test's code
#   (pytest's keepers: `Traceback.cut`, `recursionindex` (`==` of the frames' locals),
#   `getsource`/`statement` (linecache -> the module's `__loader__`), `repr_args`/`repr_locals`
#   (saferepr of the test's objects)) is a holder; and a library handing out frames (rich's
#   `_caller_frame_info`) should count as a walk whenever the test file is below it, not only
#   under a holder.
# Fixed by: pytest's keepers are holders too: a frame taken while one is on the
#   stack below is a walk.
import dis

import pytest
from rich.console import Console
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Line:
    """A line number that asks who compares it: pytest's Traceback.cut, with `code` in hand."""

    def __init__(self):
        self.seen = []

    def __ne__(self, other):
        here = Console._caller_frame_info(1)[2]  # cut's locals
        self.seen.append(here.get("code"))
        return True

    __hash__ = object.__hash__


def _sig(f):
    with pytest.raises(ValueError) as info:
        f(100.0, "high", 0)
    line = _Line()
    info.traceback.cut(lineno=line)
    code = next(c.raw for c in line.seen if c is not None and c.raw.co_name == f.__name__)
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
