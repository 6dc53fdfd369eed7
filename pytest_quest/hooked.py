"""What a run's two audit hooks share: how our code steers them, and how they speak.

Each forked run adds the sandbox guard (:class:`pytest_quest.runparts.Guard`) and the code
watch (:class:`pytest_quest.watch.Watch`) as audit hooks. Both run in the test's own process,
so nothing of the run holds either of them (a test reached both through
``request.config.pluginmanager`` and paused them): they are in the interpreter's hook list
only. pytest-quest's own code steers them with an audit event of its own (:data:`CONTROL`):
``start`` when test code is about to run, ``end`` when it is over, believed only from the
very frame that raised ``start`` (:class:`Phase`). What they find goes to the run's answer
pipe the moment they find it (:class:`AnswerPipe`), so no later code of the test takes it
back. Neither ever calls code of the test: values are read by exact type (:func:`text_of`);
a ``str`` subclass's ``__eq__`` or a path's ``__fspath__`` would run the test's code inside
the hook, where one frame walk finds the hook itself.
"""

from __future__ import annotations

import _thread
import os
import pathlib
import types
from typing import Any

__all__ = ["CONTROL", "LOST", "AnswerPipe", "Phase", "text_of"]

#: The audit event pytest-quest's own code steers the run's hooks with: ``("start",)``,
#: ``("end",)``, and the watch's ``("item", nodeid)`` and ``("loading", flag)``.
CONTROL = "pytest_quest.run"
#: The exit status of a run whose hook could not write a finding to its answer pipe.
LOST = 86

BEFORE, TEST, AFTER = "before", "test", "after"

#: Paths read as text by the hooks themselves: these classes' own code gives a plain str.
_PATH_TYPES = frozenset({pathlib.PurePosixPath, pathlib.PosixPath})


def _local_path() -> type | None:
    try:
        from _pytest._py.path import LocalPath
    except ImportError:  # pragma: no cover - another pytest
        return None
    return LocalPath


_LOCAL_PATH = _local_path()


def text_of(path: Any) -> str | None:
    """``path`` as text if it is a str, bytes, or a path of pathlib's or pytest's own (the
    ``tmpdir`` fixture's) exact class, else None: nothing of the test runs."""
    kind = type(path)
    if kind is str:
        return path
    if kind is bytes:
        return path.decode("utf-8", "surrogateescape")
    if kind in _PATH_TYPES or (kind is _LOCAL_PATH and _LOCAL_PATH is not None):
        text = path.__fspath__()
        return text if type(text) is str else None
    return None


class Phase:
    """Before test code, in its time, after it: moved only by :data:`CONTROL` events raised
    from the frame that started it. After the end, threads other than the starter's are
    still in the test's time (a thread the test left running)."""

    def __init__(self) -> None:
        self.now = BEFORE
        self._anchor: types.FrameType | None = None
        self._starter = 0

    @property
    def anchor(self) -> types.FrameType | None:
        return self._anchor

    def steer(self, verb: str, caller: types.FrameType) -> bool:
        """Apply ``start`` or ``end`` raised by ``caller``; False when the frame may not."""
        if verb == "start" and self.now is BEFORE:
            self._anchor, self.now, self._starter = caller, TEST, _thread.get_ident()
            return True
        if verb == "end" and caller is self._anchor and self._anchor is not None:
            self.now, self._anchor = AFTER, None
            return True
        return False

    def testing(self) -> bool:
        """Whether the event under way is in the test's time."""
        return self.now is TEST or (self.now is AFTER and _thread.get_ident() != self._starter)


class AnswerPipe:
    """The run's answer pipe as the hooks write to it: one line per finding, before the
    answer. Its identity is taken when test code starts; a pipe closed or replaced by then
    ends the run (:data:`LOST`) before the hook returns."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self._identity: tuple[int, int] | None = None

    def seal(self) -> None:
        if self.fd is not None:
            found = os.fstat(self.fd)
            self._identity = (found.st_dev, found.st_ino)

    def tell(self, prefix: bytes, text: str) -> None:
        if self.fd is None:
            return
        try:
            found = os.fstat(self.fd)
            if (found.st_dev, found.st_ino) != self._identity:
                raise OSError("the answer pipe was replaced")
            view = memoryview(prefix + text.encode("utf-8", "replace").hex().encode() + b"\n")
            while view:
                view = view[os.write(self.fd, view):]
        except OSError:
            os._exit(LOST)

