"""pytest's traceback API, in a run, sees a stand-in for the target's code.

Why: a test may call pytest's traceback API (``excinfo.traceback[-1].name``, an honest
test's), and pytest formats a failure through the frames of the target. Both read the frame's
code: the code the run installed, a mutant's in a mutant run. The watch lets pytest read it
for itself, but every round of red teams found one more namespace through which pytest's
readers handed what they read to the test (a replaced ``Code`` class, ``inspect.getfile``, a
builtin, a ``__eq__`` of the test's that ``Traceback.recursionindex`` called with a dead
frame's locals, ``reprlib``'s dispatch under ``showlocals``: red teams 44 to 47). Now pytest's
``Frame.code`` answers, for the target's code and the code nested in it, a stand-in: a code
object with the target's file, first line and names and an empty body, the same in every run.
Whatever pytest holds or hands on tells nothing of what was installed; every other code is
pytest's as before.

The descriptor keeps its state on its class (a module of the run's, pictured by the seal: a
change is a finding at the next judged event) and calls nothing the test can set: no default
argument, no closure cell (a cell's contents can be assigned without an audit event).
"""

from __future__ import annotations

import inspect
import types
from builtins import id as _id  # bound on purpose: a test may rebind the builtin
from typing import Any

__all__ = ["StandIn", "install", "stand_in", "stand_ins"]

#: An empty body compiled once, given each code's file, first line and names.
_STUB = next(const for const in compile("def _():\n    pass\n", "<stand-in>", "exec").co_consts
             if type(const) is types.CodeType)


#: The flags that say a code takes ``*args`` or ``**kwargs``.
_VARIADIC = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def stand_in(code: types.CodeType) -> types.CodeType:
    """A code with ``code``'s file, first line, names and arguments, and an empty body: what
    pytest reports of a frame (its source lines, its arguments' values) stays as it was."""
    flags = code.co_flags & _VARIADIC
    count = code.co_argcount + code.co_kwonlyargcount + bin(flags).count("1")
    names = code.co_varnames[:count]
    return _STUB.replace(
        co_filename=code.co_filename, co_firstlineno=code.co_firstlineno,
        co_name=code.co_name, co_qualname=code.co_qualname,
        co_argcount=code.co_argcount, co_posonlyargcount=code.co_posonlyargcount,
        co_kwonlyargcount=code.co_kwonlyargcount, co_flags=(_STUB.co_flags & ~_VARIADIC) | flags,
        co_varnames=names, co_nlocals=len(names))


def stand_ins(code: types.CodeType) -> tuple[tuple[int, types.CodeType], ...]:
    """(id, stand-in) of ``code`` and of every code nested in it."""
    pairs: list[tuple[int, types.CodeType]] = []
    pending = [code]
    while pending:
        item = pending.pop()
        pairs.append((_id(item), stand_in(item)))
        pending.extend(const for const in item.co_consts if type(const) is types.CodeType)
    return tuple(pairs)


class StandIn:
    """``Frame.code`` of pytest's traceback API: a ``Code`` of the frame's code, or of its
    stand-in when that is the target's."""

    #: (id, stand-in) of the target's code and the code nested in it (:func:`install`).
    PAIRS: tuple[tuple[int, types.CodeType], ...] = ()
    #: pytest's ``Code`` class, as it was when installed.
    CODE: Any = None

    def __get__(self, frame: Any, owner: type | None = None) -> Any:
        if frame is None:
            return self
        return StandIn.CODE(StandIn.choose(frame.raw.f_code))

    @staticmethod
    def choose(code: Any) -> Any:
        """``code``, or its stand-in; the frame's code is in no local of the caller's meanwhile."""
        for ident, stand_in in StandIn.PAIRS:
            if ident == _id(code):
                return stand_in
        return code


def install(code: types.CodeType) -> None:
    """From now on pytest's ``Frame.code`` answers a stand-in for ``code`` (the installed
    target's) and the code nested in it. Called by the run before test code."""
    from _pytest._code import code as pytest_code

    StandIn.PAIRS = stand_ins(code)
    StandIn.CODE = pytest_code.Code
    pytest_code.Frame.code = StandIn()  # type: ignore[assignment,method-assign]
