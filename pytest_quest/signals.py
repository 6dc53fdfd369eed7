"""Signal handlers in a run: installed in the test's time only as the code watch allows.

Python hands a signal handler the frame that runs when the signal arrives, with no audit
event. A handler of the test's, armed by an interval timer, was handed frames of readers that
held the installed code in a local (``inspect.signature``'s, traceback's) and read it there
(red team 36), so every other frame source of the test is judged, and this one is too:
each run replaces the interpreter's own installer (``_signal.signal``, which ``signal.signal``
calls) with :func:`_install`, which asks the watch first. A plugin's handler (pytest-timeout's,
a function of its own) is installed as before; the test's own function, or any other callable
(an object that passes the frame on), is refused.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]

# Bound at import (see pytest_quest.watch): the test's builtins never run in here.
from builtins import PermissionError, bool, list  # noqa: UP029 - on purpose
from collections.abc import Callable
from typing import Any

__all__ = ["guard"]

#: The interpreter's installer, bound at import (before any test code).
_INSTALL = _signal.signal
#: The judgement of the run's watch (one a run): whether a handler may be installed now.
_ALLOWS: list[Callable[[Any], bool]] = []


def _install(signalnum: Any, handler: Any) -> Any:
    """``_signal.signal`` as a run has it: the watch judges the handler first."""
    for allows in _ALLOWS:
        if not allows(handler):
            raise PermissionError("pytest-quest sandbox: a signal handler of the test's is not "
                                  "allowed (a signal hands it whatever frame runs)")
    return _INSTALL(signalnum, handler)


# It passes for the installer it replaces (``inspect.getmodule`` names ``_signal``).
_install.__module__, _install.__name__, _install.__qualname__ = "_signal", "signal", "signal"


def guard(allows: Callable[[Any], bool]) -> None:
    """From now on in this process, a handler is installed only if ``allows(handler)``."""
    _ALLOWS[:] = [allows]
    _signal.signal = _install  # signal.signal calls it there (and keeps no other reference)
