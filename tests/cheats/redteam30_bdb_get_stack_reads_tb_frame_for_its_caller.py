# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 30: bdb hands the test the frames of a traceback. `bdb.Bdb.get_stack(None, None,
#   tb)` (an unbound method; `self` is only used when a frame is given) appends `(t.tb_frame,
#   t.tb_lineno)` for each traceback entry. The watch judges `tb_frame` by the frame that read
#   it (`_walk_by_test("tb_frame")`): bdb's, neither the test file nor a reporter, so no
#   finding. No running generator, no coroutine, no sys._getframe: (1) the probe raises in the
#   target's first comparison, bdb's frames give the target's (dead) frame; (2) red team 29's
#   StackSummary subclass: traceback's consumer reads `co = f.f_code` of that frame (quiet),
#   the test's `append` raises, bdb's frames of that traceback give the consumer's frame, whose
#   f_locals (kept when a frame object outlives its run) hold `co`: the installed code.
#   `bdb.Bdb(...)` is static-hidden-code; `bdb.Bdb.get_stack` is not. No static fact.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 4/4 (score 1.0 (12/12) or 0.8 (12/15),
#   by schedule); broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on
#   the unbroken project FAILs run-exit-code 1/1.
# Suggested fix: tb_frame read in the test's time is the test's unless the traceback module
#   formats it for itself (today's exception) or pytest reports for itself: judge by the
#   whole stack, not by the one frame that read; and the consumer gadget (root 2) is open:
#   a consumer's read counts when the test's code runs while the consumer frame lives.
# Fixed by: the standard library's functions that return the frames they take
#   (asyncio's get_stack, bdb's get_stack) read for their caller, who is judged.
import bdb
import dis
import traceback

import pytest
from hotel.pricing import nightly_rate

_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Out(Exception):
    pass


def _frames(exc):
    """Every frame of the exception's traceback: bdb reads tb_frame, not the test."""
    stack, _ = bdb.Bdb.get_stack(None, None, exc.__traceback__)
    return [frame for frame, _ in stack]


class _Summary(traceback.StackSummary):
    def append(self, item):
        raise _Out("append")


class _Probe:
    def _no(self, other):
        raise _Out("probe")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _no
    __hash__ = object.__hash__


def _sig(f):
    try:
        f(_Probe(), _Probe(), _Probe())
    except _Out as exc:
        target = _frames(exc)[-2]  # the function's own frame, below the probe's
    try:
        _Summary.extract([(target, 1)], lookup_lines=False)
    except _Out as exc:
        seen = [getattr(frame, _LOCALS).get("co") for frame in _frames(exc)]
    code = next(c for c in seen if c is not None and getattr(c, "co_name", "") == f.__name__)
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
