"""The confining system calls through ctypes: the fallback where ``_kernel`` was not built.

Same functions, arguments and errors as :mod:`pytest_quest._kernel` (``_kernel.c``), so
:mod:`pytest_quest.syscalls` can use either. Only imported when the extension is missing:
with ctypes in a run's memory, a test can read any address with no audit event
(docs/security.md, "Residual risks"), which is why the extension exists.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
from typing import Any

__all__ = ["capset", "is_sealed", "keyctl_join_session_keyring", "landlock_add_rule",
           "landlock_create_ruleset", "landlock_restrict_self", "mount", "mount_setattr",
           "pivot_root", "prctl", "seal", "seccomp_filter", "setns", "umount2", "unshare"]

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on every arch
_SYS_MOUNT_SETATTR = 442
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "ppc64le": 280, "s390x": 280}
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91, "riscv64": 91, "ppc64le": 184, "s390x": 185}
#: The prctl options confinement uses, as ``_kernel`` allows them.
PRCTL_OPTIONS = frozenset({1, 4, 24, 36, 38, 47})
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_SEALED: list[bool] = []


@functools.cache
def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _checked(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), what)
    return int(result)


def _open() -> None:
    if _SEALED:
        raise PermissionError("pytest_quest.ctypescalls is sealed: this process is confined")


def _number(table: dict[str, int], what: str) -> int:
    number = table.get(platform.machine())
    if number is None:
        raise OSError(errno.ENOSYS, f"unknown system call number on {platform.machine()}", what)
    return number


def _path(value: str | bytes | os.PathLike[str] | os.PathLike[bytes] | None) -> bytes | None:
    return None if value is None else os.fsencode(value)


def seal() -> None:
    """Refuse every later call in this process (and its children)."""
    _SEALED.append(True)


def is_sealed() -> bool:
    return bool(_SEALED)


def landlock_create_ruleset(attr: bytes | None, flags: int) -> int:
    _open()
    buf = None if attr is None else ctypes.create_string_buffer(attr, len(attr))
    return _checked(_libc().syscall(ctypes.c_long(_SYS_CREATE_RULESET), buf,
                                    ctypes.c_size_t(0 if attr is None else len(attr)),
                                    ctypes.c_uint32(flags)), "landlock_create_ruleset")


def landlock_add_rule(ruleset_fd: int, rule_type: int, attr: bytes) -> None:
    _open()
    if (rule_type, len(attr)) not in ((1, 12), (2, 16)):
        raise ValueError("landlock_add_rule: a rule of another size or type")
    _checked(_libc().syscall(ctypes.c_long(_SYS_ADD_RULE), ctypes.c_int(ruleset_fd),
                             ctypes.c_int(rule_type), ctypes.create_string_buffer(attr, len(attr)),
                             ctypes.c_uint32(0)), "landlock_add_rule")


def landlock_restrict_self(ruleset_fd: int, flags: int) -> None:
    _open()
    _checked(_libc().syscall(ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(ruleset_fd),
                             ctypes.c_uint32(flags)), "landlock_restrict_self")


def prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    _open()
    if option not in PRCTL_OPTIONS:
        raise ValueError(f"prctl: option {option} is not one confinement uses")
    return _checked(_libc().prctl(ctypes.c_int(option), ctypes.c_ulong(arg2),
                                  ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0)),
                    "prctl")


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def seccomp_filter(program: bytes) -> None:
    _open()
    size = ctypes.sizeof(_SockFilter)
    count = len(program) // size
    if not 0 < count <= 4096 or len(program) % size:
        raise ValueError("seccomp_filter: not a whole filter program")
    filters = (_SockFilter * count).from_buffer_copy(program)
    fprog = _SockFprog(count, ctypes.cast(filters, ctypes.POINTER(_SockFilter)))
    _checked(_libc().prctl(ctypes.c_int(_PR_SET_SECCOMP), ctypes.c_ulong(_SECCOMP_MODE_FILTER),
                           ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0)),
             "prctl(PR_SET_SECCOMP)")


def unshare(flags: int) -> None:
    _open()
    _checked(_libc().unshare(ctypes.c_int(flags)), "unshare")


def setns(fd: int, nstype: int) -> None:
    _open()
    _checked(_libc().setns(ctypes.c_int(fd), ctypes.c_int(nstype)), "setns")


def mount(source: str | bytes | None, target: str | bytes, fstype: str | bytes | None,
          flags: int, data: str | bytes | None = None) -> None:
    _open()
    _checked(_libc().mount(_path(source), _path(target), _path(fstype), ctypes.c_ulong(flags),
                           _path(data)), os.fsdecode(target))


def mount_setattr(dirfd: int, path: str | bytes, flags: int, attr: bytes) -> None:
    _open()
    if len(attr) != 32:
        raise ValueError("mount_setattr: mount_attr is 32 bytes")
    _checked(_libc().syscall(ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(dirfd),
                             _path(path), ctypes.c_uint(flags),
                             ctypes.create_string_buffer(attr, len(attr)),
                             ctypes.c_size_t(len(attr))), os.fsdecode(path))


def pivot_root(new_root: str | bytes, put_old: str | bytes) -> None:
    _open()
    _checked(_libc().syscall(ctypes.c_long(_number(_SYS_PIVOT_ROOT, "pivot_root")),
                             _path(new_root), _path(put_old)), "pivot_root")


def umount2(target: str | bytes, flags: int) -> None:
    _open()
    _checked(_libc().umount2(_path(target), ctypes.c_int(flags)), "umount2")


def capset(header: bytes, data: bytes) -> None:
    _open()
    if len(header) != 8 or len(data) != 24:
        raise ValueError("capset: an 8-byte header and 24 bytes of sets")
    _checked(_libc().syscall(ctypes.c_long(_number(_SYS_CAPSET, "capset")),
                             ctypes.create_string_buffer(header, 8),
                             ctypes.create_string_buffer(data, 24)), "capset")


def keyctl_join_session_keyring() -> None:
    _open()
    what = "keyctl(JOIN_SESSION_KEYRING)"
    _checked(_libc().syscall(ctypes.c_long(_number(_SYS_KEYCTL, what)), ctypes.c_int(1), None,
                             ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)), what)
