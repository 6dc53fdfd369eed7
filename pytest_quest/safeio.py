"""Reading and hashing files a confined run could have replaced, without trusting them.

The parent that judges a run is unconfined. Anything beneath the sandbox copy
is run-controlled: a test can swap a file for a symlink to ``/proc/self/environ``
or ``/root/.ssh/id_rsa`` (the parent would read the caller's secrets), for a
FIFO (the parent would block for ever), for ``/dev/zero`` or a huge file (the
parent would exhaust the host's memory). Every read here therefore

* opens with ``O_NOFOLLOW | O_NONBLOCK`` (a symlink fails, a FIFO does not block),
* checks ``fstat`` says a regular file (FIFOs, devices, sockets, folders refused),
* reads at most a given number of bytes.

Files the parent writes for a run are created with ``O_CREAT | O_EXCL |
O_NOFOLLOW``: nothing planted beforehand is ever opened for writing.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

__all__ = ["UnsafeFileError", "create_new", "hash_regular", "read_regular"]

_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20


class UnsafeFileError(OSError):
    """The path is not a plain regular file (a symlink, FIFO, device, socket or folder)."""


def _open_regular(path: Path | str) -> tuple[int, os.stat_result]:
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if os.path.islink(path):  # ELOOP from O_NOFOLLOW (EMLINK on some BSDs)
            raise UnsafeFileError(exc.errno, f"{path} is a symlink") from exc
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeFileError(f"{path} is not a regular file")
    return fd, info


def read_regular(path: Path | str, limit: int, tail: bool = False) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the regular file ``path`` and whether that was all of it.

    ``tail`` reads the last ``limit`` bytes instead of the first. Raises
    :class:`UnsafeFileError` for anything but a regular file reached without a
    symlink, and :class:`OSError` when it cannot be opened at all.
    """
    fd, info = _open_regular(path)
    try:
        if tail and info.st_size > limit:
            os.lseek(fd, info.st_size - limit, os.SEEK_SET)
        chunks: list[bytes] = []
        left = limit + 1  # one byte more tells whether the file held more
        while left > 0:
            chunk = os.read(fd, min(left, _CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    complete = len(data) <= limit and not (tail and info.st_size > limit)
    return data[:limit], complete


def hash_regular(path: Path | str, limit: int) -> str | None:
    """``path``'s sha256, or None when it is missing or anything but a regular file.

    ``lstat`` first: a symlink, FIFO or device is never opened. A file larger
    than ``limit`` bytes is not read either (None: changed, whatever it holds).
    """
    try:
        before = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(before.st_mode) or before.st_size > limit:
        return None
    try:
        fd, info = _open_regular(path)
    except OSError:
        return None
    digest = hashlib.sha256()
    try:
        if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            return None  # swapped between lstat and open
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, _CHUNK))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if left <= 0 else digest.hexdigest()


def create_new(path: Path | str, data: bytes = b"") -> int:
    """Create ``path`` (it must not exist, not even as a dangling symlink), mode 0600.

    Writes ``data`` and returns the open descriptor (write-only) for more.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                 | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        os.close(fd)
        raise
    return fd
