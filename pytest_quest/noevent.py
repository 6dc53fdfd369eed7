"""The interpreter's two frame sources that raise no audit event, closed in each run.

A frame leads to every frame below it and to their locals (``f_back``, ``f_locals``: no
event), where a reader of the installed code holds it (traceback's summaries, pytest's
traceback getters): so the code watch judges every event that hands out a frame. Two hand
them out with no event at all, and each run closes both before test code:

- **A signal handler's frame argument**: the frame that runs when the signal arrives (red
  team 36 armed an interval timer and read ``inspect.signature``'s locals there). Every
  handler is installed wrapped in a :class:`Shield`, which calls it with no frame;
  ``signal.getsignal`` still answers the handler itself. Nothing real needs the frame:
  pytest-timeout's handler and asyncio's SIGINT handler ignore it (red team 37: a filter on
  *which* handler may be installed kept out asyncio's and let in ``logging.addLevelName``,
  which files its second argument).
- **The collector's kept garbage**: with ``gc.DEBUG_SAVEALL`` every object it frees, dead frames
  included, lands in ``gc.garbage`` (red team 35). The flag is refused.

Both replace attributes of the interpreter's modules, so a second module of either (the import
system's ``_imp.create_builtin`` makes one, from ``imp.init_builtin`` or
``test.support.import_helper.import_fresh_module``: red team 38) would bring the originals
back: that is refused too.

Neither replacement holds anything of the run's hooks (red team 37 reached the watch through
the callback and the judgement an earlier version registered); the code watch checks, at each
event, that the collector's flag is off, and, whenever the target's code is read, that no
handler but a shielded one, a number, the interpreter's own or one in place at the test's
start is installed (a second ``_signal`` module has an installer of its own).
"""

from __future__ import annotations

import _imp
import _signal  # type: ignore[import-not-found]
import gc
import operator
import signal

# Bound at import (see pytest_quest.watch): a builtin the test rebinds never runs here.
from builtins import (  # noqa: UP029 - on purpose
    PermissionError,
    TypeError,
    bool,
    callable,
    frozenset,
    int,
    sorted,
    str,
    tuple,
    type,
)
from typing import Any

__all__ = ["HANDLER_OF", "SIGNALS", "Shield", "close", "hands_frames"]

#: The interpreter's own, bound at import (before any test code).
_INSTALL, HANDLER_OF = _signal.signal, _signal.getsignal
#: Every signal a handler can be installed for.
SIGNALS = tuple(sorted(int(number) for number in signal.valid_signals()
                       if number not in (signal.SIGKILL, signal.SIGSTOP)))
_SET_DEBUG, _SAVE_ALL, _INDEX = gc.set_debug, gc.DEBUG_SAVEALL, operator.index
_DEFAULT_INT_HANDLER = signal.default_int_handler
_CREATE_BUILTIN = _imp.create_builtin
#: The modules whose attributes a run replaces, and the maker of modules itself.
_REPLACED = frozenset({"_signal", "gc", "_imp"})


class _Spec:
    """What ``create_builtin`` reads of a spec, copied: the name it was checked by (a spec of
    the test's could answer one name to the check and another to the interpreter)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Shield:
    """A handler as a run installs it: called with the signal's number and no frame."""

    __slots__ = ("handler",)

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def __call__(self, signum: int, frame: Any) -> Any:
        return self.handler(signum, None)


def _install(signalnum: Any, handler: Any) -> Any:
    """``_signal.signal`` as a run has it (``signal.signal`` calls it)."""
    if callable(handler) and handler is not _DEFAULT_INT_HANDLER:
        handler = Shield(handler)
    return _unshielded(_INSTALL(signalnum, handler))


def _handler(signalnum: Any) -> Any:
    """``_signal.getsignal`` as a run has it: the handler as it was given."""
    return _unshielded(HANDLER_OF(signalnum))


def hands_frames(handler: Any) -> bool:
    """Whether a signal hands ``handler`` (as the interpreter holds it) a frame: a callable
    neither shielded nor the interpreter's own."""
    return handler is not None and type(handler) is not int and \
        type(handler) is not Shield and handler is not _DEFAULT_INT_HANDLER


def _unshielded(handler: Any) -> Any:
    return handler.handler if type(handler) is Shield else handler


def _set_debug(flags: Any) -> None:
    """``gc.set_debug`` as a run has it: every flag but ``DEBUG_SAVEALL``."""
    value = flags if type(flags) is int else _INDEX(flags)
    if value & _SAVE_ALL:
        raise PermissionError("pytest-quest sandbox: gc.DEBUG_SAVEALL is not allowed (it keeps "
                              "every freed frame in gc.garbage)")
    _SET_DEBUG(value)


def _create_builtin(spec: Any) -> Any:
    """``_imp.create_builtin`` as a run has it: no second module of those a run changed."""
    name = spec.name
    if type(name) is not str:
        raise TypeError("pytest-quest sandbox: a module's name must be a str")
    if name in _REPLACED:
        raise PermissionError(f"pytest-quest sandbox: a second {name} module is not allowed")
    return _CREATE_BUILTIN(_Spec(name))  # type: ignore[arg-type]


def close() -> None:
    """From now on in this process: handlers get no frame, the collector keeps nothing."""
    _signal.signal, _signal.getsignal = _install, _handler
    gc.set_debug = _set_debug
    _imp.create_builtin = _create_builtin
