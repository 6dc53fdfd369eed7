"""A cgroup of its own for each run: a bound on its processes and memory, and a page cache
the gate can empty.

The unconfined parent makes the cgroups (:func:`process_limits`); the run's
harness joins them before any of its own code runs (:func:`join`), and nothing
inside can leave them (``/sys`` is out of its sight, Landlock forbids writing
there). Inside the run's cgroup is a ``runs`` memory cgroup: every forked run
of a submission is born there (:func:`join_runs_cgroup`), so the pages they
fault into the page cache are charged to it, and the zygote empties them
between waves of runs (:func:`evict`, red team 16 in ``docs/security.md``).

cgroup v2 is preferred, then the v1 ``pids`` and ``memory`` hierarchies. On
v2 a cgroup whose children take limits may hold no process itself: the run's
harness gets a leaf of its own beside the runs', and when the caller sits
alone in a cgroup whose children may not take limits yet, it first moves
into a leaf ``pytest-quest-PID-self`` of that cgroup (``docs/security.md``
says why it moves no other process).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass

__all__ = [
    "HARNESS_CGROUP",
    "RUNS_CGROUP",
    "ProcessLimits",
    "evict",
    "join",
    "join_runs_cgroup",
    "process_limits",
]

#: The memory cgroup, inside the run's, that every forked run of a submission joins.
RUNS_CGROUP = "runs"
#: The leaf, inside the run's cgroup, that the run's harness joins on cgroup v2.
HARNESS_CGROUP = "harness"
#: The knobs that empty a memory cgroup's page cache: v1 empties on any write, v2 reclaims
#: as many bytes as written (Linux >= 5.19).
_EMPTYING_KNOBS = ("memory.force_empty", "memory.reclaim")
#: What :func:`evict` writes: more bytes than any runs cgroup holds (v1 ignores the value).
_RECLAIM_ALL = str(1 << 40).encode()
#: The leaf a caller moved itself into on cgroup v2 (:func:`_limitable`).
_SELF_LEAF = re.compile(r"pytest-quest-\d+-self")
_SERIAL = itertools.count()
#: One setup of the caller's cgroup at a time (the loop judges submissions in threads).
_SETUP = threading.Lock()


@dataclass
class ProcessLimits:
    """Bounds on the processes and memory of a whole run, beyond per-process rlimits.

    ``kind`` says which applied: ``"cgroup"`` (a cgroup of its own with
    ``pids.max`` and a memory limit, made by the unconfined parent where it may
    create one), ``"rlimit"`` (RLIMIT_NPROC above the caller's current count,
    applied by the run itself: no memory bound for the group), or ``""``.
    """

    kind: str
    #: The cgroups the run's harness joins (``confine.Policy.cgroups``).
    cgroups: tuple[str, ...] = ()
    #: A memory cgroup inside the run's that each forked run of a submission joins
    #: (:func:`join_runs_cgroup`), so the page cache they fault in is charged there; "" if none.
    runs: str = ""
    #: Every cgroup made for the run, innermost first: :meth:`close` removes them in this order.
    made: tuple[str, ...] = ()
    #: Why there is no runs cgroup, for ``doctor`` ("" when there is one).
    why: str = ""

    def evictor(self) -> tuple[int, int] | None:
        """Descriptors on the runs cgroup's ``cgroup.procs`` (a run joins by writing it) and
        the knob that empties its page cache (``memory.force_empty`` on cgroup v1,
        ``memory.reclaim`` on v2; :func:`evict`). None without a runs cgroup."""
        if not self.runs:
            return None
        try:
            procs = os.open(os.path.join(self.runs, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            return None
        knob = _open_emptying_knob(self.runs)
        if knob is None:
            os.close(procs)
            return None
        return procs, knob

    def close(self) -> None:
        """Kill whatever is left in the run's cgroups, then remove them.

        The runs cgroup is emptied of its page cache first: what the last wave
        faulted in would otherwise stay cached, charged to a parent, and a
        later submission's runs would read those marks."""
        for folder in self.made:
            _empty_cgroup(folder, reclaim=folder == self.runs)


class _NoCgroup(Exception):
    """No cgroup could be made for the run; the message says why (``ProcessLimits.why``)."""


def process_limits(pids_max: int, memory_mb: int) -> ProcessLimits:
    """A fresh cgroup for one run where this caller may make one, else RLIMIT_NPROC."""
    if sys.platform != "linux" or pids_max <= 0:
        return ProcessLimits("")
    name = f"pytest-quest-{os.getpid()}-{next(_SERIAL)}"
    memory = max(memory_mb, 64) * 1024 * 1024
    mounts = _cgroup_mounts()
    why = "no cgroup hierarchy this user may write"
    if "unified" in mounts:
        try:
            return _cgroup_v2(mounts["unified"], name, pids_max, memory)
        except _NoCgroup as exc:
            why = str(exc)
    if {"pids", "memory"} <= mounts.keys():
        try:
            return _cgroup_v1(mounts, name, pids_max, memory)
        except _NoCgroup as exc:
            why = str(exc)
    return ProcessLimits("rlimit", why=why)


def join(folder: str) -> None:
    """Move this process into the cgroup ``folder`` (the run's harness, before its own code)."""
    _write(os.path.join(folder, "cgroup.procs"), str(os.getpid()))


def join_runs_cgroup(fd: int) -> bool:
    """Move this process into the runs cgroup (``fd``: its ``cgroup.procs``); False if refused."""
    try:
        os.write(fd, b"0")  # "0": the writer itself
    except OSError:
        return False
    return True


def evict(fd: int) -> bool:
    """Drop the page cache charged to the runs cgroup (``fd``: one of :data:`_EMPTYING_KNOBS`).

    Why: the page cache is the whole machine's. A run that faults chosen
    pages of files no process reads leaves marks every later run can read
    back (a major fault, or its time, says whether a page was cached), and
    red teams 15 and 16 relayed the shipped function's answers to the
    mutant runs that way. The pages a run faults in are charged to the
    runs cgroup it joined (:func:`join_runs_cgroup`); emptied once the runs
    that faulted them have ended, they are cold again, as they were before
    the submission. Cheap then: no process is left in the cgroup, only
    page cache. True when the kernel took the write.
    """
    try:
        os.write(fd, _RECLAIM_ALL)
    except OSError as exc:
        # cgroup v2 says EAGAIN when it reclaimed less than asked: all it could, which is all.
        return exc.errno == errno.EAGAIN
    return True


def _open_emptying_knob(folder: str) -> int | None:
    """A descriptor on the knob of :data:`_EMPTYING_KNOBS` that ``folder`` has; None if none."""
    for knob in _EMPTYING_KNOBS:
        with contextlib.suppress(OSError):
            return os.open(os.path.join(folder, knob), os.O_WRONLY | os.O_CLOEXEC)
    return None


def _cgroup_mounts() -> dict[str, str]:
    """Controller (``pids``, ``memory``, ``unified``) -> this process's cgroup folder."""
    mounts: dict[str, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as handle:
            mountinfo = handle.read().splitlines()
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            membership = handle.read().splitlines()
    except OSError:
        return mounts
    where: dict[str, str] = {}
    for line in membership:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else ["unified"]:
            where[controller] = path
    for line in mountinfo:
        head, _, tail = line.partition(" - ")
        fields, extra = head.split(), tail.split()
        if len(fields) < 5 or len(extra) < 3:
            continue
        root, point, fstype, options = fields[3], fields[4], extra[0], extra[2].split(",")
        if fstype == "cgroup2" and "unified" in where:
            mounts.setdefault("unified", _under(point, root, where["unified"]))
        elif fstype == "cgroup":
            for controller in ("pids", "memory"):
                if controller in options and controller in where:
                    mounts.setdefault(controller, _under(point, root, where[controller]))
    return mounts


def _under(point: str, root: str, path: str) -> str:
    rel = path[len(root):] if root != "/" and path.startswith(root) else path
    return os.path.join(point, rel.lstrip("/"))


def _cgroup_v2(own: str, name: str, pids: int, memory: int) -> ProcessLimits:
    """The run's cgroup under the caller's, with a harness leaf and a runs leaf inside it.

    Without ``memory.reclaim`` (Linux < 5.19) the harness joins the run's
    cgroup itself and there is no runs cgroup."""
    with _SETUP:
        base = _limitable(own)
        _remove_stale_cgroups(base)
        folder = os.path.join(base, name)
        try:
            os.mkdir(folder)
        except OSError as exc:
            raise _NoCgroup(f"cannot make a cgroup in {base}: {exc.strerror}") from None
    try:
        _write(os.path.join(folder, "pids.max"), str(pids))
        _write(os.path.join(folder, "memory.max"), str(memory))
        with contextlib.suppress(OSError):
            _write(os.path.join(folder, "memory.swap.max"), "0")
    except OSError as exc:
        _empty_cgroup(folder)
        raise _NoCgroup(f"cannot set the limits of {folder}: {exc.strerror}") from None
    if not os.path.exists(os.path.join(folder, "memory.reclaim")):
        return ProcessLimits("cgroup", (folder,), made=(folder,),
                             why="cgroup v2 without memory.reclaim (Linux < 5.19)")
    harness, runs = os.path.join(folder, HARNESS_CGROUP), os.path.join(folder, RUNS_CGROUP)
    try:
        _write(os.path.join(folder, "cgroup.subtree_control"), "+memory")
        os.mkdir(harness)
        os.mkdir(runs)
    except OSError as exc:
        for leaf in (runs, harness):
            with contextlib.suppress(OSError):
                os.rmdir(leaf)
        with contextlib.suppress(OSError):
            _write(os.path.join(folder, "cgroup.subtree_control"), "-memory")
        return ProcessLimits("cgroup", (folder,), made=(folder,),
                             why=f"cannot make the runs cgroup in {folder}: {exc.strerror}")
    return ProcessLimits("cgroup", (harness,), runs, (runs, harness, folder))


def _limitable(own: str) -> str:
    """A cgroup v2 folder whose children may take ``pids`` and ``memory`` limits: the
    caller's own, or its parent when the caller moved into a leaf of its own earlier.

    A cgroup v2 folder with processes may not hand controllers to its
    children (the "no internal processes" rule). When the caller is the only
    process in its cgroup, it moves into a leaf ``pytest-quest-PID-self`` of
    it and enables them there; it never moves another process (a shell, an
    editor, another agent's pytest-quest): those stay where their owner put
    them, and the reason goes to ``doctor``."""
    parent, leaf = os.path.split(own)
    base = parent if _SELF_LEAF.fullmatch(leaf) else own
    wanted = {"pids", "memory"}
    available = _words(os.path.join(base, "cgroup.controllers"))
    if not wanted <= available:
        raise _NoCgroup(f"cgroup v2 does not delegate {' and '.join(sorted(wanted - available))}"
                        f" to {base}")
    control = os.path.join(base, "cgroup.subtree_control")
    if wanted <= _words(control):
        return base
    try:
        _write(control, "+pids +memory")
        return base
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise _NoCgroup(f"cannot enable pids and memory in {base}: {exc.strerror}") from None
    others = _words(os.path.join(base, "cgroup.procs")) - {str(os.getpid())}
    if others:
        raise _NoCgroup(f"{base} holds {len(others)} other process(es) and cgroup v2 lets a "
                        "cgroup whose children take limits hold none: start pytest-quest in a "
                        "cgroup of its own (systemd-run --user --scope -p Delegate=yes "
                        "pytest-quest ...)")
    leaf_folder = os.path.join(base, f"pytest-quest-{os.getpid()}-self")
    try:
        os.makedirs(leaf_folder, exist_ok=True)
        join(leaf_folder)
        _write(control, "+pids +memory")
    except OSError as exc:
        with contextlib.suppress(OSError):
            join(base)
        with contextlib.suppress(OSError):
            os.rmdir(leaf_folder)
        raise _NoCgroup(f"cannot move into {leaf_folder} to enable pids and memory: "
                        f"{exc.strerror}") from None
    return base


def _words(path: str) -> set[str]:
    try:
        with open(path, encoding="ascii") as handle:
            return set(handle.read().split())
    except OSError:
        return set()


def _cgroup_v1(mounts: dict[str, str], name: str, pids: int, memory: int) -> ProcessLimits:
    """The pids and memory folders made for the run, and the runs cgroup inside the memory one."""
    made: list[str] = []
    try:
        for controller, knob, value in (("pids", "pids.max", pids),
                                        ("memory", "memory.limit_in_bytes", memory)):
            _remove_stale_cgroups(mounts[controller])
            folder = os.path.join(mounts[controller], name)
            os.mkdir(folder)
            made.append(folder)
            _write(os.path.join(folder, knob), str(value))
    except OSError as exc:
        for folder in made:
            _empty_cgroup(folder)
        raise _NoCgroup(f"cannot make the run's cgroup v1 {controller} folder: "
                        f"{exc.strerror}") from None
    runs = os.path.join(made[1], RUNS_CGROUP)
    try:
        os.mkdir(runs)
    except OSError as exc:
        return ProcessLimits("cgroup", tuple(made), made=tuple(made),
                             why=f"cannot make the runs cgroup in {made[1]}: {exc.strerror}")
    return ProcessLimits("cgroup", tuple(made), runs, (runs, *made))


def _remove_stale_cgroups(base: str) -> None:
    """Remove empty ``pytest-quest-PID-*`` cgroups whose PID is gone (its caller was SIGKILLed)."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(base):
            parts = entry.split("-")
            if (entry.startswith("pytest-quest-") and len(parts) == 4 and parts[2].isdigit()
                    and not os.path.exists(f"/proc/{parts[2]}")):
                for leaf in (RUNS_CGROUP, HARNESS_CGROUP):
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(base, entry, leaf))
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(base, entry))  # fails while anything is in it


def _empty_cgroup(folder: str, reclaim: bool = False) -> None:
    """SIGKILL every process in ``folder`` until none is left, then remove it (``reclaim``:
    empty its page cache before)."""
    with contextlib.suppress(OSError):
        _write(os.path.join(folder, "cgroup.kill"), "1")  # cgroup v2, Linux >= 5.14
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            with open(os.path.join(folder, "cgroup.procs"), encoding="ascii") as handle:
                pids = [int(p) for p in handle.read().split()]
        except OSError:
            return
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    knob = _open_emptying_knob(folder) if reclaim else None
    if knob is not None:
        try:
            evict(knob)
        finally:
            os.close(knob)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)
