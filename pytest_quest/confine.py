"""Kernel confinement for every process that runs submitted code (Linux).

The audit hook in the harness is Python-level: ctypes, ``dir_fd`` writes,
``_posixsubprocess`` and ``.pth`` files walk around it. This module puts the
wall in the kernel, where nothing inside can undo it:

* **namespaces** (user, mount, PID, network, IPC): the run is PID 1 of its own
  PID namespace, so the caller's processes (``/proc/<ppid>/environ``,
  ``/proc/<ppid>/cwd``) do not exist for it and every leftover dies with it;
  its root is a fresh tmpfs holding only bind mounts of what a Python test
  run needs (the interpreter's prefixes, ``sys.path``, ``/usr``, ``/lib*``,
  ``/etc``, a minimal ``/dev``, its own ``/proc``, the sandbox copy), so the
  real project, the ledger, the caller's home and every Unix socket outside
  are simply absent; the only network device is loopback.
* **Landlock** (ABI >= 1): writes only beneath the sandbox copy, its private
  temp folders and the null devices; reads only beneath the same allowlist;
  with ABI >= 6 no signals or abstract Unix sockets beyond the run.
  ``no_new_privs`` is set and the capability bounding set emptied first.

Both are inherited by every child and cannot be lifted from inside. Either one
alone is used when the other is missing; neither (macOS, old kernels) leaves
the audit hook as the only wall, and every verdict says which one judged it
(:attr:`Isolation.name`). ``docs/security.md`` explains the choice.

``python -m pytest_quest.confine POLICY -- ARGV...`` is the launcher that
:func:`wrap` builds; :func:`restrict_writes` adds one more Landlock layer to
the calling process (each forked run narrows its writes to its own temp dir),
and :func:`hide_files` another (no run, nor any child of it, reads the target's
file: only the run's own memory has the code it tests).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib.machinery
import json
import os
import platform
import re
import signal
import socket
import stat
import struct
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NoReturn

from pytest_quest import cgroups
from pytest_quest.syscalls import calls

__all__ = [
    "COUNTERS",
    "ENV_CONFINED",
    "ENV_REQUEST",
    "INTERNALS",
    "RUN_TMP",
    "Isolation",
    "Policy",
    "apply_deferred",
    "copy_counters",
    "detect",
    "enter",
    "enter_requested",
    "enter_run",
    "freeze_counters",
    "fresh_session_keyring",
    "hide_files",
    "internals_files",
    "into_run_namespaces",
    "landlock_abi",
    "main",
    "new_pid_namespace_for_next_child",
    "own_pid_namespace_again",
    "read_status",
    "read_write_points",
    "request",
    "restrict_writes",
    "run_isolation",
    "run_module",
    "run_namespaces",
    "store_counters",
    "system_paths",
    "wrap",
]

#: Set by the launcher for the program it starts (popped by the harness): the isolation in force.
ENV_CONFINED = "PYTEST_QUEST_CONFINED"
#: Set by the sandbox for the harness: confine yourself first thing (see :func:`enter_requested`).
ENV_REQUEST = "PYTEST_QUEST_CONFINE"
#: Exit code of a process that could not be confined: it never runs half-confined.
SETUP_FAILED = 125

# --------------------------------------------------------------------- Landlock
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_SET_PDEATHSIG = 38, 24, 1
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE = 1 << 4, 1 << 5
_MAKE = sum(1 << b for b in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_READ = _READ_FILE | _READ_DIR | _EXECUTE

#: Readable to a root caller though no test needs them: hidden behind empty mounts.
_MASKED = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
           "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private")
#: CPython's own test and subinterpreter modules: native functions that hand out what every
#: audit event guards, with none raised (``_testcapi.function_get_code(f)`` is the code a
#: function runs: red team 51 reached it through ``test.support``, which imports it), memory
#: views of any shape (``_testbuffer``), an interpreter no audit hook of the run watches.
INTERNALS = ("_testcapi", "_testinternalcapi", "_testlimitedcapi", "_testbuffer",
             "_testmultiphase", "_testsinglephase", "_testimportmultiple", "_testclinic",
             "_testclinic_limited", "_testexternalinspection", "_xxtestfuzz", "_ctypes_test",
             "_xxsubinterpreters", "_xxinterpchannels", "_xxinterpqueues", "_interpreters",
             "_interpchannels", "_interpqueues")


def internals_files() -> tuple[str, ...]:
    """The files of :data:`INTERNALS` this interpreter has (found, not imported). Masked by
    empty mounts in a confined root (:func:`_build_root`), or hidden by a run's Landlock layer
    (:func:`hide_files`): no process loads them, and ``import`` fails as for a module that is
    not there (``test.support`` imports without them)."""
    found: set[str] = set()
    for name in INTERNALS:
        with contextlib.suppress(ImportError, ValueError):
            spec = importlib.machinery.PathFinder.find_spec(name)
            if spec is not None and spec.origin and os.path.isfile(spec.origin):
                found.add(os.path.realpath(spec.origin))
    return tuple(sorted(found))


#: Where each run's temp dir and home is, in its own mount namespace: a short path, so the
#: paths a test makes in pytest's ``tmp_path`` are about as long as under ``/tmp`` (an AF_UNIX
#: socket's path may not exceed 107 bytes; beneath the sandbox's scratch folder a socket in
#: ``tmp_path`` of a test with a long name did not fit, and an honest test failed).
RUN_TMP = "/quest-tmp"
#: Devices a confined run may write; anything written there goes nowhere. Not ``/dev/zero``:
#: a shared mapping of it opened for writing is a shmem file, numbered from the kernel's
#: per-CPU counters (red team 23 kept a register there through ctypes); opened read-only,
#: the kernel maps it private.
NULL_DEVICES = ("/dev/null", "/dev/full")
_DEVICES = (*NULL_DEVICES, "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty")


def _prctl(option: int, arg: int = 0, arg3: int = 0) -> int:
    """``prctl(option, arg, arg3)``; raises :class:`OSError` when the kernel refuses."""
    return calls.prctl(option, arg, arg3)


@functools.cache
def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers, 0 when it offers none (or not Linux)."""
    if sys.platform != "linux":
        return 0
    try:
        return calls.landlock_create_ruleset(None, _CREATE_RULESET_VERSION)
    except OSError:  # no Landlock in this kernel (ENOSYS) or switched off (EOPNOTSUPP)
        return 0


def _fs_rights(abi: int) -> int:
    rights = _EXECUTE | _WRITE_FILE | _READ_FILE | _READ_DIR | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def _write_rights(abi: int) -> int:
    return _fs_rights(abi) & ~(_EXECUTE | _READ_FILE | _READ_DIR | _IOCTL_DEV)


def _landlock(abi: int, handled: int, rules: Iterable[tuple[str, int]], scoped: int = 0) -> None:
    """Create a ruleset handling ``handled``, allow ``rules``, and enforce it on this thread."""
    attr = struct.pack("=QQQ", handled, 0, scoped if abi >= 6 else 0)
    ruleset = calls.landlock_create_ruleset(attr[:24 if abi >= 6 else 16 if abi >= 4 else 8], 0)
    try:
        for path, allowed in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # nothing there: nothing to allow
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= _FILE_RIGHTS
                if allowed & handled:
                    calls.landlock_add_rule(ruleset, _RULE_PATH_BENEATH,
                                            struct.pack("=Qi", allowed & handled, fd))
            finally:
                os.close(fd)
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
        calls.landlock_restrict_self(ruleset, 0)
    finally:
        os.close(ruleset)


#: Everything the layers of :func:`enter` let this process read, once it is confined here:
#: what a :func:`hide_files` layer grants again, all but the hidden files. Empty until then
#: (and when the launcher confined the process before ``exec``: nothing to re-grant from).
_GRANTED: list[str] = []


def hide_files(paths: Iterable[str]) -> bool:
    """Add one Landlock layer: from now on nothing here, nor any child, reads or runs ``paths``.

    Why: a forked run installs a mutant in its own memory, while the file on
    disk stays the shipped code; a child Python the test starts imports that
    file and answers as the shipped function would, an oracle that kills every
    mutant (red team 9, finding 02). Landlock only grants, so the layer grants
    reading and executing beneath everything :func:`enter` granted, except
    that a folder above a hidden file is replaced by its entries, level by
    level down to the file. Returns False where that cannot be done (no
    Landlock, or not confined by :func:`enter` in this process); raises
    :class:`OSError` when Landlock refused the layer.
    """
    abi = landlock_abi()
    hidden = {os.path.realpath(p) for p in paths}
    if abi < 1 or not _GRANTED:
        return False
    rights = _READ_FILE | _EXECUTE
    _landlock(abi, rights, [(p, rights) for p in _all_but(_GRANTED, hidden)])
    return True


def _all_but(roots: Iterable[str], hidden: set[str]) -> list[str]:
    """Paths that cover everything beneath ``roots`` except the ``hidden`` files."""
    out: list[str] = []
    for root in dict.fromkeys(os.path.realpath(r) for r in roots):
        if not _above(root, hidden):
            out.append(root)
        elif root not in hidden:  # a folder above a hidden file
            out.extend(_entries_but(root, hidden))
    return out


def _above(path: str, hidden: set[str]) -> bool:
    return any(_beneath(h, path) for h in hidden)


def _entries_but(folder: str, hidden: set[str]) -> list[str]:
    """``folder``'s entries (by real path: a rule follows symlinks), hidden files left out.

    Every entry is checked against *all* hidden files: a link leads anywhere
    (``/proc/<pid>/cwd`` is the project folder, above the target's file).
    ``folder`` is a real path: an entry that is no link is its own real path,
    and only links are resolved (resolving every entry of ``/proc`` cost a
    forked run 5 ms).
    """
    try:
        with os.scandir(folder) as listing:
            entries = sorted((entry.name, _link(entry)) for entry in listing)
    except OSError:
        return []  # cannot list it: nothing beneath it is granted (narrower, never wider)
    out: list[str] = []
    for name, link in entries:
        path = os.path.join(folder, name)
        real = os.path.realpath(path) if link else path
        if not _above(real, hidden):
            out.append(real)
        elif real not in hidden and real == path:
            out.extend(_entries_but(real, hidden))
        # else: a hidden file, or a link to a folder above one (reached by its own path)
    return out


def _link(entry: os.DirEntry[str]) -> bool:
    """Whether a folder's entry is a link, or could be (it vanished while it was looked at)."""
    try:
        return entry.is_symlink()
    except OSError:
        return True


def restrict_writes(paths: Sequence[str]) -> bool:
    """Add one Landlock layer to the calling thread: from now on it writes only beneath ``paths``.

    Also allowed: the null devices. Layers only ever narrow what earlier ones
    allow, so a forked run can shrink its writes to its own fresh temp dir.
    From ABI 6 the layer is also scoped: no signal to, and no abstract unix
    socket of, a process outside it (a forked run cannot interrupt the judge
    that forked it, red team 2 finding 08, nor talk to a sibling run).
    Call it before starting threads (Landlock binds the calling thread and its
    future children). Returns False when the kernel has no Landlock; raises
    :class:`OSError` when Landlock exists but refused the layer.
    """
    abi = landlock_abi()
    if abi < 1:
        return False
    handled = _write_rights(abi)
    rules = [(os.path.realpath(p), handled) for p in paths]
    rules += [(device, _WRITE_FILE | _TRUNCATE) for device in NULL_DEVICES]
    _landlock(abi, handled, rules, scoped=_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL)
    return True


# ------------------------------------------------------------------ namespaces
_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
_CLONE_NEWPID, _CLONE_NEWNET = 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_MNT_DETACH, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY, _AT_FDCWD = 2, 0x8000, 1, -100


def _unshare(flags: int) -> None:
    calls.unshare(flags)


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    calls.mount(source, target, fstype, flags, data)


def _read_only(target: str, recursive: bool = True) -> None:
    """Make ``target`` (and every mount beneath it) read-only, keeping locked flags as they are."""
    calls.mount_setattr(_AT_FDCWD, target, _AT_RECURSIVE if recursive else 0,
                        struct.pack("=QQQQ", _MOUNT_ATTR_RDONLY, 0, 0, 0))


def _write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _enter_namespaces() -> None:
    """New user, PID, network and IPC namespaces for this process's children; same uid/gid;
    no user namespace below it.

    Why the last: in a user namespace of its own, a run holds every capability again over
    namespaces it makes there: a network namespace of its own has the ephemeral ports every
    namespace starts with, and the run's connections would read and move the machine's table
    of port offsets like before (red team 20, :func:`_ephemeral_ports_of_its_own`)."""
    uid, gid = os.geteuid(), os.getegid()
    _unshare(_CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWIPC)
    try:
        _map_ids(uid, gid)
        _write_file("/proc/sys/user/max_user_namespaces", "0")
    except OSError as exc:  # in a new user namespace, unmapped: no way back, no way on
        raise _HalfEntered(f"setting up uid {uid} and gid {gid}: {exc}") from exc


class _HalfEntered(Exception):
    """The namespaces exist but could not be set up: the process must not go on."""


def _map_ids(uid: int, gid: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        _write_file("/proc/self/setgroups", "deny")
    _write_file("/proc/self/uid_map", f"{uid} {uid} 1")
    _write_file("/proc/self/gid_map", f"{gid} {gid} 1")


def _loopback_up() -> None:
    """The new network namespace has only ``lo``, and it starts down."""
    flags = 0x1 | 0x8 | 0x40  # IFF_UP | IFF_LOOPBACK | IFF_RUNNING
    import fcntl  # imported here: pytest_quest.confine must import on Windows too

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock.fileno(), 0x8914, struct.pack("16sh22x", b"lo", flags))  # SIOCSIFFLAGS


#: The ephemeral ports every network namespace starts with (``ip_local_port_range``); a run's
#: range is a part of it, at least :data:`_MIN_PORT_WIDTH` wide.
_PORT_WINDOW = (32768, 60999)
_MIN_PORT_WIDTH = 16384


def _ephemeral_ports_of_its_own() -> None:
    """Give the run's network namespace a port range of a width drawn for this run alone.

    Why: a connection made without a chosen port takes ``low + (perturb + h) % width``, where
    ``perturb`` is one of 65,536 counters of the whole machine that each such connection moves
    on (no namespace has its own) and ``h`` a secret hash of the addresses. With the width
    every namespace starts with, a run read a counter back in its port and moved it by
    connecting, so the measured run left its answers there for the runs after it (red team
    20). Under a width of its own (one of 5,924 even ones), the port a run sees is ``h``'s
    unknown residue shifted by the counter: a run can tell only its own moves from it.
    The ports stay in the usual window, and a run still has 16,384 or more.
    """
    first, last = _PORT_WINDOW
    span = last - first + 1
    widths = (span - _MIN_PORT_WIDTH) // 2 + 1
    draw = int.from_bytes(os.urandom(8), "big")
    width = _MIN_PORT_WIDTH + 2 * (draw % widths)
    low = first + (draw // widths) % (span - width + 1)
    _write_file("/proc/sys/net/ipv4/ip_local_port_range", f"{low} {low + width - 1}")


def _minimal(paths: Iterable[str]) -> list[str]:
    """Existing real paths, without those already beneath another one."""
    out: list[str] = []
    real = {os.path.realpath(p) for p in paths if p and os.path.exists(p)} - {"/"}  # never all
    for path in sorted(real):
        if not any(path == kept or path.startswith(kept.rstrip("/") + "/") for kept in out):
            out.append(path)
    return out


def _links(paths: Iterable[str]) -> list[tuple[str, str]]:
    """Symlinks met on the way to ``paths`` (``/lib64 -> usr/lib64``), recreated in the new root."""
    found: dict[str, str] = {}
    for path in paths:
        current = ""
        for part in os.path.abspath(path).strip("/").split("/"):
            current = f"{current}/{part}"
            if os.path.islink(current):
                found.setdefault(current, os.readlink(current))
                current = os.path.realpath(current)
    return sorted(found.items())


def _stage(kept: Sequence[str]) -> str:
    """An existing folder to build the new root on (only this mount namespace sees it).

    Preferably none of ``kept`` holds it: a recursive bind of a folder holding
    the stage would carry the stage itself along.
    """
    candidates = [d for d in ("/tmp", "/mnt", "/var/tmp", "/media", "/srv", "/run")
                  if os.path.isdir(d) and not os.path.islink(d)]
    for candidate in candidates:
        if not any(_beneath(candidate, path) for path in kept):
            return candidate
    return candidates[0] if candidates else "/tmp"


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _build_root(readable: Sequence[str], writable: Sequence[str], scratch: Sequence[str] = (),
                scratch_mb: int = 1024) -> None:
    """Mount a new root holding only the allowed paths, then pivot into it.

    ``scratch`` folders are not bound: each is a fresh tmpfs of ``scratch_mb``
    MiB, so a run cannot fill the host's disk through them and what it left
    there is gone with its mount namespace.
    """
    _unshare(_CLONE_NEWNS)
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    read_only, read_write = _minimal(readable), _minimal(writable)
    stage = _stage([*read_only, *read_write])
    handles = {path: os.open(path, os.O_PATH | os.O_CLOEXEC)
               for path in (*read_only, *read_write)}
    devices = {d: os.open(d, os.O_PATH | os.O_CLOEXEC) for d in _DEVICES if os.path.exists(d)}
    _mount("tmpfs", stage, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
    # Read-only binds first; writable ones go on top (a sandbox may lie inside a readable folder).
    for path, writable_bind in [*((p, False) for p in read_only), *((p, True) for p in read_write)]:
        target = stage + path
        if not os.path.lexists(target):
            if stat.S_ISDIR(os.fstat(handles[path]).st_mode):
                os.makedirs(target)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                open(target, "wb").close()  # an empty mount point
        # A folder holding the stage is bound without what is mounted beneath it.
        recursive = 0 if _beneath(stage, path) else _MS_REC
        _mount(f"/proc/self/fd/{handles[path]}", target, None, _MS_BIND | recursive)
        if not writable_bind:
            _read_only(target)
    for path in scratch:
        target = stage + os.path.abspath(path)
        os.makedirs(target, exist_ok=True)
        # nr_inodes=0: no inode count for statfs to report. A run's output file lies here,
        # among the run dirs the zygote makes ahead and removes as it reaps: the count of
        # inodes in use (``os.fstatvfs`` of that descriptor) told each run how many runs
        # had ended before it (red team 65).
        _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV,
               f"mode=0700,size={max(int(scratch_mb), 1)}m,nr_inodes=0")
    for link, destination in _links([*readable, *writable]):
        if not os.path.lexists(stage + link):
            os.makedirs(os.path.dirname(stage + link), exist_ok=True)
            os.symlink(destination, stage + link)
    dev = stage + "/dev"
    os.makedirs(dev, exist_ok=True)
    _mount("tmpfs", dev, "tmpfs", _MS_NOSUID, "mode=0755")
    for device, fd in devices.items():
        open(stage + device, "wb").close()  # an empty mount point
        _mount(f"/proc/self/fd/{fd}", stage + device, None, _MS_BIND)
        # A read-only bind still writes the device; it refuses its times and mode, which are
        # the host's device's own (red team 64 changed the host's /dev/null through a bind).
        _read_only(stage + device, recursive=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")
    os.makedirs(dev + "/shm")
    _mount("tmpfs", dev + "/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=1777,size=256m")
    os.makedirs(dev + "/pts")
    with contextlib.suppress(OSError):  # pseudo-terminals are a nicety (pty.openpty)
        _mount("devpts", dev + "/pts", "devpts", _MS_NOSUID | _MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=0620")
        os.symlink("pts/ptmx", dev + "/ptmx")
    # inside /etc, and beneath the interpreter's prefix, both bound whole
    for secret in (*_MASKED, *internals_files()):
        target = stage + secret
        if os.path.isdir(target) and not os.path.islink(target):
            _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_RDONLY, "mode=0755")
        elif os.path.isfile(target) and not os.path.islink(target):
            _mount(f"/proc/self/fd/{devices['/dev/null']}", target, None, _MS_BIND)
            _read_only(target, recursive=False)  # the host's /dev/null: its times and mode too
    os.makedirs(stage + "/proc", exist_ok=True)
    _mount("proc", stage + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    os.makedirs(stage + "/tmp", exist_ok=True)
    os.makedirs(stage + RUN_TMP, exist_ok=True)  # a mount point for each run's temp dir
    for fd in (*handles.values(), *devices.values()):
        os.close(fd)
    os.chdir(stage)
    calls.pivot_root(".", ".")
    calls.umount2(".", _MNT_DETACH)  # the old root, stacked beneath the new one
    os.chdir("/")
    _read_only("/", recursive=False)  # the skeleton; binds keep their own modes


def _drop_capabilities(keep: Sequence[int] = ()) -> None:
    """Hold no capability, now or after any exec: every set emptied (bounding, ambient, the rest).

    A root caller confined by Landlock alone would otherwise keep CAP_SYS_MODULE
    and friends in the initial namespace; Landlock does not stand in their way.
    ``keep``: capabilities that stay effective and permitted (never after an exec).
    """
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        with contextlib.suppress(OSError):  # a number this kernel does not know
            _prctl(_PR_CAPBSET_DROP, cap)
    with contextlib.suppress(OSError):  # a kernel without ambient capabilities
        _prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    header = struct.pack("Ii", _CAPABILITY_VERSION_3, 0)
    mask = sum(1 << cap for cap in keep)
    low, high = mask & 0xFFFFFFFF, mask >> 32
    # two {effective, permitted, inheritable} words: ``keep`` only, never inheritable
    sets = struct.pack("6I", low, low, 0, high, high, 0)
    calls.capset(header, sets)


_CAPABILITY_VERSION_3 = 0x20080522


# ------------------------------------------------------------ keyrings, limits


def fresh_session_keyring() -> bool:
    """Join a new, empty, anonymous session keyring: the caller's keys are out of reach.

    Keyrings are not namespaced by mount or PID namespaces: without this, a
    confined run reads and writes the caller's session keyring (``@s``) with
    ``keyctl``. Returns False where the kernel has no keyrings (ENOSYS).
    """
    if sys.platform != "linux":
        return False
    try:
        calls.keyctl_join_session_keyring()
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EOPNOTSUPP):
            return False
        raise
    return True


def _apply_limits(policy: Policy) -> str:
    """Join the run's cgroups, or bound its process count with RLIMIT_NPROC; name what applied."""
    if policy.cgroups:
        for folder in policy.cgroups:
            cgroups.join(folder)
        return "cgroup"
    if policy.pids_max <= 0:
        return ""
    import resource

    uid = os.getuid()
    running = 0
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                running += 1
    bound = running + policy.pids_max
    _, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (bound, bound))
    # The kernel exempts uid 0 of the initial user namespace: say so rather than claim a bound.
    return "rlimit" if uid != 0 else ""


def run_isolation(name: str, limits: str) -> str:
    """The name a verdict carries: the kernel isolation plus the process limits that applied."""
    return f"{name}+{limits}" if limits else name


def _preload(paths: Sequence[str]) -> None:
    """Hand over files the run must not see as memfds: ``sys.argv`` names ``/proc/self/fd/N``."""
    if not paths:
        return
    from pytest_quest import safeio

    for path in paths:
        data, complete = safeio.read_regular(path, 64 * 1024 * 1024)
        if not complete:
            raise OSError(errno.EFBIG, f"{path}: larger than 64 MiB")
        fd = os.memfd_create("pytest-quest-spec")  # inherited by the fork, not by an exec
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        sys.argv[:] = [f"/proc/self/fd/{fd}" if arg == path else arg for arg in sys.argv]


# ---------------------------------------------------------------------- policy
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


def _prefixes() -> list[str]:
    """The interpreter's own folders (a venv inside the project stays visible through these)."""
    return [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable)),
            os.path.dirname(os.path.abspath(__file__))]  # pytest_quest, even installed editable


#: ``MAPPING: dict[str, str] = {'pkg': '/path/pkg', ...}`` as setuptools writes it, and its strings.
_MAPPING = re.compile(r"^MAPPING\b[^=\n]*=\s*\{(?P<body>[^\n]*)\}\s*$", re.MULTILINE)
_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


def _editable_roots(entries: Iterable[str]) -> list[str]:
    """Folders that setuptools' editable finders (``__editable___*_finder.py``) import from.

    Read with a regular expression, not :mod:`ast`: importing ``ast`` costs
    more than the rest of the confinement on a busy machine.
    """
    import glob

    roots: list[str] = []
    for entry in entries:
        for finder in glob.glob(os.path.join(glob.escape(entry), "__editable___*_finder.py")):
            try:
                with open(finder, encoding="utf-8") as handle:
                    found = _MAPPING.search(handle.read())
            except (OSError, ValueError):
                continue
            if found is not None:
                strings = [a or b for a, b in _STRING.findall(found.group("body"))]
                roots += strings[1::2]  # key, value, key, value
    return roots


def system_paths(hidden: Sequence[str] = ()) -> list[str]:
    """What a Python test run reads: the interpreter, ``sys.path``, system libraries, ``/etc``.

    ``sys.path`` entries and editable-install folders inside ``hidden`` (the
    real project) are left out unless they lie in the interpreter's prefix.
    """
    prefixes = _prefixes()
    entries = [p for p in sys.path if p and os.path.isabs(p)]
    extra = [*entries, *_editable_roots(entries)]
    keep = tuple(os.path.realpath(p).rstrip("/") + "/" for p in prefixes)
    cut = tuple(os.path.realpath(h).rstrip("/") + "/" for h in hidden)
    for path in extra:
        real = os.path.realpath(path) + "/"
        if real.startswith(keep) or not real.startswith(cut):
            prefixes.append(path)
    return [*_SYSTEM, *prefixes]


@dataclass(frozen=True)
class Policy:
    """What one confined run may touch."""

    #: Folders (and files) the run may write; everything beneath them too.
    writable: tuple[str, ...]
    #: Further folders it may read, beyond :func:`system_paths` of the launching interpreter.
    readable: tuple[str, ...] = ()
    #: Folders whose ``sys.path`` entries and editable installs are not made readable.
    hidden: tuple[str, ...] = ()
    #: Writable folders that become fresh in-memory folders (tmpfs) of ``scratch_mb`` each
    #: in the mount namespace: what the run writes there never reaches the disk.
    scratch: tuple[str, ...] = ()
    scratch_mb: int = 1024
    #: Files read before confinement and handed over as ``/proc/self/fd/N`` (memfd) wherever
    #: they appear in ``sys.argv``: the harness reads its spec from a folder the run never sees.
    preload: tuple[str, ...] = ()
    #: Processes at once (cgroup ``pids.max`` or RLIMIT_NPROC above the current count); 0: none.
    pids_max: int = 0
    #: Memory of the whole run in MiB (cgroup only); 0: no bound beyond per-process RLIMIT_AS.
    memory_mb: int = 0
    #: Cgroup folders (made by :func:`pytest_quest.cgroups.process_limits`) the run joins
    #: before anything else.
    cgroups: tuple[str, ...] = ()
    #: The confined process forks runs that get namespaces of their own (:func:`enter_run`):
    #: its Landlock layer waits for :func:`apply_deferred`.
    per_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Policy:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Policy:
        return cls(
            writable=tuple(data.get("writable", ())),
            readable=tuple(data.get("readable", ())),
            hidden=tuple(data.get("hidden", ())),
            scratch=tuple(data.get("scratch", ())),
            scratch_mb=int(data.get("scratch_mb", 1024)),
            preload=tuple(data.get("preload", ())),
            pids_max=int(data.get("pids_max", 0)),
            memory_mb=int(data.get("memory_mb", 0)),
            cgroups=tuple(data.get("cgroups", ())),
            per_run=bool(data.get("per_run", False)),
        )


@dataclass(frozen=True)
class Isolation:
    """What the kernel offers here, as :func:`detect` found it."""

    system: str
    landlock_abi: int
    namespaces: bool
    #: Why namespaces are unavailable, when they are.
    namespaces_error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The isolation a run gets here: ``landlock+namespaces`` ... ``python-audit``."""
        return _isolation_name(self.landlock_abi > 0, self.namespaces)

    @property
    def kernel(self) -> bool:
        return self.landlock_abi > 0 or self.namespaces

    def to_dict(self) -> dict[str, Any]:
        return {"isolation": self.name, "system": self.system, "landlock_abi": self.landlock_abi,
                "namespaces": self.namespaces, "namespaces_error": self.namespaces_error}


def _isolation_name(landlock: bool, namespaces: bool) -> str:
    if landlock and namespaces:
        return "landlock+namespaces"
    if landlock:
        return "landlock"
    if namespaces:
        return "namespaces"
    return "python-audit"


def _confine_self(policy: Policy, namespaces: bool) -> list[str]:
    """Apply every layer this kernel allows to the current process; return their names.

    With namespaces and ``policy.per_run``, the Landlock layer is kept back
    (:func:`apply_deferred`): no process under Landlock may mount, and each
    run mounts its own ``/proc`` and temp dir (:func:`enter_run`).
    """
    readable = [*system_paths(policy.hidden), *policy.readable]
    writable = list(policy.writable)
    layers = []
    if namespaces:
        _build_root(readable, writable, policy.scratch, policy.scratch_mb)
        _loopback_up()
        layers.append("namespaces")
    per_run = namespaces and policy.per_run
    _drop_capabilities(keep=(_CAP_SYS_ADMIN, _CAP_NET_ADMIN) if per_run else ())
    abi = landlock_abi()
    if per_run:
        _DEFERRED[:] = [_Deferred(tuple(readable), (*writable, *policy.scratch),
                                  policy.scratch_mb)]
    if abi:
        if not per_run:
            _restrict(abi, readable, [*writable, *policy.scratch], namespaces)
        layers.append(f"landlock-abi-{abi}")
    else:
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    return layers


def _restrict(abi: int, readable: Sequence[str], writable: Sequence[str], namespaces: bool,
              shm: bool = False, scoped: bool = True) -> None:
    """The base Landlock layer: reads beneath ``readable``, everything beneath ``writable``.

    ``shm``: ``/dev/shm`` is the run's own (:func:`enter_run`) and writable.
    ``scoped``: no signal to, nor abstract socket of, a process outside the layer.
    """
    rules = [(p, _READ | _IOCTL_DEV) for p in readable]
    rules += [(p, _fs_rights(abi)) for p in writable]
    rules += [(d, _READ_FILE | _WRITE_FILE | _TRUNCATE | _IOCTL_DEV) for d in NULL_DEVICES]
    rules += [(d, _READ_FILE | _IOCTL_DEV) for d in _DEVICES]
    rules += [("/dev/shm", _fs_rights(abi) & ~_EXECUTE)] if namespaces or shm else []
    rules += [("/proc", _READ_FILE | _READ_DIR)]
    rules += [("/dev/pts", _READ_FILE | _WRITE_FILE | _IOCTL_DEV)] if namespaces else []
    _landlock(abi, _fs_rights(abi), rules,
              scoped=_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL if scoped else 0)
    _GRANTED[:] = [path for path, allowed in rules if allowed & _READ_FILE]


# ------------------------------------------------------------ each run's namespaces
@dataclass(frozen=True)
class _Deferred:
    """The harness's Landlock layer, kept back by :func:`enter` for its runs' namespaces."""

    readable: tuple[str, ...]
    #: The harness's writable folders (the sandbox copy, the scratch folders): a run reads them.
    writable: tuple[str, ...]
    scratch_mb: int


_DEFERRED: list[_Deferred] = []
#: What the harness keeps, in its own user namespace, until :func:`apply_deferred`: mounting
#: (each run's ``/proc`` and tmpfs) and bringing each run's loopback up. Each run drops them.
_CAP_NET_ADMIN, _CAP_SYS_ADMIN = 12, 21
#: ``/dev/shm`` of a run: what POSIX semaphores and ``multiprocessing`` need, no more.
_RUN_SHM_MB = 64


def _read_only_but(writable: Sequence[str], mounts: Sequence[str]) -> None:
    """Make ``mounts`` (every read-write one, :func:`_writable_mounts`) read-only in this run's
    mount namespace.

    Landlock has no right for a file's times, mode or owner: a process the
    run starts (no audit hook) changed the sandbox copy's mtimes and, for a
    root caller, the mode of the host's own ``/dev/null`` bound into ``/dev``;
    and a first read set a fresh copy's access time. The measured run left
    its answers in both for the runs after it (red team 14, findings 01 and
    02). A read-only mount refuses all three (a device on it is still
    written). Kept as they are: mounts that hold a path the run writes other
    than its temp dir (our own suite's coverage folder); the temp dir gets a tmpfs.
    """
    keep = [real for real in (os.path.realpath(p) for p in writable) if real != RUN_TMP]
    for path in mounts:
        real = os.path.realpath(path)
        if os.path.exists(real) and not any(_beneath(k, real) for k in keep):
            _read_only(real, recursive=False)


def _writable_mounts() -> list[str]:
    """Every mount this process sees read-write but its own ``/proc``, from its mountinfo.

    Why every one, not a list of ours: a mount left read-write is a place whose times and
    mode a process the run starts (no audit hook) can change, which Landlock does not
    refuse: red team 64 found two, the pseudo-terminals all runs shared and the host's
    ``/dev/null`` bound over the masked files, and relayed a value-free test's answers
    through their times.
    """
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        return read_write_points(handle)


def read_write_points(mountinfo: Iterable[str]) -> list[str]:
    """The mount points of a mountinfo listing's read-write mounts, unescaped (the kernel
    writes a space, a tab, a newline and a backslash in a path as three octal digits), but
    ``/proc``."""
    found = []
    for line in mountinfo:
        fields = line.split()
        if len(fields) > 5 and "rw" in fields[5].split(","):
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point != "/proc":
                found.append(point)
    return found


def run_namespaces() -> bool:
    """Whether each run gets namespaces of its own here (:func:`into_run_namespaces`).

    True in a harness :func:`enter` confined with namespaces for a policy
    with ``per_run``: there the harness holds no Landlock layer until
    :func:`apply_deferred`, and each run gets its own.
    """
    return bool(_DEFERRED)


def apply_deferred() -> bool:
    """Apply the Landlock layer :func:`enter` kept back, to this process; False if none was.

    The judge calls it right after forking the process its runs are forked
    from (that one must stay free to mount, and runs no test code); a harness
    that runs tests itself calls it before any test code.
    """
    abi = landlock_abi()
    if not _DEFERRED or abi < 1:
        return False
    base = _DEFERRED.pop()
    _drop_capabilities()
    # Not scoped: the judge kills runs that overstay, and they were forked outside its layer.
    _restrict(abi, base.readable, base.writable, namespaces=True, scoped=False)
    return True


def new_pid_namespace_for_next_child() -> None:
    """In the process runs are forked from: the next child it forks is PID 1 of a new PID
    namespace (:func:`into_run_namespaces` goes on from there). Then call
    :func:`own_pid_namespace_again`. Raises :class:`OSError` when the kernel refuses."""
    _unshare(_CLONE_NEWPID)


def own_pid_namespace_again() -> None:
    """Later children of this process are in its own PID namespace again (``setns``)."""
    if not _OWN_PID_NS:
        _OWN_PID_NS.append(os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC))
    calls.setns(_OWN_PID_NS[0], _CLONE_NEWPID)


#: The PID namespace of the process runs are forked from, opened on first use (before the
#: first new one is made: :func:`own_pid_namespace_again` is first called after it, but the
#: link names the process's own namespace, never the one for its children).
_OWN_PID_NS: list[int] = []


def into_run_namespaces() -> None:
    """Move into one run's own namespaces; return in a new process, the run, PID 2 there.

    Call it first thing in a child forked after :func:`new_pid_namespace_for_next_child`:
    that child, PID 1 of the new PID namespace, enters new mount, IPC and
    network namespaces, forks the run, reaps whatever ends there and leaves
    with the run's exit code, so killing it kills every process of the run.
    Why: runs forked from one process share its PID counter, its tmpfs and
    its loopback; the measured run, always first, moved a counter by an
    amount its answers chose and every later run read it back (red team 13:
    1,216 pids; 39,000 inode numbers). Namespaces of its own have counters
    that start afresh. The run is not PID 1 itself: the judge is, in the
    harness's namespace, and libraries that notice a fork by a changed pid
    (coverage.py does) must see one; PID 1 also ignores its own signals.
    Raises :class:`OSError` (nothing forked) when the PID namespace was not
    made or the kernel refuses the others.
    """
    if os.getpid() != 1:
        raise OSError(errno.EPERM, "the run's PID namespace could not be made")
    while _OWN_PID_NS:  # the harness's namespace: its pids are a counter every run moves
        os.close(_OWN_PID_NS.pop())
    _unshare(_CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWNET)
    run = _fork()
    if run:
        _reap_until(run)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _fork() -> int:
    """``os.fork()`` without its warning about threads (Python 3.12+): every caller here is
    single-threaded, or its child only makes system calls and exits."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _reap_until(child: int) -> NoReturn:
    """A run's init: hold nothing of the run's (its pipes must end with it), reap every
    process that ends (orphans of the namespace are its children too) until ``child`` has,
    then leave with its exit code."""
    os.closerange(3, 1 << 16)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            break
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


#: Files of ``/proc`` that count, for the whole machine, what any process does (page faults,
#: locked pages, forks, interrupts, reads, stalls): a run moved one of them by an amount its
#: answers chose and later runs read it back, across waves (red team 19, ``vmstat``'s
#: ``unevictable_pgs_mlocked``). Each run sees them as they were at the scan, or at the first
#: submission after a reboot (:func:`store_counters`).
_FROZEN_FILES = ("buddyinfo", "cgroups", "diskstats", "interrupts", "key-users", "loadavg",
                 "locks", "meminfo", "pagetypeinfo", "slabinfo", "softirqs", "stat", "swaps",
                 "timer_list", "vmallocinfo", "vmstat", "zoneinfo", "sys/fs/aio-nr",
                 "sys/fs/dentry-state", "sys/fs/file-nr", "sys/fs/inode-nr",
                 "sys/fs/inode-state")
#: Folders of ``/proc`` with more such counters (stall times, file systems' journals, per-IRQ
#: counts, drivers'): empty in a run.
_HIDDEN_FOLDERS = ("driver", "fs", "irq", "pressure", "sys/fs/quota")
#: The folder, in the harness's channel folder, where the gate puts the copies for the runs.
COUNTERS = "counters"
#: (path in ``/proc``, its copy) for :data:`_FROZEN_FILES`, found by :func:`freeze_counters`.
_FROZEN: list[tuple[str, str]] = []


def store_counters(store: str) -> None:
    """Keep the machine's counters in ``store`` (the project's ``.quest/runs/counters``) as
    they are now, unless it holds them for this boot already.

    Runs read these copies (:func:`copy_counters`). Why not a fresh copy
    at each submission: a submission's runs move the counters, and a copy
    taken at the next one's start would hand their marks to its runs (one
    relay in two submissions). ``scan`` calls it; after a reboot the next
    submission does. What this user cannot read is left out: a run cannot
    read it either.
    """
    boot = _boot_id()
    stamp = os.path.join(store, "boot_id")
    try:
        with open(stamp, encoding="ascii") as handle:
            if handle.read() == boot:
                return
    except OSError:
        pass
    import shutil

    shutil.rmtree(store, ignore_errors=True)
    os.makedirs(store, mode=0o700)
    for name in _FROZEN_FILES:
        _copy_readable(f"/proc/{name}", os.path.join(store, _copy_name(name)))
    with open(stamp, "w", encoding="ascii") as handle:
        handle.write(boot)


def copy_counters(store: str, into: str) -> None:
    """Copy the counters ``store`` keeps for this boot (:func:`store_counters`) into ``into``,
    the folder the runs of one submission take them from (:func:`freeze_counters`)."""
    store_counters(store)
    os.makedirs(into, mode=0o755, exist_ok=True)
    for name in _FROZEN_FILES:
        _copy_readable(os.path.join(store, _copy_name(name)), os.path.join(into, _copy_name(name)))


def _copy_name(name: str) -> str:
    """The file name of the copy of ``/proc/NAME`` (``sys/fs/file-nr`` -> ``sys-fs-file-nr``)."""
    return name.replace("/", "-")


def _copy_readable(source: str, target: str) -> None:
    """Copy ``source`` to ``target``; nothing where ``source`` cannot be read."""
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError:
        return
    with open(target, "wb") as handle:
        handle.write(data)


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def freeze_counters(folder: str) -> None:
    """Take the copies :func:`copy_counters` put in ``folder``: :func:`enter_run` lays them
    over the counters of each run's ``/proc``, so every run reads the same numbers.

    Why: those files are the whole kernel's, and no namespace or cgroup has
    its own. Call it in the process runs are forked from, before the first."""
    copies = ((name, os.path.join(folder, _copy_name(name))) for name in _FROZEN_FILES)
    _FROZEN[:] = [(name, copy) for name, copy in copies if os.path.isfile(copy)]


def _cover(folder: str) -> None:
    """An empty read-only tmpfs over ``folder`` in this run's mount namespace: what the folder
    holds, its times and its link count are out of the run's sight.

    Laid over the counters' folders of the run's ``/proc`` (:func:`_freeze_proc`) and over
    the zygote's folder of run dirs beside the sandbox copy: the zygote removes each run's
    dir when it reaps the run, so that folder's times said when the last run of the wave
    before had ended, and its link count how many runs had come before, to any run that
    ``stat``-ed it (Landlock has no right for reading a file's times). The pause before each
    wave moves the next wave's start, not that record: red team 63 chained each wave's end
    phase through it and passed a value-free test 6 times of 6. The run holds its output
    file open already and needs nothing else there.
    """
    _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_RDONLY,
           "mode=0555,size=4k")


def _freeze_proc() -> None:
    """In a run's fresh ``/proc``: the copies over the counters, the counters' folders empty."""
    for name, copy in _FROZEN:
        _mount(copy, f"/proc/{name}", None, _MS_BIND)
    for name in _HIDDEN_FOLDERS:
        if os.path.isdir(f"/proc/{name}"):
            _cover(f"/proc/{name}")


def enter_run(writable: Sequence[str], covered: Sequence[str] = ()) -> list[str]:
    """In a run :func:`into_run_namespaces` started: its own mounts, then its Landlock layer.

    A fresh ``/proc`` (only this run's processes, the machine's counters as
    :func:`freeze_counters` found them), a fresh tmpfs at :data:`RUN_TMP` (its
    temp dir and home: inode numbers of its own) and at ``/dev/shm``, an empty
    read-only tmpfs over each folder of ``covered`` (the zygote's folder of run
    dirs: see :func:`_cover`), loopback up,
    ephemeral ports of a width of its own (:func:`_ephemeral_ports_of_its_own`);
    then no capability, and one Landlock layer: reads as the harness's, writes
    beneath ``writable`` and ``/dev/shm`` only, no signal or abstract socket
    beyond the run. Returns the layers' names;
    raises :class:`OSError` when any step fails (the run must not go on).
    """
    (base,) = _DEFERRED
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    _read_only_but(writable, _writable_mounts())
    _freeze_proc()
    _mount("tmpfs", RUN_TMP, "tmpfs", _MS_NOSUID | _MS_NODEV,
           f"mode=0700,size={max(base.scratch_mb, 1)}m")
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV,
               f"mode=1777,size={_RUN_SHM_MB}m")
    for folder in covered:
        _cover(folder)
    with contextlib.suppress(OSError):  # pseudo-terminals are a nicety (pty.openpty)
        _mount("devpts", "/dev/pts", "devpts", _MS_NOSUID | _MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=0620")
    _loopback_up()
    _ephemeral_ports_of_its_own()
    _drop_capabilities()
    layers = ["namespaces"]
    abi = landlock_abi()
    if abi:
        kept = {os.path.realpath(p) for p in writable}
        readable = [*base.readable, *(p for p in base.writable if os.path.realpath(p) not in kept)]
        _restrict(abi, readable, list(writable), namespaces=True, shm=True)
        layers.append(f"landlock-abi-{abi}")
    else:
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    return layers


# ---------------------------------------------------------------------- detect
def _probe_namespaces() -> str | None:
    """Set up the whole namespace side in a throwaway child; return the error, or None."""
    if sys.platform != "linux":
        return f"not available on {sys.platform}"
    import fcntl  # noqa: F401 - loaded before the probe's root holds no standard library

    read, write = os.pipe()
    pid = _fork()  # the child only makes system calls and exits: it takes no lock
    if pid == 0:  # pragma: no cover - runs in the probe child (measured by the launcher tests)
        os.close(read)
        code = 0
        try:
            _enter_namespaces()
            inner = os.fork()
            if inner == 0:
                try:
                    _build_root([sys.prefix], [])
                    _loopback_up()
                    _ephemeral_ports_of_its_own()
                except BaseException as exc:
                    os.write(write, f"{type(exc).__name__}: {exc}".encode()[:500])
                    os._exit(1)
                os._exit(0)
            code = os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1])
        except BaseException as exc:
            os.write(write, f"{type(exc).__name__}: {exc}".encode()[:500])
            code = 1
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        message = handle.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return None if code == 0 else (message or f"probe exited with {code}")


@functools.cache
def detect() -> Isolation:
    """What the kernel offers here (probed once per process): Landlock ABI and namespaces."""
    system = platform.system()
    abi = landlock_abi()
    error = _probe_namespaces() if system == "Linux" else f"not available on {system}"
    return Isolation(system=system, landlock_abi=abi, namespaces=error is None,
                     namespaces_error=error, details={"kernel": platform.release()})


# ---------------------------------------------------------------------- launch
def wrap(argv: Sequence[str], policy: Policy, status_fd: int | None = None,
         python: str | None = None) -> list[str]:
    """``argv`` run through the launcher: confined by ``policy`` before it starts.

    ``status_fd`` (inherit it: ``pass_fds``) receives the launcher's report as
    JSON lines, closed before ``argv`` runs so the confined code never holds it:
    ``{"child": pid}`` then ``{"isolation": ..., "layers": [...]}`` or ``{"error": ...}``.
    """
    command = [python or sys.executable, "-m", "pytest_quest.confine", policy.to_json()]
    if status_fd is not None:
        command += ["--status-fd", str(status_fd)]
    return [*command, "--", *argv]


def read_status(data: bytes) -> dict[str, Any]:
    """Merge the launcher's JSON lines into one report (malformed lines are ignored)."""
    report: dict[str, Any] = {}
    for line in data.decode(errors="replace").splitlines():
        with contextlib.suppress(ValueError, TypeError):
            report.update(json.loads(line))
    return report


def _report(fd: int | None, **data: Any) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.write(fd, (json.dumps(data) + "\n").encode())


def _exit_from_namespace(child: int, status_fd: int | None) -> None:
    """The parent outside the PID namespace: report the child, wait, exit with its code."""
    _report(status_fd, child=child)
    if status_fd is not None:
        os.close(status_fd)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    sys.stdout.flush()
    os._exit(code if code >= 0 else 128 - code)


def enter(policy: Policy, status_fd: int | None = None, namespaces: bool = True) -> str:
    """Confine the calling process in place, for good; return the isolation now in force.

    With namespaces, the process forks: the caller's side waits outside the new
    PID namespace and exits with the child's code (it never returns), and the
    child returns here as PID 1, confined. Without namespaces but with Landlock,
    only Landlock is applied. ``status_fd`` receives the report (see :func:`wrap`)
    and is closed before this returns. Call it while single-threaded, before any
    untrusted code runs: when a layer fails, the process reports it and exits
    with code 125 rather than run half-confined. ``namespaces=False`` (what
    :func:`detect` found where user namespaces exist but are powerless, as under
    AppArmor's ``restrict_unprivileged_userns``) goes straight to Landlock.
    """
    try:
        # Before the namespaces: the cgroup folders are still in sight, and RLIMIT_NPROC
        # also binds the count of the caller's user namespace.
        limits = _apply_limits(policy)
        fresh_session_keyring()
    except OSError as exc:
        _fail(status_fd, f"confinement failed: {exc}")
    try:
        if not namespaces:
            raise OSError(errno.EPERM, detect().namespaces_error or "not available here")
        _enter_namespaces()
    except _HalfEntered as exc:
        _fail(status_fd, f"confinement failed: {exc}")
    except OSError as exc:
        if landlock_abi() == 0:
            _fail(status_fd, f"no kernel confinement: namespaces: {exc}; no Landlock")
        try:
            layers = _confine_self(policy, False)
        except OSError as inner:
            _fail(status_fd, f"confinement failed: {inner}")
        return _started(run_isolation("landlock", limits), layers, status_fd)
    child = _fork()  # single-threaded by contract
    if child:
        _exit_from_namespace(child, status_fd)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    cwd = os.getcwd()
    try:
        layers = _confine_self(policy, True)
        os.chdir(cwd)
    except OSError as exc:
        _fail(status_fd, f"confinement failed: {exc}")
    return _started(run_isolation(_isolation_name(len(layers) > 1, True), limits), layers,
                    status_fd)


def request(policy: Policy, status_fd: int, namespaces: bool) -> dict[str, str]:
    """Environment variables that make a harness confine itself by ``policy`` at start.

    ``status_fd`` (inherit it: ``pass_fds``) receives the report, as with
    :func:`wrap`; ``namespaces`` passes on what :func:`detect` found.
    """
    return {ENV_REQUEST: json.dumps({"policy": policy.to_dict(), "status_fd": status_fd,
                                     "namespaces": namespaces})}


def enter_requested() -> str:
    """Confine this process as its environment asks, and forget the asking.

    Returns the isolation in force: what :func:`enter` applied for a
    :func:`request`, what the launcher applied before ``exec`` (:func:`wrap`),
    or "" when nobody asked. Neither variable stays visible to test code.
    """
    confined = os.environ.pop(ENV_CONFINED, "")
    raw = os.environ.pop(ENV_REQUEST, None)
    if raw is None:
        return confined
    data = json.loads(raw)
    policy = Policy.from_dict(data["policy"])
    try:
        _preload(policy.preload)
    except OSError as exc:
        _fail(data.get("status_fd"), f"confinement failed: reading what the run needs: {exc}")
    return enter(policy, data.get("status_fd"), bool(data.get("namespaces", True)))


def _started(name: str, layers: list[str], status_fd: int | None) -> str:
    _report(status_fd, isolation=name, layers=layers)
    if status_fd is not None:
        os.close(status_fd)
    return name


def _fail(status_fd: int | None, error: str) -> NoReturn:
    _report(status_fd, error=error)
    sys.stderr.write(f"pytest-quest: {error}\n")
    sys.stderr.flush()
    os._exit(SETUP_FAILED)


def run_module(module: str, args: Sequence[str]) -> None:
    """Confine this process as its environment asks (:func:`request`), then run ``module``.

    The module (the harness) is imported only after the fork into the new
    namespaces: the process that stays outside holds little, and the confined
    one pays no copy-on-write for pages it inherited.
    """
    import runpy

    sys.argv = [module, *args]  # first: a preloaded file's path in it becomes its memfd
    name = enter_requested()
    if name:
        os.environ[ENV_CONFINED] = name  # the module's own enter_requested() takes it
    runpy.run_module(module, run_name="__main__", alter_sys=True)


def main(args: list[str] | None = None) -> int:
    """``python -m pytest_quest.confine POLICY [--status-fd N] -- ARGV...``.

    Or ``python -m pytest_quest.confine --module MODULE ARGS...``: see :func:`run_module`.
    """
    args = list(sys.argv[1:] if args is None else args)
    if len(args) >= 2 and args[0] == "--module":
        run_module(args[1], args[2:])
        return 0
    if "--" not in args or not args:
        sys.stderr.write("usage: python -m pytest_quest.confine POLICY [--status-fd N] -- ARGV\n")
        return 2
    split = args.index("--")
    head, argv = args[:split], args[split + 1:]
    status_fd = None
    if "--status-fd" in head:
        at = head.index("--status-fd")
        status_fd = int(head[at + 1])
        del head[at:at + 2]
    if not argv or len(head) != 1:
        sys.stderr.write("usage: python -m pytest_quest.confine POLICY [--status-fd N] -- ARGV\n")
        return 2
    policy = Policy.from_json(head[0])
    if status_fd is not None:
        os.set_inheritable(status_fd, False)
    os.environ[ENV_CONFINED] = enter(policy, status_fd, namespaces=detect().namespaces)
    os.execv(argv[0], argv)
    return SETUP_FAILED  # pragma: no cover - execv does not return


if __name__ == "__main__":
    # Run with -m (the sandbox's launcher): the harness imports this module by name to take
    # over what was applied; this copy is that module, not a second compile of the file.
    sys.modules.setdefault("pytest_quest.confine", sys.modules[__name__])
    sys.exit(main())
