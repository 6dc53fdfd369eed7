# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 30: asyncio hands the test every frame on the stack, with no event the watch
#   counts. `asyncio.base_tasks._task_get_stack(task, None)` reads `task._coro.cr_frame` and
#   walks `f_back`; the test gives it a duck task whose `_coro` is the test's own coroutine,
#   running now (`c.send(None)`; the coroutine calls _task_get_stack). The watch judges the
#   running coroutine's `cr_frame` as a frame walk (`_walk_by_test("cr_frame", 4)`) by the frame
#   that read it: asyncio's, not the test file's, so nothing is said. The frames replace red
#   team 29's gi_frame route (now judged) in 29's StackSummary-subclass gadget: the target
#   calls `_Probe.__le__`, which hands the target's frame to `_Summary.extract`; traceback's
#   consumer `_extract_from_extended_frame_gen` reads `co = f.f_code` (quiet) and calls the
#   test's `append`, which reads the consumer's `f_locals["co"]` (frames from asyncio again).
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.857, 12/14); broken copy
#   (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on the unbroken project
#   FAILs run-exit-code 1/1.
# Suggested fix: a frame handed out in the test's time (cr_frame/gi_frame/ag_frame of a running
#   coroutine/generator, tb_frame, sys._getframe) is the test's unless every frame between the
#   reader and the test's frame is ours/pytest's reporting for itself: judge the whole stack
#   (is any frame of the test file below the reader?), not the immediate reader; at least
#   do not trust asyncio.base_tasks' stack walkers (they return frames).
# Fixed by: the standard library's functions that return the frames they take
#   (asyncio's get_stack, bdb's get_stack) read for their caller, who is judged.
import dis
from asyncio import base_tasks
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


class _Task:
    _exception = None


def _here():
    task = _Task()

    async def co():
        return base_tasks._task_get_stack(task, None)

    c = co()
    task._coro = c
    try:
        c.send(None)
    except StopIteration as stop:
        frames = stop.value
    return frames[-2]


class _Summary(traceback.StackSummary):
    def append(self, item):
        frame = _here()
        for _ in range(4):
            frame = getattr(frame, _BACK)
            if frame is None:
                break
            _SEEN.append(getattr(frame, _LOCALS).get("co"))
        super().append(item)


class _Probe:
    def _no(self, other):
        caller = getattr(getattr(_here(), _BACK), _BACK)
        _Summary.extract([(caller, 1)], lookup_lines=False)
        raise RuntimeError("probe")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _no
    __hash__ = object.__hash__


def _sig(f):
    _SEEN.clear()
    try:
        f(_Probe(), _Probe(), _Probe())
    except RuntimeError:
        pass
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
