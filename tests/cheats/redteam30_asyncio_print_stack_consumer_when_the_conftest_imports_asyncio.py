# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 30: the trusted-reader set depends on what the judge imported. readers() makes every
#   code object of the asyncio modules loaded in the judge a consumer. In a project whose
#   conftest imports asyncio (here: `import asyncio` added to example_project/tests/conftest.py),
#   asyncio's `_task_print_stack` is a consumer, and a gadget: `_Shown(asyncio.Task)` overrides
#   `get_stack` to return [the target's frame] and `__repr__`; `task.print_stack(file=...)` (C ->
#   base_tasks._task_print_stack) reads `co = f.f_code` (quiet), then formats
#   f'Stack for {task!r}' - the test's __repr__ runs with `co` in asyncio's locals and reads it
#   through Task.get_stack of a running coroutine (redteam30_public_task_get_stack_with_a_duck_loop.py).
#   linecache.cache gets an entry for the file first so asyncio's getline opens nothing.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): on example_project as shipped (no asyncio in the
#   judge): FAIL run-reads-target "read the target's code through f_code" 1/1. With `import
#   asyncio` in tests/conftest.py: PASS 3/3 (0.8-0.857); broken copy with that conftest (base *
#   1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on the unbroken copy FAILs
#   run-exit-code 1/1.
# Suggested fix: consumers named function by function (the reports asyncio makes of a
#   coroutine), not whole modules, and made the same whatever the judge imported; and the
#   general consumer rule (a consumer's read counts once test code runs while it is live).
# Fixed by: asyncio's consumers are named function by function (its repr of a task or
#   coroutine), whatever the judge imported; `_task_print_stack` reads for its caller
#   (tests/test_watch.py checks the consumers asyncio adds when the judge loaded it).
import asyncio
import dis
import io
import linecache
import traceback

import pytest
from hotel.pricing import nightly_rate

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


def _stack():
    """Every frame on the stack, from asyncio's Task.get_stack of a coroutine running now."""
    box = []

    async def co():
        return box[0].get_stack()

    c = co()
    box.append(asyncio.Task(c, loop=_Loop()))
    try:
        c.send(None)
    except StopIteration as stop:
        return stop.value


class _Shown(asyncio.Task):
    """Task.print_stack (asyncio's _task_print_stack) over the frames we hand it."""

    def __init__(self, frames):
        async def idle():
            return None

        super().__init__(idle(), loop=_Loop())
        self.frames = frames

    def get_stack(self, *, limit=None):
        return self.frames

    def __repr__(self):
        for frame in _stack():
            _SEEN.append(getattr(frame, _LOCALS).get("co"))
        return "task"


class _Probe:
    def _no(self, other):
        target = _stack()[-4]  # [... the function, this probe, _stack, co]
        name = traceback.StackSummary.extract([(target, 1)], lookup_lines=False)[0].filename
        linecache.cache[name] = (0, None, [], name)  # asyncio's getline reads no file
        _Shown([target]).print_stack(file=io.StringIO())
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
