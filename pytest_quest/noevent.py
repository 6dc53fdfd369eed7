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

No function of ours holds the originals where a test could read them with no event: a
module's globals (``__globals__``), a closure's cells and a function's defaults can all be read
with none (red team 40 read ``_install.__globals__`` for the interpreter's installer). Each
original lives only in the frame of a suspended generator of its own (:func:`_keeper`), whose
``send`` calls it: the one way to that frame is the generator's ``gi_frame``, which raises an
event the code watch counts as a walk.

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
    BaseException,
    GeneratorExit,
    PermissionError,
    TypeError,
    ValueError,
    bool,
    callable,
    frozenset,
    int,
    list,
    next,
    range,
    sorted,
    str,
    tuple,
    type,
)
from collections.abc import Callable, Generator
from types import SimpleNamespace
from typing import Any

__all__ = ["HANDLER_OF", "KEEPING", "SIGNALS", "Shield", "close", "hands_frames"]

#: The interpreter's own reader of handlers, bound at import (it installs nothing).
HANDLER_OF = _signal.getsignal
#: Every signal a handler can be installed for.
SIGNALS = tuple(sorted(int(number) for number in signal.valid_signals()
                       if number not in (signal.SIGKILL, signal.SIGSTOP)))
_SAVE_ALL, _INDEX = gc.DEBUG_SAVEALL, operator.index
_NO_TRACEBACK = BaseException.with_traceback  # the class's own: never an override's
_DEFAULT_INT_HANDLER = signal.default_int_handler
#: The modules whose attributes a run replaces, and the maker of modules itself.
_REPLACED = frozenset({"_signal", "gc", "_imp"})
#: Keepers per original: a call may come while another is under way on the same thread (a
#: builtin module's init importing another builtin one), and a running generator takes none.
_KEEPERS = 4
#: The three replacements' ways to the originals, set by :func:`close`.
_CALLS: list[Callable[[tuple[Any, ...]], Any]] = []
_SIGNAL, _DEBUG, _BUILTIN = 0, 1, 2


def _held(original: Callable[..., Any], kind: int, shield: type, default: Any,
          ) -> Generator[tuple[bool, Any], Any, None]:
    """Calls ``original`` with each tuple of arguments sent, by the run's rule for it: (True,
    its result) or (False, the exception, its traceback cut: it would lead to this frame).
    The rule is checked here again, with this frame's locals only: whoever reaches ``send``
    (a closure's cell, no event) may send anything, and a module's global could be changed."""
    is_callable, kind_of, number, text, refused = callable, type, int, str, PermissionError
    cut, save_all, replaced, spec = _NO_TRACEBACK, _SAVE_ALL, _REPLACED, SimpleNamespace
    arguments_kind, signal_kind, debug_kind = tuple, _SIGNAL, _DEBUG
    ending, everything = GeneratorExit, BaseException
    answer: tuple[bool, Any] = (True, None)
    while True:
        try:  # around the yield too: a ``throw()`` must not end the frame (its traceback)
            arguments = yield answer
            if kind_of(arguments) is not arguments_kind:
                raise refused("pytest-quest sandbox: not a call a run allows")
            if kind == signal_kind:
                signalnum, handler = arguments
                if is_callable(handler) and handler is not default and \
                        kind_of(handler) is not shield:
                    handler = shield(handler)
                answer = (True, original(signalnum, handler))
            elif kind == debug_kind:
                (flags,) = arguments
                if kind_of(flags) is not number or flags & save_all:
                    raise refused("pytest-quest sandbox: gc.DEBUG_SAVEALL is not allowed")
                answer = (True, original(flags))
            else:
                (name,) = arguments
                if kind_of(name) is not text or name in replaced:
                    raise refused(f"pytest-quest sandbox: a second {name} module is not allowed")
                answer = (True, original(spec(name=name)))
        except ending:  # collected (the process ends): the frame's locals go with it
            return
        except everything as error:  # handed to the caller, who raises it
            answer = (False, cut(error, None))


#: The code of every frame that holds an original: a frame taken by code of the test's with one
#: of these below it is a walk (the code watch counts it as a holder's: a handler of the
#: test's can run between two of its instructions).
KEEPING = _held.__code__


def _keeper(original: Callable[..., Any], kind: int) -> Callable[[tuple[Any, ...]], Any]:
    """A caller of ``original`` that holds it in suspended generators' frames only."""
    sends = []
    for _ in range(_KEEPERS):
        held = _held(original, kind, Shield, _DEFAULT_INT_HANDLER)
        next(held)
        sends.append(held.send)
    del original, held
    ready = tuple(sends)

    def call(arguments: tuple[Any, ...]) -> Any:
        for send in ready:
            try:
                done, value = send(arguments)
            except ValueError:  # already executing: a call under way on this thread
                continue
            if not done:
                raise value
            return value
        raise PermissionError("pytest-quest sandbox: too many nested calls of a replaced "
                              "interpreter function")

    return call


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
    number = signalnum if type(signalnum) is int else _INDEX(signalnum)
    return _unshielded(_CALLS[_SIGNAL]((number, handler)))


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
    _CALLS[_DEBUG]((value,))


def _create_builtin(spec: Any) -> Any:
    """``_imp.create_builtin`` as a run has it: no second module of those a run changed."""
    name = spec.name
    if type(name) is not str:
        raise TypeError("pytest-quest sandbox: a module's name must be a str")
    if name in _REPLACED:
        raise PermissionError(f"pytest-quest sandbox: a second {name} module is not allowed")
    return _CALLS[_BUILTIN]((name,))


def close() -> None:
    """From now on in this process: handlers get no frame, the collector keeps nothing."""
    _CALLS[:] = [_keeper(_signal.signal, _SIGNAL), _keeper(gc.set_debug, _DEBUG),
                 _keeper(_imp.create_builtin, _BUILTIN)]
    _signal.signal, _signal.getsignal = _install, _handler
    gc.set_debug = _set_debug
    _imp.create_builtin = _create_builtin
