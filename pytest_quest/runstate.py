"""Nothing one run leaves behind reaches a later run (red team 2, finding 01).

The measured run is pristine; if it could leave its results where a later
run finds them (a file in the sandbox copy, in a temp dir, in SysV shared
memory), every later run would have an oracle and kill each mutant by
comparison. So, besides the run child's own temp dir, which the zygote
removes before the next run is reported ended:

- the run child's Landlock layer lets it write only its own temp dir (not
  the sandbox copy: :mod:`pytest_quest.forkrun`);
- the run dirs live in a folder no run can list (:func:`hidden_runs_dir`):
  a run cannot find a sibling's dir by name (random, 8 characters) while
  both run;
- SysV IPC objects, which outlive their process, are removed after each
  run (:func:`remove_sysv_ipc`) when the harness has an IPC namespace of
  its own (with ``namespaces`` isolation): only this submission's runs
  could have made them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import tempfile
from typing import Any

__all__ = ["hidden_runs_dir", "remove_sysv_ipc", "reopen"]

_IPC_RMID = 0
_LIBC: list[Any] = []


def hidden_runs_dir(base: str) -> str:
    """A fresh folder for run dirs that nobody without capabilities can list (mode 0311)."""
    path = tempfile.mkdtemp(prefix="runs-", dir=base)
    os.chmod(path, 0o311)
    return path


def reopen(path: str) -> None:
    """Make the runs folder listable again, for the gate's cleanup."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)


def _libc() -> Any:
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _ids(kind: str) -> list[int]:
    """Ids listed in ``/proc/sysvipc/<kind>`` (the second column; the first line is a header)."""
    try:
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as handle:
            rows = handle.read().splitlines()[1:]
    except OSError:
        return []
    out = []
    for row in rows:
        fields = row.split()
        if len(fields) > 1 and fields[1].isdigit():
            out.append(int(fields[1]))
    return out


def remove_sysv_ipc() -> int:
    """Remove every SysV shared memory segment, semaphore set and message queue; how many.

    Only ever called in an IPC namespace private to one submission: outside
    one it would remove the caller's other processes' objects.
    """
    libc = _libc()
    removed = 0
    for ident in _ids("shm"):
        removed += int(libc.shmctl(ctypes.c_int(ident), _IPC_RMID, None) == 0)
    for ident in _ids("sem"):
        removed += int(libc.semctl(ctypes.c_int(ident), 0, _IPC_RMID) == 0)
    for ident in _ids("msg"):
        removed += int(libc.msgctl(ctypes.c_int(ident), _IPC_RMID, None) == 0)
    return removed
