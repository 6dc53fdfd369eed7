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

Trees a run made are walked and removed without recursion and without whole
paths (:func:`walk_files`, :func:`remove_tree`): a test can nest folders
thousands deep, past the interpreter's recursion limit and ``PATH_MAX``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from pytest_quest.errors import UsageError

__all__ = ["PROJECT_DEPTH", "TreeTooDeep", "UnsafeFileError", "create_new", "hash_regular",
           "read_regular", "remove_tree", "walk", "walk_files"]

_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20
#: How deep the project's own folders may nest before a walk refuses (:func:`walk`).
PROJECT_DEPTH = 100
_DIR_FLAGS = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0) | getattr(
    os, "O_NOFOLLOW", 0)


class UnsafeFileError(OSError):
    """The path is not a plain regular file (a symlink, FIFO, device, socket or folder)."""


class TreeTooDeep(UsageError):
    """A folder of the project nests deeper than we walk (a message, not a ``RecursionError``)."""


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


def _chunks(fd: int, limit: int) -> Iterator[bytes]:
    """What ``fd`` holds from where it stands, in chunks, up to ``limit`` bytes and one more.

    The one byte more tells the caller the file held more than ``limit``; a
    file that grows while it is read is never read past that.
    """
    left = limit + 1
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            return
        yield chunk
        left -= len(chunk)


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
        data = b"".join(_chunks(fd, limit))
    finally:
        os.close(fd)
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
        size = 0
        for chunk in _chunks(fd, limit):
            digest.update(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if size > limit else digest.hexdigest()


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


def walk(top: Path | str, max_depth: int) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` without recursion: top-down, links not followed, unreadable folders skipped.

    Python 3.11's ``os.walk`` recurses, so a folder nested 1500 deep in the
    working tree (anyone with write access can make one) crashed every scan
    and submit. The caller prunes ``dirnames`` in place as with ``os.walk``;
    a folder left to walk past ``max_depth`` raises :class:`TreeTooDeep`.
    """
    stack = [(os.fspath(top), 0)]
    while stack:
        path, depth = stack.pop()
        dirnames: list[str] = []
        filenames: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirnames if is_dir else filenames).append(entry.name)
                    if is_dir and entry.is_symlink():
                        links.add(entry.name)
        except OSError:
            continue
        yield path, dirnames, filenames
        below = [d for d in dirnames if d not in links]
        if below and depth + 1 > max_depth:
            raise TreeTooDeep(
                f"{os.path.join(path, below[0])} nests folders more than {max_depth} deep: "
                "remove it, or list its top folder in [tool.pytest-quest] exclude")
        stack.extend((os.path.join(path, d), depth + 1) for d in reversed(below))


def walk_files(root: Path | str, max_depth: int) -> tuple[list[str], str | None]:
    """Everything but folders beneath ``root`` (posix, relative), and the first folder too deep.

    Files, symlinks (never followed), FIFOs and the like are listed alike;
    the walk is iterative and never enters a symlink. A folder nested deeper than
    ``max_depth`` is not entered: its relative path is returned instead, for
    the caller to judge (a run left a tree too deep to check). A folder that
    cannot be listed is skipped.
    """
    files: list[str] = []
    too_deep: str | None = None
    stack = [("", 0)]
    while stack:
        rel, depth = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as entries:
                listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError:
            continue
        for name, is_dir in listed:
            child = f"{rel}/{name}" if rel else name
            if not is_dir:
                files.append(child)
            elif depth + 1 >= max_depth:
                too_deep = too_deep or child
            else:
                stack.append((child, depth + 1))
    return sorted(files), too_deep


def remove_tree(path: Path | str) -> list[str]:
    """Remove ``path`` and everything beneath it; what could not be removed, never an exception.

    Walks down with one open folder at a time (``openat`` of each child and
    of ``..`` on the way up), so neither depth nor path length matters; never
    follows a symlink; gives folders a run made unreadable (``chmod 000``)
    back their permissions first.
    """
    failed: list[str] = []
    try:
        fd = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        return failed
    except OSError as exc:
        if not os.path.isdir(path) or os.path.islink(path):
            try:
                os.unlink(path)
            except OSError as again:
                failed.append(f"{path}: {again.strerror}")
            return failed
        failed.append(f"{path}: {exc.strerror}")
        return failed
    # Each entry: a folder's name in its parent, and its subfolders still to remove.
    stack: list[tuple[str, list[str]]] = [("", _clear(fd, str(path), failed))]
    try:
        while stack:
            _name, pending = stack[-1]
            if pending:
                child = pending.pop()
                inner = _enter(fd, child)
                if inner is None:
                    failed.append(f"{path}: cannot open {child!r} at depth {len(stack)}")
                    continue
                os.close(fd)
                fd = inner
                stack.append((child, _clear(fd, child, failed)))
                continue
            name, _ = stack.pop()
            if not stack:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError as exc:
                failed.append(f"{path}: {name!r} at depth {len(stack)}: {exc.strerror}")
    except OSError as exc:  # ``..`` gone: the tree moved under us; what is left stays
        failed.append(f"{path}: {exc.strerror}")
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError as exc:
        failed.append(f"{path}: {exc.strerror}")
    return failed


def _enter(fd: int, name: str) -> int | None:
    """Open the subfolder ``name`` of ``fd`` (made readable if it was not), or None."""
    for attempt in (0, 1):
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=fd)
        except PermissionError:
            if attempt:
                return None
            try:
                os.chmod(name, 0o700, dir_fd=fd)
            except OSError:
                return None
        except OSError:
            return None
    return None


def _clear(fd: int, where: str, failed: list[str]) -> list[str]:
    """Unlink everything in the open folder ``fd`` but its subfolders; return their names."""
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)
    folders: list[str] = []
    try:
        with os.scandir(fd) as entries:
            listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    except OSError as exc:
        failed.append(f"{where}: {exc.strerror}")
        return folders
    for name, is_dir in listed:
        if is_dir:
            folders.append(name)
            continue
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            failed.append(f"{where}/{name}: {exc.strerror}")
    return folders
