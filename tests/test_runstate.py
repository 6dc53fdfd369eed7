"""Nothing a run leaves behind reaches a later run (red team 2, finding 01)."""

from __future__ import annotations

import ctypes
import os
import stat
from pathlib import Path

import pytest

from pytest_quest.runstate import hidden_runs_dir, remove_sysv_ipc, reopen

_CLONE_NEWIPC, _IPC_PRIVATE, _IPC_CREAT = 0x08000000, 0, 0o1000


def test_the_runs_folder_cannot_be_listed_until_reopened(tmp_path: Path) -> None:
    runs = hidden_runs_dir(str(tmp_path))
    assert stat.S_IMODE(os.stat(runs).st_mode) == 0o311
    reopen(runs)
    assert stat.S_IMODE(os.stat(runs).st_mode) == 0o700


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.exists("/proc/sysvipc/shm"),
                    reason="SysV IPC as Linux shows it")
def test_sysv_objects_of_a_run_are_removed() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - measured in the child only when it reports back
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWIPC) != 0:  # not root: no namespace of our own to clean
            os.write(write, b"skip")
            os._exit(0)
        libc.shmget(_IPC_PRIVATE, 4096, _IPC_CREAT | 0o600)
        libc.msgget(_IPC_PRIVATE, _IPC_CREAT | 0o600)
        removed = remove_sysv_ipc()
        left = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
        os.write(write, f"{removed} {len(left)}".encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        answer = handle.read().decode()
    os.waitpid(pid, 0)
    if answer == "skip":
        pytest.skip("no IPC namespace without root")
    assert answer == "2 0"
