"""Calls and return types of the target function in the measured run, at the least cost.

The gate wants two small facts from the measured run: how often the target
ran (in "swap" mode, none at all means the body ran only at import, in the
judge) and the builtin types it returned (the zero values its extreme
mutants try, docs/mutation.md). Both are the run's own word, so neither can
turn a FAIL into a PASS: a forged count only moves a verdict to REVIEW, and
forged types only change which zero values are tried.

Two ways to hear one code object:

- **Python 3.12+**: ``sys.monitoring`` local events on that code object
  alone. Nothing else in the process pays for them.
- **Python 3.11**: a profile hook. It sees every call and return of the
  process, C calls included, which made pytest's own machinery about three
  times slower in the measured run (0.14 s of a 0.2 s run on the demo). So
  it is on only inside *windows*: while the run imports the target or a
  test module, while a fixture function sets up and while a test is called.
  A call outside them (a ``pytest_collection_modifyitems`` hook, a
  fixture's teardown) is not counted, which can only make the count smaller
  (a REVIEW, never a PASS) and the zero values tried fewer.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Recorder", "span"]

#: The name our tool registers under with ``sys.monitoring`` (3.12+).
TOOL_NAME = "pytest-quest recorder"
#: At most this many return type names are kept (the extreme mutants try each one).
MAX_TYPES = 8


class Recorder:
    """Return types and call count of one code object while the measured run imports and tests.

    Use :meth:`start`, then :meth:`window` around each stretch that may call
    the target, then :meth:`stop`. :meth:`count` is None when something
    switched the recorder off or replaced it in between: then the run's
    count says nothing.
    """

    def __init__(self, code: types.CodeType, monitoring: bool | None = None) -> None:
        self.code = code
        self.types: list[str] = []
        self.calls = 0
        self._intact = True
        self._depth = 0
        self._tool: tuple[int, dict[int, Callable[..., None]]] | None = None
        use = hasattr(sys, "monitoring") if monitoring is None else monitoring
        self._monitoring = use and hasattr(sys, "monitoring")
        self.hook = self._hook()

    # ------------------------------------------------------------ both ways
    def record(self, event: str, arg: Any) -> None:
        """One event of the target's own frame: ``call`` or ``return`` with its value."""
        if event == "call":
            self.calls += 1
        elif event == "return" and arg is not None:
            # An exception also ends a frame with a None "return": None says nothing here.
            name = type(arg).__name__ if type(arg).__module__ == "builtins" else "?"
            if name not in self.types and len(self.types) < MAX_TYPES:
                self.types.append(name)

    def start(self) -> None:
        """Listen from now on (3.12+), or get ready for the first window (3.11)."""
        if self._monitoring:
            self._tool = _register(self.code, self.record)
            if self._tool is None:  # no tool id free: the 3.11 way, within windows
                self._monitoring = False

    @contextlib.contextmanager
    def window(self) -> Iterator[None]:
        """A stretch of the run in which the target may be called (the profile hook only)."""
        if self._monitoring or self._depth:
            self._depth += 1  # nested (an import in a collection): the outer one has it
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        sys.setprofile(self.hook)
        threading.setprofile(self.hook)  # threads the tests start count too
        try:
            yield
        finally:
            if sys.getprofile() is not self.hook:
                self._intact = False  # replaced inside: what it hid is unknown
            sys.setprofile(None)
            threading.setprofile(None)
            self._depth = 0

    def stop(self) -> None:
        """Stop listening; decide whether the count can be believed."""
        if self._tool is not None:
            self._intact = _unregister(self._tool[0], self.code, self._tool[1]) and self._intact
            self._tool = None

    def count(self) -> int | None:
        return self.calls if self._intact else None

    # ------------------------------------------------------------ 3.11
    def _hook(self) -> Callable[[types.FrameType, str, Any], None]:
        """A plain function that only compares code objects (as a method it cost a third more).
        A frame's code is read only while the frame is on one of the target's lines: each read
        of ``f_code`` raises an audit event, which the run's hook judges (a frame's line is no
        event)."""
        code, record = self.code, self.record
        first, last = span(code)

        def hook(frame: types.FrameType, event: str, arg: Any) -> None:
            line = frame.f_lineno
            if line is not None and first <= line <= last and frame.f_code is code:
                record(event, arg)

        return hook


def span(code: types.CodeType) -> tuple[int, int]:
    """The first and last line of ``code`` and the code nested in it."""
    lines = [code.co_firstlineno]
    pending = [code]
    while pending:
        item = pending.pop()
        lines.extend(line for _, _, line in item.co_lines() if line is not None)
        pending.extend(const for const in item.co_consts if isinstance(const, types.CodeType))
    return min(lines), max(lines)


# ---------------------------------------------------------------- 3.12+
def _api() -> Any:
    """``sys.monitoring``, which the checked Python version (3.11) does not know."""
    return sys.monitoring  # type: ignore[attr-defined]


def _events() -> dict[int, Callable[[Callable[[str, Any], None]], Callable[..., None]]]:
    """Each local event we listen to, and how it becomes a profile-style ``record`` call.

    Mirrors the profile hook: a resumed generator is a call, a yield a return.
    """
    events = _api().events
    return {
        events.PY_START: lambda record: lambda code, offset: record("call", None),
        events.PY_RESUME: lambda record: lambda code, offset: record("call", None),
        events.PY_RETURN: lambda record: lambda code, offset, value: record("return", value),
        events.PY_YIELD: lambda record: lambda code, offset, value: record("return", value),
    }


def _register(code: types.CodeType, record: Callable[[str, Any], None]
              ) -> tuple[int, dict[int, Callable[..., None]]] | None:
    """Take a free tool id and listen to ``code`` alone; None when every id is taken."""
    monitoring = _api()
    for tool in (monitoring.PROFILER_ID, 3, 4):
        try:
            monitoring.use_tool_id(tool, TOOL_NAME)
        except ValueError:  # in use (coverage.py takes COVERAGE_ID)
            continue
        callbacks = {event: make(record) for event, make in _events().items()}
        for event, callback in callbacks.items():
            monitoring.register_callback(tool, event, callback)
        monitoring.set_local_events(tool, code, sum(callbacks))
        return tool, callbacks
    return None


def _unregister(tool: int, code: types.CodeType, callbacks: dict[int, Callable[..., None]]
                ) -> bool:
    """Stop listening; True when the tool, its events and its callbacks were still ours."""
    monitoring = _api()
    intact = monitoring.get_tool(tool) == TOOL_NAME
    with contextlib.suppress(ValueError):
        intact = intact and monitoring.get_local_events(tool, code) == sum(callbacks)
        monitoring.set_local_events(tool, code, 0)
    for event, callback in callbacks.items():
        with contextlib.suppress(ValueError):
            intact = monitoring.register_callback(tool, event, None) is callback and intact
    with contextlib.suppress(ValueError):
        monitoring.free_tool_id(tool)
    return intact
