# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 30: the same hole as redteam30_asyncio_task_get_stack_of_a_running_coroutine.py
#   through public API only: `asyncio.Task(c, loop=_Loop()).get_stack()`, where `_Loop` is a
#   duck event loop (get_debug, call_soon, call_exception_handler) so the task is never
#   scheduled, and `c` is the test's coroutine, driven by hand (`c.send(None)`) and calling
#   get_stack while it runs. The C Task calls asyncio.base_tasks._task_get_stack, which reads
#   `cr_frame` of the running coroutine and walks f_back: every frame on the stack, judged by
#   asyncio's frame (not the test's): no finding. Gadget: red team 29's StackSummary subclass
#   (traceback's consumer holds `co` while it calls the test's `append`).
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8-0.857); broken copy
#   (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Suggested fix: as the asyncio file (judge the whole stack for frame hand-outs); a cheap
#   twin: `cr_frame`/`gi_frame` of a *running* coroutine read by anyone in the test's time is a
#   walk unless the reader is pytest-quest's own.
# Fixed by: the standard library's functions that return the frames they take
#   (asyncio's get_stack, bdb's get_stack) read for their caller, who is judged.
import dis
import asyncio
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


class _Loop:
    """Just enough of an event loop for asyncio.Task: the task is never scheduled."""

    def get_debug(self):
        return False

    def call_soon(self, *args, **kwargs):
        return None

    def call_exception_handler(self, context):
        return None


def _here():
    box = []

    async def co():
        return box[0].get_stack()

    c = co()
    box.append(asyncio.Task(c, loop=_Loop()))
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
