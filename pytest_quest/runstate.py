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
- with namespaces, each run has its own PID, mount, IPC and network
  namespaces (:func:`pytest_quest.confine.into_run_namespaces`): SysV IPC
  objects, which outlive their process, die with the run's IPC namespace.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["hidden_runs_dir", "reopen"]


def hidden_runs_dir(base: str) -> str:
    """A fresh folder for run dirs that nobody without capabilities can list (mode 0311)."""
    path = tempfile.mkdtemp(prefix="runs-", dir=base)
    os.chmod(path, 0o311)
    return path


def reopen(path: str) -> None:
    """Make the runs folder listable again, for the gate's cleanup."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
