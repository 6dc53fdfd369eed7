"""The judge's runs: a zygote forked at collection time, one child per run, answers through pipes.

Processes (all in the sandbox, see docs/security.md "evidence channel"):

- the **judge** (:class:`Judge`, the harness process) holds the event pipe
  to the gate, the pristine target and, later, the mutants. It never runs
  test code and is not dumpable, so no process of the same user can ptrace
  it or read its memory.
- the **zygote**, forked from the judge when pytest reaches collection,
  before any mutant exists: its memory is pytest set up and nothing about the
  schedule. It closes the event pipe, becomes a child subreaper and, on each
  request, forks one run child, then reaps it and kills whatever the run
  left behind (its process group, orphans reparented to the zygote) and
  removes its temp dir before telling the judge the run has ended.
- each **run child** gets its request (the module code to install) through
  a pipe only it reads, a fresh private temp dir as TMPDIR and HOME, loses
  every capability (when root), gets a Landlock layer when
  :func:`pytest_quest.confine.restrict_writes` is there and another that
  hides the target's file (:func:`pytest_quest.confine.hide_files`), adds the sandbox
  guard and the code watch as audit hooks, installs the module, collects
  the test file, runs it and answers on its own pipe. Whatever it answers is
  parsed by the judge with :func:`~pytest_quest.protocol.parse_run_report`.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import json
import marshal
import math
import os
import random
import secrets
import select
import signal
import socket
import struct
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from pytest_quest import cgroups, confine, mutate, noevent, safeio, seccomp, standin
from pytest_quest.confine import _PR_SET_NO_NEW_PRIVS, _PR_SET_PDEATHSIG
from pytest_quest.gaps import Gaps
from pytest_quest.hooked import CONTROL, AnswerPipe
from pytest_quest.mutants import find_code
from pytest_quest.protocol import (
    MAX_REPORT_BYTES,
    MAX_START_BRANCHES,
    MAX_START_BYTES,
    MAX_START_STATEMENTS,
    EventKind,
    HarnessSpec,
    ProtocolError,
    RunReport,
    Tampering,
    parse_run_report,
    parse_run_start,
    split_run_answer,
)
from pytest_quest.recorder import Recorder, span
from pytest_quest.runparts import (
    GUARDED,
    Channel,
    Guard,
    Pristine,
    coverage_entries,
    report_event,
    resolve,
    short_repr,
)
from pytest_quest.runstate import hidden_runs_dir, reopen
from pytest_quest.runtrust import settle
from pytest_quest.scrub import RunLoader, scrub_run
from pytest_quest.seal import Judged, run_modules, seal
from pytest_quest.selection import MAX_TEST_BYTES, item_key, unreachable_tests
from pytest_quest.syscalls import calls
from pytest_quest.targetfacts import Known, TargetFacts
from pytest_quest.watch import JUDGED, JUDGED_ATTRS, JUDGED_PREFIXES, Readers, Watch, readers

if TYPE_CHECKING:  # the harness imports coverage late, after the target's third-party imports
    import coverage

__all__ = ["ForkRuns", "Judge", "Zygote", "drop_capabilities", "forget_our_modules",
           "open_run_output", "own_descriptors", "set_dumpable"]

# prctl options confinement names too are confine's; these two only the runs use.
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` on Linux (through confine's C library); False where there is
    no such call."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return confine._prctl(option, value) == 0
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return False


def set_dumpable(flag: bool) -> bool:
    """A non-dumpable process cannot be ptraced or have its memory read by its own user."""
    return _prctl(_PR_SET_DUMPABLE, 1 if flag else 0)


def drop_capabilities() -> bool:
    """Give up every capability for good (running as root: no ptrace, no DAC override).

    No new privileges (setuid binaries stay powerless), then confinement's own
    drop (:func:`pytest_quest.confine._drop_capabilities`: the bounding and
    ambient sets, then the effective, permitted and inheritable ones). False
    when not on Linux or when ``capset`` refused.
    """
    if not sys.platform.startswith("linux"):
        return False
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    try:
        confine._drop_capabilities()
    except (OSError, AttributeError):  # AttributeError: a libc without capset
        return False
    return True


def _seal_relays() -> bool:
    """A fresh session keyring for this run alone, then the system calls a run may make and
    no others (:func:`pytest_quest.seccomp.install`): the kernel's counters and tables for the
    whole machine carried the measured run's answers to the runs after it (red teams 11-22).
    False where the kernel refuses (nothing else changes)."""
    try:
        confine.fresh_session_keyring()
        return seccomp.install()
    except OSError:
        return False


def own_memory() -> list[str]:
    """This process's memory as files: ``/proc/<pid>/mem`` and the same for each thread.

    A run is forked from a judge that read the target's text; the references
    are dropped before the test, but freed bytes stay in the heap, and a test
    read its own memory back and compiled the shipped function from it (red
    team 10, finding 01). Hidden with the target's file; a process the run
    forks later gets a ``/proc`` folder no rule of the layer covers, so it
    reads none of its files at all.
    """
    pid = os.getpid()
    paths = [f"/proc/{pid}/mem"]
    with contextlib.suppress(OSError):
        paths += [f"/proc/{pid}/task/{tid}/mem" for tid in os.listdir(f"/proc/{pid}/task")]
    return paths


def ancestors() -> list[str]:
    """The ``/proc`` folders of this process's ancestors (the zygote, the judge, PID 1).

    The zygote's ``/proc/<pid>/stat`` counts what its reaped children did
    (their page faults, their CPU time): the measured run took a chosen
    number of major faults, and every later run read the zygote's count
    (red team 13, finding 02). A run has nothing to read there.
    """
    found: list[str] = []
    pid = os.getppid()
    while pid > 0 and len(found) < 16:
        found.append(f"/proc/{pid}")
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                pid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def shipped_files(module: str, path: str) -> tuple[str, ...]:
    """The target's file and every copy of its module a process of the run could read.

    A run holds the code it tests in memory only; on disk the module stays
    the shipped code, in the sandbox copy and wherever the project is also
    installed (``site-packages``, with its ``.pyc``): a child Python that
    imports it, or the test reading it, has the shipped function to compare
    the installed one with (red team 9, finding 02).
    """
    tail = module.replace(".", os.sep)
    rel = os.path.join(tail, "__init__.py") if os.path.basename(path) == "__init__.py" \
        else tail + ".py"
    found = {os.path.realpath(path)}
    for entry in dict.fromkeys(os.path.realpath(e or os.curdir) for e in sys.path):
        candidate = os.path.join(entry, rel)
        if os.path.isfile(candidate):
            found.add(os.path.realpath(candidate))
        cache = os.path.join(os.path.dirname(candidate), "__pycache__")
        stem = os.path.splitext(os.path.basename(candidate))[0] + "."
        with contextlib.suppress(OSError):
            found.update(os.path.realpath(os.path.join(cache, name))
                         for name in os.listdir(cache)
                         if name.startswith(stem) and name.endswith(".pyc"))
    return tuple(sorted(found))


# ---------------------------------------------------------------------- zygote
#: What the zygote tells the judge: a tag (``J`` joined the runs cgroup, ``P`` the pid of a
#: run it started, ``E`` a run it reaped, ``W`` the page cache emptied, ``O`` a run's output,
#: as many bytes as the number says, follows), a number and, for ``E``, when
#: (``time.monotonic()``).
_MESSAGE = struct.Struct("!cid")


class Zygote:
    """The judge's handle on the zygote process: ask for a run child, learn when it ended."""

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid = pid
        self.sock = sock
        self._buffer = b""
        #: Run children the zygote reaped and cleaned up after, with when it did (monotonic).
        self._ended: dict[int, float] = {}
        #: The zygote joined the runs cgroup and can empty its page cache (:meth:`start`).
        self.evicts = False

    @classmethod
    def start(cls, child: Callable[[int, int, int, str], NoReturn], close_fds: Sequence[int],
              base_tmp: str, evict: tuple[int, int] | None = None) -> Zygote:
        """Fork the zygote; ``child(request_fd, answer_fd, start_fd, run_dir)`` runs in each run.

        ``evict``: the runs cgroup's ``cgroup.procs`` and the knob that empties it
        (:meth:`pytest_quest.cgroups.ProcessLimits.evictor`). The zygote joins it,
        so every run is born there (moving each run would cost a grace period of
        the kernel's, tens of milliseconds), and empties its page cache when
        asked (:meth:`evict`)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        _flush()
        pid = _fork()
        if pid == 0:
            ours.close()
            for fd in close_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            evict_fd = None
            if evict is not None and cgroups.join_runs_cgroup(evict[0]):
                evict_fd = evict[1]
            theirs.sendall(_MESSAGE.pack(b"J", int(evict_fd is not None), 0.0))
            _zygote(theirs, child, base_tmp, evict_fd)
        theirs.close()
        zygote = cls(pid, ours)
        tag, joined, _ = zygote._message(10.0)
        zygote.evicts = tag == b"J" and joined == 1
        return zygote

    def spawn(self, request_fd: int, answer_fd: int, start_fd: int) -> int:
        """Have the zygote fork a run child holding these three pipe ends; its pid."""
        socket.send_fds(self.sock, [b"F"], [request_fd, answer_fd, start_fd])
        return self._answer(b"P")

    def evict(self) -> None:
        """Have the zygote empty the page cache the runs so far faulted in
        (:func:`pytest_quest.cgroups.evict`); every earlier run must have ended."""
        self.sock.sendall(b"W")
        self._answer(b"W")

    def _answer(self, expected: bytes) -> int:
        """The number of the zygote's next ``expected`` message (ends noted on the way)."""
        while True:
            tag, number, clock = self._message(None)
            if tag == expected:
                return number
            self._ended[number] = clock

    def wait_ended(self, pid: int, timeout: float = 10.0) -> float | None:
        """Wait until the zygote reaped ``pid`` and cleaned up after it; when it had
        (``time.monotonic()``), or None if it had not within ``timeout``."""
        deadline = time.monotonic() + timeout
        while pid not in self._ended:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            tag, other, clock = self._message(left)
            if tag == b"E":
                self._ended[other] = clock
        return self._ended.pop(pid)

    def _message(self, timeout: float | None) -> tuple[bytes, int, float]:
        """The zygote's next message; a run's output (``O``) is passed on to this process's
        stdout on the way, whole, and is no message of its own."""
        while True:
            if not self._fill(_MESSAGE.size, timeout):
                return b"", 0, 0.0
            tag, number, clock = _MESSAGE.unpack(self._buffer[:_MESSAGE.size])
            if tag != b"O":
                self._buffer = self._buffer[_MESSAGE.size:]
                return tag, number, clock
            self._fill(_MESSAGE.size + number, None)
            output = self._buffer[_MESSAGE.size:_MESSAGE.size + number]
            self._buffer = self._buffer[_MESSAGE.size + number:]
            with contextlib.suppress(OSError):
                _write_all(1, output)

    def _fill(self, size: int, timeout: float | None) -> bool:
        """Read until ``size`` bytes are buffered; False if none came within ``timeout``."""
        while len(self._buffer) < size:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if not ready:
                return False
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the zygote is gone")
            self._buffer += chunk
        return True

    def stop(self) -> None:
        self.sock.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _fork() -> int:
    """``os.fork()`` without its warning about threads (Python 3.12+).

    A plugin may have started a thread in the judge; the forked processes
    only run Python on their main thread. The warning must not reach a
    project whose ``filterwarnings = error`` would turn it into an error.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _zygote(sock: socket.socket, child: Callable[[int, int, int, str], NoReturn],
            base_tmp: str, evict_fd: int | None = None) -> NoReturn:
    """The zygote's loop: fork a run child per request, reap, clean up, report the end."""
    active: dict[int, str] = {}
    dirs = RunDirs(base_tmp)
    try:
        gc.freeze()  # what every run inherits stays shared: no copy-on-write for the collector
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        while True:
            waiting: list[Any] = [sock, wake_r]
            ready, _, _ = select.select(waiting, [], [])
            if wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
            _reap(active, sock)
            if sock not in ready:
                continue
            message, fds, _, _ = socket.recv_fds(sock, 1, 3)
            if message == b"W" and not fds:
                if evict_fd is not None:
                    cgroups.evict(evict_fd)
                sock.sendall(_MESSAGE.pack(b"W", 0, 0.0))
                continue
            if not message or len(fds) != 3:
                break
            run_dir = dirs.take()
            _flush()
            apart = confine.run_namespaces()
            if apart:  # the run's child says why, when it is not PID 1 of a namespace of its own
                with contextlib.suppress(OSError):
                    confine.new_pid_namespace_for_next_child()
            pid = _fork()
            if apart and pid:
                with contextlib.suppress(OSError):  # else the next run cannot start: it says so
                    confine.own_pid_namespace_again()
            if pid == 0:
                sock.close()
                os.close(wake_r)
                os.close(wake_w)
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                child(fds[0], fds[1], fds[2], run_dir)
            for fd in fds:
                os.close(fd)
            active[pid] = run_dir
            sock.sendall(_MESSAGE.pack(b"P", pid, 0.0))
    finally:
        for pid in list(active):  # the judge stopped listening: its log gets what they said
            with contextlib.suppress(OSError):
                _write_all(1, _end(pid, active.pop(pid)))
        _kill_orphans(set())
        dirs.discard()
        os._exit(0)


class RunDirs:
    """Run dirs (each with its output file) made ahead in batches, handed out at random.

    A run finds its dir through its output file's link, and the inode numbers
    of a tmpfs count up: made as each run was forked, they told a run how many
    had come before it (red team 25), which is what a relay through the time
    the runs before it took needs to know to read it. Made ahead, a batch at a
    time, and taken in a random order, they tell a run only its batch.

    The batch's paths stay in the zygote's memory, taken or not, until the
    next batch: a run is forked with a copy of that memory, and one path freed
    for each run that had ended was a count of them in the allocator's figures
    (``sys._debugmallocstats``: red team 66). The flags of what was taken are a
    buffer of a fixed size, so no list shrinks or grows either.
    """

    #: Dirs made at a time: more than the runs of most submissions (25 for the demo).
    BATCH = 64

    def __init__(self, base: str) -> None:
        self.base = base
        self._batch: list[str] = []
        self._taken = bytearray(self.BATCH)
        self._random = random.SystemRandom()

    @property
    def free(self) -> list[str]:
        """The dirs of the batch no run has taken."""
        return [path for path, taken in zip(self._batch, self._taken[:len(self._batch)],
                                            strict=True) if not taken]

    def take(self) -> str:
        if all(self._taken[:len(self._batch)]):  # none made yet, or every one taken
            made: list[str] = []
            for _ in range(self.BATCH):
                path = tempfile.mkdtemp(dir=self.base)
                os.close(os.open(os.path.join(path, RUN_OUTPUT),
                                 os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                made.append(path)
            self._batch, self._taken[:] = made, bytes(self.BATCH)
        left = [index for index, taken in enumerate(self._taken) if not taken]
        index = left[self._random.randrange(len(left))]
        self._taken[index] = 1
        taken = self._batch[index]
        # Its times become the moment its run starts, which the run can read on its clock
        # anyway: the batch's moment, the same in every run, was a value all of them shared
        # that no run had set (a digest of the answers equal to its phase: 1 submit in D).
        for path in (taken, os.path.join(taken, RUN_OUTPUT)):
            os.utime(path)
        return taken

    def discard(self) -> None:
        """Remove the dirs no run took."""
        for path in self.free:
            safeio.remove_tree(path)
        self._taken[:] = b"\x01" * self.BATCH


def _reap(active: dict[int, str], sock: socket.socket) -> None:
    """Reap every ended child; for a run child, kill its leftovers and remove its temp dir."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        run_dir = active.pop(pid, None)
        if run_dir is None:
            continue  # an orphan of some run, reparented here and killed below
        output = _end(pid, run_dir)
        _kill_orphans(set(active))
        try:
            if output:
                sock.sendall(_MESSAGE.pack(b"O", len(output), 0.0) + output)
            sock.sendall(_MESSAGE.pack(b"E", pid, time.monotonic()))
        except OSError:  # the judge is gone: its log still gets what the run said
            with contextlib.suppress(OSError):
                _write_all(1, output)


def _end(pid: int, run_dir: str) -> bytes:
    """Kill what is left of a run, remove its temp dir; the end of its output."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, ChildProcessError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    output = _run_output(run_dir)
    # Iterative and permission-restoring: a run can leave a tree deeper than the recursion
    # limit or folders it made unreadable; neither may stop the zygote before the next run.
    safeio.remove_tree(run_dir)
    return output


#: A run's own stdout and stderr, in its temp dir (:func:`own_descriptors`); its end goes on
#: to the harness's output, where the gate's output tail comes from (:func:`_run_output`).
RUN_OUTPUT = ".run-output"
#: What of a run's output is passed on: the gate shows the last few thousand characters.
MAX_RUN_OUTPUT = 256 * 1024


def _run_output(run_dir: str) -> bytes:
    """The end of the run's own output, for the harness's log, where the gate's output tail
    comes from. The judge writes it there (the zygote sends it, ``O``): a page the zygote
    wrote to that file was charged to the runs cgroup, dirty, and emptying the cgroup's page
    cache waited for its write-back, 100 ms before every wave of runs on Linux 6.18."""
    try:
        with open(os.path.join(run_dir, RUN_OUTPUT), "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - MAX_RUN_OUTPUT))
            return handle.read(MAX_RUN_OUTPUT)
    except OSError:
        return b""


def open_run_output(run_dir: str) -> int:
    """The run's own stdout and stderr (:func:`own_descriptors`), in its temp dir.

    Opened before the run enters a mount namespace of its own: writes
    through it land where the zygote reads them, and the run's copy of that
    mount holds no writer, so it can be made read-only (a mount with an open
    writer cannot).
    """
    return os.open(os.path.join(run_dir, RUN_OUTPUT), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                   0o600)


def own_descriptors(output: int) -> None:
    """Give this run descriptors of its own for everything it inherited on a file.

    A descriptor inherited from the judge shares one open file description
    with every other run: its offset, its open-file-description locks and,
    for the harness's log, the file's size outlive the run that changed them.
    The measured run (then always first) locked a byte of pytest's capture file
    (``F_OFD_SETLK`` on fd 1) or grew the log at an offset, and the runs
    after it read the shipped function's answers back (red team 12). So
    stdout and stderr become ``output`` (:func:`open_run_output`; its end goes
    on to the log, :func:`_run_output`), a folder is opened
    again, and everything else (the spec, ``/dev/null``, a namespace's descriptor, which
    translated a run's pids into the harness's namespace, whose counter every run moves:
    red team 24) becomes a fresh ``/dev/null``. Pipes and sockets (the run's own answer
    pipe) stay. Call
    it with pytest's global capture stopped: its saved descriptors are the
    log's too.
    """
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd in (null, output):
                continue
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
                inheritable = os.get_inheritable(fd)
            except OSError:
                continue  # the listing's own descriptor, closed by now
            if fd in (1, 2):
                os.dup2(output, fd, inheritable=inheritable)
            elif target.startswith(("pipe:[", "socket:[")):
                continue
            elif target.startswith("/") and os.path.isdir(target):
                fresh = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
                os.dup2(fresh, fd, inheritable=inheritable)
                os.close(fresh)
            else:
                os.dup2(null, fd, inheritable=inheritable)
    finally:
        os.close(null)
        os.close(output)


def _kill_orphans(keep: set[int]) -> None:
    """Kill every child of this process but the running ones (the subreaper's catch)."""
    me = os.getpid()
    for _ in range(20):
        found = [pid for pid in _children(me) if pid not in keep]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children(parent: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                out.append(int(name))
    return out


# ------------------------------------------------------------------- the runs
#: Seconds a run without a time limit yet (before the first judged clean run, ``M``, ended) may
#: hold its place before one more run starts beside it: a mutant that loops for ever must not
#: keep ``M`` from starting (runs not in waves; in waves ``M`` is in the first one).
HOLD = 1.0


class ForkRuns:
    """:class:`pytest_quest.mutate.Runs` over the zygote: up to ``parallel`` children at once."""

    def __init__(self, zygote: Zygote, parallel: int = 1,
                 known: Known | None = None,
                 read_coverage: Callable[[dict[str, Any]], tuple[dict[str, Any], str | None]]
                 | None = None, backstop: float = 3600.0, waves: bool = False,
                 prepare_coverage: Callable[[], None] | None = None) -> None:
        self.zygote = zygote
        self.parallel = max(1, parallel)
        #: Runs go in waves of ``parallel``: a wave starts once every run of the one before
        #: has ended and been cleaned up, and the zygote first empties the page cache they
        #: faulted in (:func:`pytest_quest.cgroups.evict`). No run can read another's marks
        #: but those of its own wave (red team 16). Only where the zygote can evict.
        self.waves = waves
        #: The body's statements and arcs as the judge computed them before the fork, whole:
        #: the start record carries at most the first 1000 and 600 (red team 6, finding 03).
        self.known = known
        #: Turns what the measuring run executed into coverage.py's report of the target file
        #: (in the judge: the run sends raw lines or arcs, like every run).
        self.read_coverage = read_coverage
        #: Called once the measuring run is under way: the judge reads the measured files
        #: for that report meanwhile, not after the run, with both cores idle.
        self.prepare_coverage = prepare_coverage
        #: Every run's own limit (CPU and wall clock) should the judge's kill never come: the
        #: same for all, so no run learns from it whether the measured one has ended.
        self.backstop = backstop
        #: The pause before each wave (waves only): as wide as the test code so far ran.
        self.gaps = Gaps()
        #: Ended runs not yet reaped: is it clean, since when did its time count as its own,
        #: and when did the judge finish its answer.
        self._began: dict[int, tuple[bool, float, float]] = {}
        #: When the last run reaped so far was done with (reaped and its answer handled).
        self._last_end = 0.0

    def run(self, requests: Sequence[mutate.RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[mutate.Ran | None]:
        results: list[mutate.Ran | None] = [None] * len(requests)
        pending = list(enumerate(requests))
        flying: dict[int, _Flight] = {}
        # Answered runs whose end the zygote has yet to report. The next run starts first:
        # an answer is whole at its pipe's end of file (no process of the run holds it any
        # more), so waiting for the reaping and clean-up kept a core idle, about 3 ms a run.
        # At most ``parallel`` of them wait (a run's leftovers count against the same process
        # and memory limits as the next run), and all before the schedule is done.
        ending: list[int] = []
        schedule = _Schedule(skip, finished, later)
        try:
            self._schedule(requests, deadline, schedule, results, pending, flying, ending)
        finally:
            for pid in ending:
                self._reaped(pid)
        return results

    def _schedule(self, requests: Sequence[mutate.RunRequest], deadline: float,
                  schedule: _Schedule, results: list[mutate.Ran | None],
                  pending: list[tuple[int, mutate.RunRequest]], flying: dict[int, _Flight],
                  ending: list[int]) -> None:
        while pending or flying:
            limit = schedule.limit(flying.values())
            wave = not flying  # waves: the next one starts once nothing is in flight
            while pending and len(flying) < self._capacity(flying.values()) and \
                    (wave or not self.waves):
                index, request = pending[0]
                timeout = request.timeout if request.timeout is not None else limit
                if timeout is not None and math.isfinite(timeout) and \
                        time.monotonic() + timeout > deadline:
                    pending.clear()  # not started: the stage counts them as not run
                    break
                pending.pop(0)
                if schedule.skip is not None and schedule.skip(index, results):
                    continue
                wave_starts = self.waves and not flying
                while ending and (wave_starts or len(ending) >= self.parallel):
                    self._reaped(ending.pop(0))  # what a run left behind is gone
                if wave_starts:
                    self._between_waves()
                flight = self._launch(index, request, timeout)
                flying[flight.fd] = flight
                if request.measure and self.prepare_coverage is not None:
                    self.prepare_coverage()
            if not flying:
                break
            now = time.monotonic()
            wait = min(f.deadline for f in flying.values()) - now
            if any(f.open for f in flying.values()):
                wait = min(wait, HOLD / 4)  # look again: a held place may free one more
            ready, _, _ = select.select(list(flying), [], [], max(0.0, min(wait, 3600.0)))
            for fd in ready:
                flight = flying[fd]
                if flight.read():
                    del flying[fd]
                    self._done(flight, self._finish(flight), results, ending, schedule)
            now = time.monotonic()
            for fd, flight in list(flying.items()):
                if fd not in ready and now >= flight.deadline:
                    del flying[fd]
                    self._done(flight, self._finish(flight, timed_out=True), results, ending,
                               schedule)

    def _capacity(self, flying: Iterable[_Flight]) -> int:
        """``parallel``, plus one for each run without a time limit that held its place a while
        (at most ``parallel`` more)."""
        if self.waves:
            return self.parallel
        now = time.monotonic()
        held = sum(1 for f in flying if f.open and now - f.started > HOLD)
        return self.parallel + min(held, self.parallel)

    def _between_waves(self) -> None:
        """Empty the page cache the last wave faulted in, then pause: the next wave's start
        must not tell when the last one ended, nor how long emptying what it left took (a
        run can have the kernel read files ahead into the cache and leave at once)."""
        self.zygote.evict()
        if self._last_end:  # everything since the last run was done with: reaping, emptying
            self.gaps.ended(False, time.monotonic() - self._last_end)
            self._last_end = 0.0
        self.gaps.pause()

    def _reaped(self, pid: int) -> None:
        """Wait until the zygote reaped ``pid``; count its time towards the pause: from its
        test code's start to the later of its reaping and the judge's handling of its answer,
        whose size the run chose (red team 26 padded it to move the next wave by seconds)."""
        ended = self.zygote.wait_ended(pid)
        now = time.monotonic()
        clean, began, handled = self._began.pop(pid, (False, now, now))
        end = max(now if ended is None else ended, handled)
        self._last_end = max(self._last_end, end)
        self.gaps.ended(clean, end - began)

    def _done(self, flight: _Flight, ran: mutate.Ran, results: list[mutate.Ran | None],
              ending: list[int], schedule: _Schedule) -> None:
        results[flight.index] = ran
        ending.append(flight.pid)
        if schedule.finished is not None:
            schedule.finished(flight.index, ran)
        handled = time.monotonic()
        # A run the judge cut short ended when the judge chose: only what came after counts.
        self._began[flight.pid] = (flight.clean, handled if ran.status == mutate.TIMED_OUT
                                   else flight.began, handled)

    def _launch(self, index: int, request: mutate.RunRequest, timeout: float | None
                ) -> _Flight:
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        start_r, start_w = os.pipe()
        try:
            pid = self.zygote.spawn(request_r, answer_w, start_w)
        finally:
            os.close(request_r)
            os.close(answer_w)
            os.close(start_w)
        module = marshal.dumps(request.module)
        # The same header for every run but the measuring one, which comes after the first
        # schedule: nothing says which clean run the gate judges first.
        header = json.dumps({"module": len(module), "measure": request.measure,
                             "backstop": self.backstop,
                             "deselect": sorted(request.deselect),
                             "unrecorded": sorted(request.unrecorded)}).encode()
        with contextlib.suppress(BrokenPipeError):
            _write_all(request_w, header + b"\n" + module)
        os.close(request_w)
        started = time.monotonic()
        return _Flight(index, pid, answer_r, start_r, started,
                       math.inf if timeout is None else started + timeout,
                       measure=request.measure, open=timeout is None, clean=request.clean)

    def _finish(self, flight: _Flight, timed_out: bool = False) -> mutate.Ran:
        if timed_out or flight.oversized:
            with contextlib.suppress(ProcessLookupError):
                os.kill(flight.pid, signal.SIGKILL)
        os.close(flight.fd)
        seconds = time.monotonic() - flight.started
        where = f"the report of run {flight.index + 1}"
        try:
            begun = parse_run_start(_read_start(flight.start_fd), where)
            start_error = None
        except ProtocolError as exc:
            begun, start_error = None, exc
        if begun is not None and begun.clock is not None:  # test code began then, not before
            flight.began = min(max(flight.began, begun.clock), time.monotonic())
        if flight.oversized:
            return mutate.Ran(mutate.TAMPERED, seconds, tampered=Tampering(
                where, f"at most {MAX_REPORT_BYTES} bytes", "more than that"))
        if timed_out:
            return mutate.Ran(mutate.TIMED_OUT, seconds, found=_found_before(flight, where))
        try:
            found, answer = split_run_answer(bytes(flight.data), where)
            if not answer:
                return mutate.Ran(mutate.DIED, seconds, found=found)
            report = parse_run_report(answer, where)
            if start_error is not None:
                raise start_error
            # The hooks wrote them as they saw them: the answer cannot unsay them.
            merged: dict[str, Any] = {name: tuple(dict.fromkeys((*texts, *getattr(
                report, name)))) for name, texts in found.items()}
            report = replace(report, **merged)
            if flight.measure and report.executed is not None and self.read_coverage:
                files, error = self.read_coverage(report.executed)
                report = replace(report, coverage=files, coverage_error=error)
            report = settle(replace(report, executed=None), begun, where, self.known)
        except ProtocolError as exc:
            return mutate.Ran(mutate.TAMPERED, seconds,
                              tampered=Tampering(exc.where, exc.expected, exc.actual))
        return mutate.Ran(mutate.ANSWERED, seconds, report)


def _found_before(flight: _Flight, where: str) -> dict[str, tuple[str, ...]]:
    """What the hooks of a run cut short had written: its whole lines before the cut."""
    data = bytes(flight.data)
    try:
        return split_run_answer(data[:data.rfind(b"\n") + 1], where)[0]
    except ProtocolError:
        return {}  # not the hooks' lines: the run wrote there itself, and it was cut short


class _Schedule:
    """What the stage asked of one :meth:`ForkRuns.run`: its skip, its end and its late limit."""

    def __init__(self, skip: mutate.Skip | None, finished: mutate.Finished | None,
                 later: mutate.Later | None) -> None:
        self.skip = skip
        self.finished = finished
        self.later = later
        self.known: float | None = None

    def limit(self, flying: Iterable[_Flight]) -> float | None:
        """The late time limit once known; runs started without one get it from their start."""
        if self.known is None and self.later is not None:
            self.known = self.later()
            if self.known is not None:
                for flight in flying:
                    if flight.open:
                        flight.open = False
                        flight.deadline = flight.started + self.known
        return self.known


class _Flight:
    """One run in progress, seen from the judge."""

    def __init__(self, index: int, pid: int, fd: int, start_fd: int, started: float,
                 deadline: float, measure: bool = False, open: bool = False,
                 clean: bool = False) -> None:
        self.index = index
        self.pid = pid
        self.fd = fd
        #: The run's "test code starts now" pipe, read once the run ended.
        self.start_fd = start_fd
        self.started = started
        #: When its test code began, as its start record says (until read: its start).
        self.began = started
        #: It installs the shipped code (``M`` or a control).
        self.clean = clean
        self.deadline = deadline
        #: The judge reads this run's coverage.
        self.measure = measure
        #: Started before any time limit was known: none yet.
        self.open = open
        self.data = bytearray()
        self.oversized = False

    def read(self) -> bool:
        """Read what is there; True at the end of the answer (or past the size bound)."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return True
        self.data += chunk
        if len(self.data) > MAX_REPORT_BYTES:
            self.oversized = True
            return True
        return False


#: The run's answer is written with this, taken before any test code: a test that replaced
#: ``json.dumps`` rewrote the answer of its run, the code watch's findings included (red team
#: 26, and in-house: a test erased its read of the target's ``__code__``).
_ENCODE = json.JSONEncoder(default=str).encode


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_start(fd: int) -> bytes:
    """The start record of an ended run (its writer is gone: what is there is all there is).

    Read without blocking: a process of the run still holding the pipe open
    cannot stall the judge; what it has not written by now is not counted.
    """
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= MAX_START_BYTES:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


# ------------------------------------------------------------------ the judge
class Judge:
    """The pytest plugin of the judge process; in each run child, the run's recorder too."""

    def __init__(self, spec: HarnessSpec, channel: Channel, pristine: Pristine,
                 cov: coverage.Coverage, facts: TargetFacts, seed_fd: int | None,
                 finish: Callable[[int | None, bool], NoReturn],
                 own_coverage: str | None = None, confined: str = "", *,
                 fresh_coverage: Callable[[], coverage.Coverage]) -> None:
        assert spec.target is not None
        self.spec = spec
        self.target = spec.target
        self.channel = channel
        self.pristine = pristine
        self.cov = cov
        #: A new, empty ``coverage.Coverage`` set up like ``cov``: the judge's report of a
        #: measured run's lines (``cov`` holds the judge's own, which are not the test's).
        self.fresh_coverage = fresh_coverage
        #: One of those with coverage.py's reading of the measured files done (their
        #: statements, exclusions and arcs), made while the measuring run runs
        #: (:meth:`_prepare_report`); the report after it only adds the run's lines.
        self._prepared: tuple[coverage.Coverage, dict[str, Any]] | None = None
        #: The pipe holding the schedule's seed, read only after the zygote is forked.
        self.seed_fd = seed_fd
        #: Where pytest-quest's own test suite keeps its coverage data (writable in runs).
        self.own_coverage = own_coverage
        #: The kernel confinement the harness entered ("" when none): runs may start processes.
        self.confined = confined
        #: The def at the quest's line ("" and 0: none there, no recorder; mutation says why).
        self.name, self.first_line = facts.name, facts.first_line
        #: What the code watch of each run compares compiled text with (hashes of lines).
        self.fingerprint = (facts.function, facts.body)
        #: The exit status the harness reports; None: the measured run gave no report.
        self.exitstatus: int | None = 0
        #: Set in a run child only.
        self.run: _ChildRun | None = None
        #: Reports the exit status and ends the process once judged (:func:`harness.finish`).
        self.finish = finish
        #: Round 1 is done: the first judged clean run passed, or the measuring run reported.
        self.round_one = False
        #: Decided in the judge before the fork (:meth:`_installed_before_fork`).
        self.install = "import"
        self.trusted_lines: frozenset[int] = frozenset()
        #: The body's statements and arcs by coverage.py's static analysis: what each measured
        #: run announces (learned apart, :mod:`pytest_quest.targetfacts`).
        self.known: Known | None = facts.known
        #: The files no run may read (:func:`shipped_files`, found before the fork).
        self.hidden: tuple[str, ...] = ()

    # ----------------------------------------------------------- in the judge
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> NoReturn:
        """Fork the zygote here (pytest is set up, no test module is imported yet), judge, end.

        The judge runs no test itself, so nothing follows: the process
        reports and leaves from here (:func:`pytest_quest.harness.finish`).
        """
        test_path = os.path.join(self.spec.sandbox, self.spec.test_file or "")
        _rewrite_once(session.config, test_path)
        _compile_patterns(session.config, test_path)
        base_tmp = self.runs_base()
        os.makedirs(base_tmp, exist_ok=True)
        runs_dir = hidden_runs_dir(base_tmp)
        # Stopped before the fork: the measured child starts it again and goes on with what it
        # saw at start-up; no other run measures. (Also what coverage.py's own fork handling,
        # used by pytest-quest's suite, expects to find as the current collector.)
        self.cov.stop()
        self.pristine.before_exec = None  # no run starts the judge's measuring on its own
        self.install, self.trusted_lines = self._installed_before_fork()
        # Static: what the body has, not what ran. The start record is capped to fit a pipe;
        # the answer must list all of these (red team 6, finding 03).
        # The interpreter's internals are masked by the harness's mount namespace; where
        # there is none, each run's Landlock layer hides them too.
        self.hidden = (*shipped_files(self.target.module, self.pristine.path), *(
            () if "namespaces" in self.confined else confine.internals_files()))
        if confine.run_namespaces():  # each run lays the gate's copies over its /proc counters
            confine.freeze_counters(os.path.join(self.spec.private_dir, confine.COUNTERS))
        preload(test_path, self.spec.sandbox)
        _known_readers()  # the modules every run has loaded by now, once, before the fork
        zygote = Zygote.start(lambda r, w, s, d: self._child(session, r, w, s, d),
                              [self.channel.fd, *self._seed_fds()], runs_dir,
                              self.spec.evict_fds)
        try:
            confine.apply_deferred()  # the zygote stays free to mount each run's namespaces
        except OSError as exc:
            zygote.stop()
            self.channel.emit(EventKind.ENV_ERROR, message=f"confinement failed: {exc}")
            self.finish(None, False)
        # No run may interrupt the judge (red team 2, 08): the Landlock layer of each run
        # blocks its signals from ABI 6; ignoring SIGINT here covers kernels without it.
        # The gate ends a judge with SIGKILL only. (Set after the fork: runs keep Ctrl-C.)
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self._judge(ForkRuns(zygote, _parallel(), self.known, self._read_coverage,
                                 prepare_coverage=self._prepare_report,
                                 backstop=max(self.spec.budget, 60.0),
                                 waves=zygote.evicts))
        except (ConnectionError, BrokenPipeError, KeyboardInterrupt):
            # The zygote is gone or the judge was interrupted: only a run (test code) can do
            # that. No report (run-no-report), never "our fault".
            self.exitstatus = None
        finally:
            signal.signal(signal.SIGINT, previous)
            zygote.stop()
            reopen(runs_dir)
        # Judged: pytest's own session teardown adds nothing.
        self.finish(self.exitstatus, zygote.evicts)

    def runs_base(self) -> str:
        """The folder beside the sandbox copy that holds the zygote's run dirs (each run covers
        it: :func:`pytest_quest.confine.enter_run`)."""
        return os.path.join(os.path.dirname(self.spec.sandbox), "tmp")

    def _seed_fds(self) -> list[int]:
        return [] if self.seed_fd is None else [self.seed_fd]

    def _seed(self) -> str:
        """The schedule's seed, first read here: in the judge, after every fork of the zygote.

        From the gate (:mod:`pytest_quest.schedule`): secret, the same for the
        same submission on the same files. A harness started without one (our
        own tests) draws a fresh random seed: secret too, not repeatable.
        """
        if self.seed_fd is None:
            return secrets.token_hex(32)
        try:
            seed = _read_all(self.seed_fd).decode("ascii", "replace").strip()
        finally:
            os.close(self.seed_fd)
            self.seed_fd = None
        return seed if len(seed) == 64 else secrets.token_hex(32)

    def _installed_before_fork(self) -> tuple[str, frozenset[int]]:
        """How runs install the target, and the target's lines that ran in the judge already.

        Decided here, before any run exists, from what the judge itself
        imported: never from a run's answer (a test could claim either). When
        a conftest imported the module ("swap"), the lines it ran then ran in
        the judge, not in the test: reading them here moves them out of the
        collector into the judge's data, which a forked child starts afresh
        (coverage.py's fork handling), so the measured run's coverage is the
        test's alone and every line it lists is reach-checked (red team 6,
        finding 04). They serve only to tell an import-time-only body.
        """
        if self.target.module not in sys.modules:
            return "import", frozenset()
        lines: set[int] = set()
        with contextlib.suppress(Exception):
            data = self.cov.get_data()
            for name in {self.pristine.path, os.path.realpath(self.pristine.path)}:
                lines.update(data.lines(name) or ())
        return "swap", frozenset(lines)

    def _judge(self, runs: ForkRuns) -> None:
        emit = self.channel.emit
        module = self.pristine.module_code  # the first read of the file: the zygote exists
        assert module is not None
        stage = mutate.run_stage(runs, mutate.StageInput(
            source=self.pristine.text, filename=self.pristine.path,
            def_line=self.target.lines[0], module=module,
            target_file=self.target.file, body=self.target.body, branch=self.spec.branch,
            reruns=self.spec.reruns, budget=self.spec.budget,
            seed=self._seed(),
            mutation=self.spec.mutation,
            statements=None if self.known is None else frozenset(self.known[0]),
            wave=runs.parallel if runs.waves else 0,
            install=self.install, trusted_lines=self.trusted_lines,
            claimed=frozenset(self.spec.claimed),
            deselect=self._deselect(),
        ), self._measured, self._first_round)
        report = stage.measured
        if report is None:
            return
        if report.import_error is not None:
            self.exitstatus = report.exitstatus
            return
        if report.failed and report.failed.startswith("<"):
            self.exitstatus = None  # pytest.exit(), a broken run: pytest did not report
            return
        if stage.tampered is not None:
            emit(EventKind.TAMPERED, **vars(stage.tampered))
        for what in stage.reads:
            if what not in report.reads:
                emit(EventKind.TARGET_READ, what=what)
        for what in stage.denied:
            if what not in report.denied:
                emit(EventKind.DENIED, what=what)
        for number, control in enumerate(stage.controls, start=2):
            emit(EventKind.ROUND_DONE, round=number, **control)
        if stage.mutation is not None:
            emit(EventKind.MUTATION, **stage.mutation, paused=round(runs.gaps.total, 3))
        self.exitstatus = report.exitstatus

    def _deselect(self) -> frozenset[str]:
        """The test functions that cannot reach the target, read from the files
        (:mod:`pytest_quest.selection`); none when they cannot be read."""
        if not self.spec.test_file:
            return frozenset()
        try:
            # Bytes: decoded by its coding cookie, as its import decodes it (red team 67 hid
            # the checks from a UTF-8 reading behind ``unicode_escape``).
            with open(os.path.join(self.spec.sandbox, self.spec.test_file), "rb") as handle:
                data = handle.read(MAX_TEST_BYTES + 1)
            return unreachable_tests(data, self.pristine.text, self.target.lines[0])
        except (OSError, ValueError, RecursionError, MemoryError):
            return frozenset()

    def _first_round(self) -> None:
        """The first judged clean run passed: round 1 is done (the gate's first time limit)."""
        if not self.round_one:
            self.round_one = True
            self.channel.emit(EventKind.ROUND_DONE, round=1)

    def _measured(self, ran: mutate.Ran) -> RunReport | None:
        """The measuring run has ended: its events, and the report to judge (or None)."""
        if ran.status == mutate.TAMPERED and ran.tampered is not None:
            self.channel.emit(EventKind.TAMPERED, **vars(ran.tampered))
            self.exitstatus = 1
            return None
        if ran.status != mutate.ANSWERED or ran.report is None:
            for what in ran.reads():  # its hooks saw it read the target before it ended
                self.channel.emit(EventKind.TARGET_READ, what=what)
            self.exitstatus = None  # no report: the process "ended before reporting"
            return None
        report = ran.report
        if report.error:
            self.channel.emit(EventKind.ENV_ERROR,
                              message=f"the run could not start: {report.error}")
            return None
        self._emit_measured(report)
        return report

    def _read_coverage(self, executed: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """coverage.py's report of what the measuring run executed of the target's file.

        Made here from the run's raw lines (or arcs) and the judge's own copy
        of the shipped text. Names the run gives for any other file are left out.
        """
        import io

        from coverage.jsonreport import JsonReporter

        spec = self.spec
        wanted = {os.path.realpath(os.path.join(spec.sandbox, f)) for f in spec.measure_files}
        mine = {name: entry for name, entry in executed.items()
                if os.path.realpath(name) in wanted}
        prepared, self._prepared = self._prepared, None  # used once: its data is this run's
        try:
            cov = prepared[0] if prepared is not None else self.fresh_coverage()
            data = cov.get_data()
            if spec.branch:
                data.add_arcs({name: [(int(a), int(b)) for a, b in entry.get("arcs", ())]
                               for name, entry in mine.items()})
            else:
                data.add_lines({name: list(entry.get("lines", ())) for name, entry in mine.items()})
            out = io.StringIO()
            with self._reading(), _reporters(cov, prepared[1] if prepared is not None else {}):
                JsonReporter(cov).report(self._measured_files(), out)
        except Exception as exc:
            return {}, str(exc)
        return coverage_entries(json.loads(out.getvalue()), spec.sandbox), None

    def _measured_files(self) -> list[str]:
        return [os.path.join(self.spec.sandbox, f) for f in self.spec.measure_files]

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """coverage.py reading the measured files: the target's from the shipped text, its
        warnings (a file it cannot parse) left to the report's error."""
        import warnings

        with warnings.catch_warnings(), _served(self.pristine.path, self.pristine.text):
            warnings.simplefilter("ignore")
            yield

    def _prepare_report(self) -> None:
        """Read the measured files as coverage.py's report will (parsing is most of its cost,
        24 ms of the demo's): called once the measuring run is under way, when the judge has
        nothing else to do and a core is free (the run is alone). A failure here leaves the
        report to do it all, and to say what went wrong."""
        if self._prepared is not None:
            return
        try:
            cov = self.fresh_coverage()
            cov.get_data()
            with self._reading():
                reporters = {name: cov._get_file_reporter(name)
                             for name in self._measured_files()}
                for reporter in reporters.values():
                    reporter.lines()  # parsed now, kept by the reporter
                    reporter.excluded_lines()
                    if self.spec.branch:
                        reporter.arcs()
                    # The functions and classes the report lists: coverage.py parses the file
                    # again for them on every report, so they are kept here too.
                    reporter.code_regions = _kept(tuple(reporter.code_regions()))  # type: ignore[method-assign]
        except Exception:
            return
        self._prepared = (cov, reporters)

    def _emit_measured(self, report: RunReport) -> None:
        emit = self.channel.emit
        for error in report.collect_errors:
            emit(EventKind.COLLECT_ERROR, **error)
        emit(EventKind.COLLECTED, count=len(report.collected), nodeids=list(report.collected))
        if report.import_error is not None:
            emit(EventKind.ENV_ERROR, message=report.import_error)
            return
        for entry in report.reports:
            emit(EventKind.REPORT, **entry)
        if report.missing:
            emit(EventKind.TARGET_MISSING, module=self.target.module,
                 qualname=self.target.qualname)
        for what in report.denied_early:
            emit(EventKind.DENIED, what=what, before_test=True)
        for what in report.denied:
            emit(EventKind.DENIED, what=what)
        for nodeid in report.replaced:
            emit(EventKind.TARGET_REPLACED, nodeid=nodeid)
        for what in report.reads:
            emit(EventKind.TARGET_READ, what=what)
        files = report.coverage or {}
        extra = {"error": report.coverage_error} if report.coverage_error else {}
        emit(EventKind.COVERAGE, files=files, **extra)
        self._first_round()

    # ------------------------------------------------------- in a run child
    def _child(self, session: pytest.Session, request_fd: int, answer_fd: int, start_fd: int,
               run_dir: str) -> NoReturn:
        answer: dict[str, Any] = {}
        run: _ChildRun | None = None
        try:
            os.setpgid(0, 0)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            output = open_run_output(run_dir)
            if confine.run_namespaces():
                confine.into_run_namespaces()  # only the run returns, PID 2 of its own
            # With namespaces of its own, its temp dir is a tmpfs at a short path; the folder the
            # zygote made holds its output only.
            temp = confine.RUN_TMP if confine.run_namespaces() else run_dir
            run = self._new_run(session, request_fd, start_fd, temp, output, answer_fd)
            self.run = run
            answer = run.execute()
        except BaseException as exc:
            if run is not None and run.started:
                # Test code ran: whatever broke is the test's doing, never our fault.
                answer = {"failed": f"<{type(exc).__name__}>"}
            else:
                answer = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            with contextlib.suppress(BaseException):
                _write_all(answer_fd, _ENCODE(answer).encode("utf-8"))
            with contextlib.suppress(OSError):
                os.close(answer_fd)
            _flush()
            os._exit(0)

    def _new_run(self, session: pytest.Session, request_fd: int, start_fd: int,
                 run_dir: str, output: int, answer_fd: int) -> _ChildRun:
        """The run its request asks for. Read here, not in :meth:`_child`: that frame stays on
        the stack while the test runs, and its locals (the request's bytes, the installed
        module) handed the test the installed code through ``f_locals`` (red team 8,
        finding 03)."""
        payload = _read_all(request_fd)
        os.close(request_fd)
        header, _, rest = payload.partition(b"\n")
        options = json.loads(header)
        module = marshal.loads(rest[:int(options["module"])])
        return _ChildRun(self, session, run_dir, bool(options["measure"]),
                         float(options["backstop"]), module, start_fd, output, answer_fd,
                         frozenset(options["deselect"]), frozenset(options["unrecorded"]))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if self.run is not None and report.failed:
            self.run.collect_errors.append({"nodeid": report.nodeid, **short_repr(report)})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.run is not None and self.run.measure:
            self.run.reports.append(report_event(report))
        elif self.run is not None and report.failed:
            self.run.failed_logged = True

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
        with self._recording(request.node):  # a fixture's own code may call the target
            return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector: pytest.Collector, name: str,
                                  obj: object) -> list[pytest.Item] | None:
        """A test function the run leaves out is not collected at all (its ``parametrize``
        cases not made): the filter after collection, which takes every other kind of item
        (``unittest`` methods, nested classes), would drop it anyway."""
        run = self.run
        if run is None or not run.deselect:
            return None
        return [] if item_key(f"{collector.nodeid}::{name}") in run.deselect else None

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        """The measured run's recorder listens while pytest collects a test module (its
        import: module-level code, ``parametrize`` arguments; a class's, whose methods'
        ``parametrize`` ids run then: red team 70), not the rest of pytest's
        collection: on 3.11 the recorder's profile hook slows every call it hears
        (:mod:`pytest_quest.recorder`). A hook, not a wrapper put into pytest's module:
        that module changed under the watch made pytest's traceback API untrusted while a
        test module's import error was reported (red team 55: an honest typo was told it
        walked frames)."""
        if self.run is None or self.run.recorder is None or \
                not isinstance(collector, pytest.Module | pytest.Class):
            return (yield)
        with self.run.recording():
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        """A fixture's teardown may call the target: heard like its setup (red team 69 called
        it only there, so no return type was heard and the extreme mutant returning that
        type's zero was never made). A left-out test that ends a class, a module or the
        session tears down fixtures kept tests set up: heard too."""
        ends_scope = nextitem is None or nextitem.parent is not item.parent
        with self._recording(None if ends_scope else item):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        try:
            with self._recording(item):
                return (yield)
        finally:
            if self.run is not None:
                self.run.check_target(item)

    def _recording(self, node: Any) -> contextlib.AbstractContextManager[None]:
        """The recorder's window for what ``node`` runs; none for a test the first schedule
        left out: each window costs two system-wide hook changes the seal checks, and a
        parametrized test sets up a fixture per argument (inflection: 1.4 s of a 1.9 s run)."""
        run = self.run
        if run is None or (run.unrecorded and isinstance(node, pytest.Item) and
                           item_key(node.nodeid) in run.unrecorded):
            return contextlib.nullcontext()
        return run.recording()


#: Packages the judge loads before the fork when the test file imports them (installed, not
#: the project's): each run would import them again (hypothesis: a fifth of a second), and
#: the watch trusts a maker of code only when it is loaded before the fork (hypothesis's
#: ``impersonate``: :func:`pytest_quest.watch.readers`).
PRELOADED = {"hypothesis": ("hypothesis", "hypothesis.strategies",
                            "hypothesis.strategies._internal.types")}


def preload(test_path: str, sandbox: str) -> None:
    """Load what :data:`PRELOADED` names for the packages the test file imports."""
    from pytest_quest.targetfacts import third_party_imports

    try:
        with open(test_path, "rb") as handle:
            source = handle.read().decode("utf-8", "replace")
        names = third_party_imports(source, sandbox)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the run reports what is wrong with the file
    for package in dict.fromkeys(name.split(".", 1)[0] for name in names):
        for module in PRELOADED.get(package, ()):
            with contextlib.suppress(BaseException):  # the run says what is wrong
                importlib.import_module(module)
    if "hypothesis" in sys.modules:
        with contextlib.suppress(BaseException):
            _prepare_hypothesis(sys.modules["hypothesis"])


def _prepare_hypothesis(hypothesis: Any) -> None:
    """hypothesis as every run would make it on first use, and without its ``explain`` phase.

    - Its own global ``Random``, made and registered the first time a test runs
      deterministically (``derandomize``): registering asks ``gc.get_referrers``, a walk of
      the process's objects for the watch (calibration: every honest derandomized ``@given``
      test FAILed). Made here once, every run inherits it.
    - Its settings as the project left them, but for the ``explain`` phase: once a test fails
      (in a mutant's run) it traces the test again to name the lines only failing examples
      ran (``sys.settrace``, each frame's code read), a tracer of the test's for the watch.
      What the gate judges is whether a test fails, never hypothesis's account of why.
    """
    from hypothesis.internal.entropy import deterministic_PRNG

    with deterministic_PRNG():
        pass
    settings, explain = hypothesis.settings, hypothesis.Phase.explain
    current = settings.default
    if explain not in current.phases:
        return
    settings.register_profile("pytest-quest", parent=current,
                              phases=[phase for phase in current.phases if phase is not explain])
    settings.load_profile("pytest-quest")


def _rewrite_once(config: pytest.Config, path: str) -> None:
    """Rewrite the test file's asserts once, in the judge, for every run to reuse.

    pytest rewrites a test module each time it is imported (the sandbox
    writes no ``.pyc``), which costs more than a small test file's whole run.
    Rewriting reads and compiles the file; it runs nothing. The result is
    served to this one path from pytest's own rewrite step in every child.
    Without that private function (another pytest), each run rewrites again.
    """
    from pathlib import Path

    rewrite: Any = importlib.import_module("_pytest.assertion.rewrite")
    original: Callable[[Path, pytest.Config], tuple[bytes, types.CodeType]] | None = getattr(
        rewrite, "_rewrite_test", None)
    if original is None:  # pragma: no cover - a pytest without it: slower, still right
        return
    target = Path(path)
    try:
        done = original(target, config)
    except Exception:  # a syntax error: the run's collection reports it
        return

    def rewrite_test(fn: Path, cfg: pytest.Config) -> tuple[bytes, types.CodeType]:
        return done if fn == target else original(fn, cfg)

    rewrite._rewrite_test = rewrite_test


def _collection_patterns(config: pytest.Config) -> list[str]:
    """The file-name patterns every run's collection matches paths against.

    ``norecursedirs`` and ``python_files`` (ini) and the doctest plugin's
    ``--doctest-glob``: pytest compiles each into a regular expression on
    first use, in every run again (its caches die with the run).
    """
    patterns: list[str] = []
    for name in ("norecursedirs", "python_files"):
        with contextlib.suppress(ValueError, KeyError):  # a pytest without that ini
            patterns += [str(p) for p in config.getini(name) or ()]
    with contextlib.suppress(ValueError, AttributeError):  # doctest plugin disabled
        patterns += [str(p) for p in config.getoption("doctestglob", None) or ["test*.txt"]]
    return patterns


def _compile_patterns(config: pytest.Config, path: str) -> int:
    """Compile the collection's file-name patterns once, in the judge, for every run to inherit.

    Matching runs nothing of the project or the test: only pytest's own
    pattern matcher on the test file's path (the compiled expressions land in
    ``fnmatch``'s cache, which each forked run inherits). About a tenth of a
    small test file's collection (docs/mutation.md, "Cost"). Returns how many
    patterns were compiled.
    """
    try:
        from _pytest.pathlib import fnmatch_ex
    except ImportError:  # pragma: no cover - another pytest: each run compiles them
        return 0
    patterns = _collection_patterns(config)
    for pattern in patterns:
        with contextlib.suppress(Exception):  # a malformed pattern: the run reports it
            fnmatch_ex(pattern, path)
    return len(patterns)


def _parallel() -> int:
    """Two runs at once where there are two cores to spare; one otherwise.

    Never more than two, whatever the cores: the runs of a wave see each
    other's page-cache marks, and with two neither can tell which answers
    are the shipped ones; among three or more a majority could vote
    (docs/security.md, "Relays between runs")."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


class _ChildRun:
    """One run inside its forked child: isolate, install, collect, run, answer."""

    def __init__(self, judge: Judge, session: pytest.Session, run_dir: str, measure: bool,
                 backstop: float, module: types.CodeType, start_fd: int, output: int,
                 answer_fd: int, deselect: frozenset[str] = frozenset(),
                 unrecorded: frozenset[str] = frozenset()) -> None:
        self.judge = judge
        self.session = session
        self.run_dir = run_dir
        #: The measuring run: coverage, the recorder, every test, full failure reports.
        self.measure = measure
        self.backstop = backstop
        self.module = module
        #: Tests this run leaves out (:mod:`pytest_quest.selection`), as every run of its
        #: schedule does.
        self.deselect = deselect
        #: Tests the measuring run's recorder does not listen to (the first schedule left
        #: them out: they name nothing that reaches the target).
        self.unrecorded = unrecorded
        # The function's code as the module will create it (identity matters to the recorder),
        # kept only until it is installed: a code object left on this object (the judge
        # plugin's ``run``) was the installed code for any test reaching the plugin manager,
        # with no audit event (red team 8, finding 02).
        self.function: types.CodeType | None = find_code(module, judge.name, judge.first_line)
        self.collect_errors: list[dict[str, Any]] = []
        self.reports: list[dict[str, Any]] = []
        #: A failed report logged while an item ran outside the measuring run: a subtest's
        #: (``unittest``'s ``subTest``, pytest's ``subtests``), which the item's own reports
        #: do not carry (an honest subTest killed no mutant: red team 52).
        self.failed_logged = False
        self.replaced: list[str] = []
        # Its own temp dir only: a file left in the sandbox copy would reach later runs.
        # (And where pytest-quest's own suite keeps its coverage data, as in the Landlock layer.)
        # With namespaces of its own the run's /dev/shm is its own too (multiprocessing's
        # shared_memory truncates its segments there).
        self.allowed = [run_dir, *([judge.own_coverage] if judge.own_coverage else []),
                        *(["/dev/shm"] if confine.run_namespaces() else [])]
        #: Where the answer goes; the code watch writes its findings there as it sees them.
        self.answer_fd = answer_fd
        self.original: types.FunctionType | None = None
        #: The measuring run's calls and return types of the target (set in execute). It holds
        #: the code it listens to, reachable like the rest of this object: only the measuring
        #: run has one, and its code is the shipped code, nothing a test could learn from.
        self.recorder: Recorder | None = None
        #: Test code may have run (collection imports the test module): no more "our fault".
        self.started = False
        self.start_fd = start_fd
        #: Its stdout and stderr to be (:func:`open_run_output`).
        self.output = output

    def _isolate(self) -> tuple[str, bool]:
        """Confine the run; how (the guard's ``confined``) and whether the target's file is
        hidden from its processes."""
        for name in ("TMPDIR", "TEMP", "TMP", "HOME"):
            os.environ[name] = self.run_dir
        # hypothesis keeps its example database and its constants cache beneath the working
        # directory (the project's copy, not the run's to write) unless told (calibration of
        # python-dateutil: an honest @given test was refused the folder, and the warning that
        # followed failed it under filterwarnings = error). The run's own, like its temp dir.
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(self.run_dir, ".hypothesis")
        tempfile.tempdir = None
        writable = [self.run_dir]
        if self.judge.own_coverage:
            writable.append(self.judge.own_coverage)  # our own suite measures the child
        apart = confine.run_namespaces()
        if apart:  # its own /proc, temp dir and loopback, no capability, its own Landlock layer
            confine.enter_run(writable, covered=[self.judge.runs_base()])
        self._own_output()  # pytest's new capture files are in the run's own temp dir
        if not apart:
            drop_capabilities()
        _seal_relays()
        hidden = False
        if "landlock" in self.judge.confined:  # narrower than the harness's layer
            if not apart:
                confine.restrict_writes(writable)
            hidden = confine.hide_files([*self.judge.hidden, *own_memory(), *ancestors()])
        _backstops(self.backstop)
        calls.seal()  # confined: no call of ours is left for the test to make (_kernel.c)
        # Without the file hidden, a child Python would import the shipped file: no processes.
        return (self.judge.confined if hidden else ""), hidden

    def _own_output(self) -> None:
        """Descriptors of the run's own (:func:`own_descriptors`), pytest's capture files too:
        its global capture starts again, on fresh files in the run's temp dir."""
        capman = self.session.config.pluginmanager.getplugin("capturemanager")
        if capman is not None:
            capman.stop_global_capturing()
        own_descriptors(self.output)
        if capman is not None:
            capman.start_global_capturing()
            capman.suspend_global_capture()  # as at the fork: pytest resumes it per phase

    def execute(self) -> dict[str, Any]:
        judge = self.judge
        target = judge.target
        confined, hidden = self._isolate()
        loader = RunLoader(target.module, judge.pristine.path, self.module, self._loading)
        del self.module  # the loader holds it until the import, then nothing does
        scrub_run(judge.pristine, loader, target.module)
        swapped = target.module in sys.modules
        # Only the measuring run measures, after every run a relay could fool: its tracer, its
        # hook and their cost told it apart (red teams 14 and 15), which no longer matters.
        recorder = Recorder(self.function) if self.measure and self.function else None
        self.recorder = recorder
        if self.measure:
            judge.cov.start()
        if recorder is not None:
            recorder.start()
        _steady_thread_starts()  # in every run: the measured one is not told by it
        # Both held by the interpreter's hook list only: no attribute of this run reaches them
        # (pytest_quest.hooked); they write what they find to the answer pipe at once.
        pipe = AnswerPipe(self.answer_fd)
        # coverage runs in every run only under our own suite's measuring
        measuring = self.measure or bool(judge.own_coverage)
        watch = Watch(judge.target, judge.pristine.path, judge.fingerprint,
                      os.path.join(judge.spec.sandbox, judge.spec.test_file or ""),
                      pipe, _known_readers(measuring).copy(),
                      # our own suite's coverage data folder (its checkout) holds our
                      # modules, not the test's
                      [d for d in self.allowed if d != judge.own_coverage], sealed=True,
                      measuring=measuring, project=judge.spec.sandbox, hidden=hidden)
        # The watch holds the target's line hashes alone from here: on the judge, which the
        # test reaches through pytest's plugins, a test hashed guessed lines against them and
        # rebuilt the shipped function's constants (red team 61).
        judge.fingerprint = ((), ())
        noevent.close()  # frame sources with no audit event: signal handlers, gc.garbage
        guard = Guard(self.allowed, confined, hidden, pipe)
        # One hook, the watch then the guard (last: it refuses any hook added after it), in a
        # closure that checks our run code is unchanged before either runs (pytest_quest.seal).
        sys.addaudithook(seal(
            (watch, guard), run_modules([sys.modules[name] for name in _SEALED]),
            self.answer_fd, skip=(sys.modules, vars(builtins)),
            judged=Judged(JUDGED | GUARDED | {CONTROL}, JUDGED_PREFIXES, JUDGED_ATTRS,
                          os.path.basename(judge.target.file), judge.target.module,
                          span(self.function) if self.function else (0, 1 << 30))))
        with self.recording():
            first_error = self._import(target.module)
        if swapped:
            self._swap()
        if self.function is not None:
            standin.install(self.function)  # pytest's traceback API sees a stand-in for it
        self.function = None  # installed (the module or the swap holds it now)
        if first_error is None:
            loader.forget()  # imported: nothing of the run may find its code there
        self._remember()
        answer: dict[str, Any] = {}
        sys.audit(CONTROL, "item", judge.spec.test_file or "")  # what the module does at import
        early, statements = list(guard.early), (
            self._statements() if first_error is None else None)
        del guard, pipe, watch
        forget_our_modules(sys.modules)
        # Judged from now until this process ends (pytest_quest.hooked): code of the test may
        # run until the answer is written (a method of this run it replaced: red team 27).
        sys.audit(CONTROL, "start")
        # Announced once the hooks' own start is done (their pictures of what the test may not
        # change, 5 ms): its clock starts the run's stretch of test code, which sets how wide
        # the pause before the next wave is (pytest_quest.gaps). No code of the test's has run.
        self._announce_start(first_error, early, statements)
        self.started = True
        try:
            self.session.perform_collect()
            items = [i for i in self.session.items if item_key(i.nodeid) not in self.deselect]
            self.session.items = items
            import_error = None
            if first_error is not None:
                with self.recording():
                    import_error = self._import(target.module)
                loader.forget()
                if import_error is None:
                    self._remember()
            failed = self._run_items(items)
        except BaseException as exc:  # pytest.exit(), KeyboardInterrupt, errors outside a test
            items = list(getattr(self.session, "items", []))
            import_error = None
            failed = f"<{type(exc).__name__}>"
        finally:
            if recorder is not None:
                recorder.stop()
            if self.measure:
                judge.cov.stop()
                self._summarize()
        answer.update(
            collected=[i.nodeid for i in items], collect_errors=self.collect_errors,
            reports=self.reports, failed=failed, types=recorder.types if recorder else [],
            calls=recorder.count() if recorder else None,
            replaced=self.replaced,
            missing=self.original is None, import_error=import_error,
            exitstatus=_exitstatus(items, self.collect_errors, self.reports, failed),
        )
        if self.measure:
            answer.update(self._executed())
        return answer

    def recording(self) -> contextlib.AbstractContextManager[None]:
        """A stretch in which test code may call the target (:meth:`Recorder.window`)."""
        return self.recorder.window() if self.recorder is not None else contextlib.nullcontext()

    def _loading(self, flag: bool) -> None:
        """Our own loader executes the module: not the test reading the code (the watch believes
        it only when every frame up to :meth:`execute` is the loader's or the import system's)."""
        sys.audit(CONTROL, "loading", flag)

    def _statements(self) -> tuple[list[int], list[list[int]]] | None:
        """The measured run's body statements and branch arcs as coverage knows them,
        before the test.

        Static (the file's parse, not what ran): the judge took them before the
        fork, so the run does not parse the file again (12 ms of the measured
        run). None where coverage cannot say: then a report without the target
        stays "no data", a REVIEW (red team 3, finding 01). The arcs (branch
        mode) let the judge tell an arc the answer left out from one the code
        does not have: the answer's arc count is the run's word (red team 5,
        finding 03).
        """
        known = self.judge.known
        if not self.measure or self.original is None or known is None:
            return None
        return list(known[0][:MAX_START_STATEMENTS]), [list(a) for a in
                                                       known[1][:MAX_START_BRANCHES]]

    def _announce_start(self, import_error: str | None, early: list[str],
                        statements: tuple[list[int], list[list[int]]] | None = None) -> None:
        """Tell the judge, out of band, what was known before test code; then close the pipe.

        The judge believes "our fault" claims only from this record
        (:mod:`pytest_quest.runtrust`): once it is closed, nothing the test
        does can add to it. Clipped to stay far below a pipe's buffer.
        """
        record: dict[str, Any] = {
            "clock": time.monotonic(),
            "import_error": None if import_error is None else import_error[:2000],
            "denied_early": [what[:500] for what in early[:20]],
            "missing": self.original is None}
        if statements:
            record["coverage"] = {"file": self.judge.target.file, "statements": statements[0],
                                  "branches": statements[1]}
        try:
            _write_all(self.start_fd, json.dumps(record).encode())
        finally:
            os.close(self.start_fd)

    def _summarize(self) -> None:
        """Print the failures the way pytest's summary does, into the run's output.

        The tests ran here, not in the judge, whose own session summary sees
        none of them: without this the output tail an agent reads after a
        FAIL would hold no traceback and none of its captured prints.
        """
        reporter = self.session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        with contextlib.suppress(Exception):
            reporter.summary_errors()
            reporter.summary_failures()
            reporter.short_test_summary()
        _flush()

    def _import(self, name: str) -> str | None:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # the environment's fault, unless a retry succeeds
            return f"importing {name} failed: {type(exc).__name__}: {exc}"
        return None

    def _swap(self) -> None:
        """A conftest imported the module in the judge: put the run's code into the function."""
        func = self._resolved()
        code = self.function
        if func is not None and code is not None:
            func.__code__ = code

    def _remember(self) -> None:
        self.original = self._resolved()

    def _resolved(self) -> types.FunctionType | None:
        """The function the module binds to the quest's name, if it is the quest's def: a name
        defined twice (``if PY_3_14_PLUS: def f ... else: def f ...``) binds the other one,
        which the run's code must not replace (calibration of attrs: the dead def's code ran
        in the live function, a NameError); then, as for a function not found, the quest
        goes to a person (``run-target-unreachable``)."""
        func = resolve(self.judge.target)
        first = self.judge.first_line
        if func is not None and first and func.__code__.co_firstlineno != first:
            return None
        return func

    def check_target(self, item: pytest.Item) -> None:
        """Was the target function replaced while the test ran? (monkeypatch, mock.patch). Its
        ``__code__`` replaced the code watch sees as it happens; no code is read here (red team
        27 replaced ``id`` and had this method hand it the installed code)."""
        if self.original is None:
            return
        if resolve(self.judge.target) is not self.original and item.nodeid not in self.replaced:
            self.replaced.append(item.nodeid)

    def _run_items(self, items: list[pytest.Item]) -> str | None:
        """The measuring run reports every phase; the others stop at the first failure."""
        from _pytest.runner import runtestprotocol

        hook = self.session.config.hook
        first_failed: str | None = None
        with _cheap_failures(items, not self.measure):
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                sys.audit(CONTROL, "item", item.nodeid)
                if self.measure:
                    before = len(self.reports)
                    hook.pytest_runtest_protocol(item=item, nextitem=following)
                    if first_failed is None and any(
                            r["outcome"] == "failed" for r in self.reports[before:]):
                        first_failed = item.nodeid
                    continue
                self.failed_logged = False
                reports = runtestprotocol(item, nextitem=following, log=False)
                if any(r.failed for r in reports) or self.failed_logged:
                    return item.nodeid
        sys.audit(CONTROL, "item", "")
        return first_failed

    def _executed(self) -> dict[str, Any]:
        """What the measuring run executed of the measured files: raw, as the collector holds
        them. The judge makes the report (:meth:`Judge._read_coverage`): that needs the
        target's text, which no run holds (the file is hidden from runs)."""
        try:
            data = self.judge.cov.get_data()
            arcs = data.has_arcs()
            executed = {name: ({"arcs": sorted(data.arcs(name) or ())} if arcs else
                               {"lines": sorted(data.lines(name) or ())})
                        for name in data.measured_files()}
        except Exception as exc:
            return {"executed": {}, "coverage_error": str(exc)}
        return {"executed": executed}



def forget_our_modules(modules: dict[str, Any]) -> None:
    """Our modules out of a run's ``sys.modules`` before test code: nothing of the test finds
    them by name (red team 39 reached the watch's classes and the interpreter's originals
    :mod:`pytest_quest.noevent` keeps through ``sys.modules``, and a store to a class's or a
    module's attribute raises no audit event). What this run's code holds of them stays."""
    for name in [name for name in modules if name == "pytest_quest" or
                 name.startswith("pytest_quest.")]:
        del modules[name]


#: The frames of our loader importing the module again, as the watch believes them.
_LOADER = (_ChildRun._loading.__code__, _ChildRun._import.__code__,
           RunLoader.exec_module.__code__, importlib.import_module.__code__)
#: Who reads the target's code or frames for itself (:class:`pytest_quest.watch.Readers`):
#: told once in the judge, before its zygote forks; each run's watch takes its own copy.
_READERS: list[Readers] = []
#: The modules whose code runs inside the run's audit hook (with what they use of ours).
_SEALED = ("pytest_quest.watch", "pytest_quest.runparts", "pytest_quest.hooked",
           "pytest_quest.pathtext", "pytest_quest.noevent", "pytest_quest.seal",
           "pytest_quest.standin")


def _known_readers(measuring: bool = True) -> Readers:
    """The judge's readers, made on first use (before its zygote forks the runs); those of a
    run that does not measure (:meth:`Readers.unmeasured`) made then too, not in each run."""
    if not _READERS:
        known = readers(loader=_LOADER, installers=[_retry.__code__])
        _READERS.extend((known, known.unmeasured()))
    return _READERS[0 if measuring else 1]


def _kept(value: tuple[Any, ...]) -> Callable[[], tuple[Any, ...]]:
    """A method's stand-in that answers what the method answered once."""
    return lambda: value


@contextlib.contextmanager
def _reporters(cov: coverage.Coverage, ready: dict[str, Any]) -> Iterator[None]:
    """``cov`` hands out the file reporters in ``ready`` (each already read) for their files:
    coverage.py makes a new one, which reads the file again, on every report."""
    if not ready:
        yield
        return
    make = cov._get_file_reporter

    def reporter(morf: Any) -> Any:
        return ready.get(morf) if isinstance(morf, str) and morf in ready else make(morf)

    cov._get_file_reporter = reporter  # type: ignore[method-assign]
    try:
        yield
    finally:
        del cov._get_file_reporter


@contextlib.contextmanager
def _served(path: str, text: str) -> Iterator[None]:
    """coverage.py reads the target's source from ``text``: the file is hidden from the run."""
    import coverage.python

    read = coverage.python.get_python_source
    real = os.path.realpath(path)

    def get_python_source(filename: str) -> str:
        return text if text and os.path.realpath(filename) == real else read(filename)

    coverage.python.get_python_source = get_python_source
    try:
        yield
    finally:
        coverage.python.get_python_source = read


def _exitstatus(items: Sequence[pytest.Item], errors: Sequence[dict[str, Any]],
                reports: Sequence[dict[str, Any]], failed: str | None) -> int:
    if errors:
        return 2
    if not items:
        return 5
    if failed or any(r["outcome"] == "failed" for r in reports):
        return 1
    return 0


def _short_failure(*_args: Any, **_kwargs: Any) -> str:
    return "failed (no traceback kept in this run)"


@contextlib.contextmanager
def _cheap_failures(items: Sequence[Any], active: bool) -> Iterator[None]:
    """Skip pytest's traceback formatting in every run but the measuring run.

    Only "failed or not" matters there, and formatting a failure costs about
    twice a whole small test (most mutants fail). The first judged clean run
    is one of them: a failure there cuts the schedule short, and the facts
    come from the measuring run.
    """
    patched = []
    if active:
        for item in items:
            if "repr_failure" in vars(item) or "_repr_failure_py" in vars(item):
                continue
            item.repr_failure = _short_failure
            item._repr_failure_py = _short_failure
            patched.append(item)
    try:
        yield
    finally:
        for item in patched:
            del item.repr_failure
            del item._repr_failure_py


class _RetryingSys:
    """``sys`` as :mod:`threading` sees it, with ``settrace`` and ``setprofile`` that retry."""

    def __init__(self, real: types.ModuleType) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def settrace(self, function: Any) -> None:
        _retry(self._real.settrace, function)

    def setprofile(self, function: Any) -> None:
        _retry(self._real.setprofile, function)


def _retry(install: Callable[[Any], None], function: Any) -> None:
    for _ in range(1000):
        try:
            install(function)
            return
        except RuntimeError as exc:
            if "is being installed" not in str(exc):
                raise
            time.sleep(0)  # the other thread finishes installing its own first
    install(function)


def _steady_thread_starts() -> bool:
    """Every thread the measured run starts gets coverage's tracer and the recorder, on 3.11.

    Each new thread installs them (``threading.settrace``) as it starts.
    CPython 3.11 refuses a ``sys.settrace`` while another thread's is under
    way, and the run's audit hooks are Python code, during which the
    interpreter may switch threads: of threads started together (a
    ``multiprocessing`` pool's three helpers) one sometimes died at start
    with ``RuntimeError: Cannot install a trace function while another
    trace function is being installed``, and the pool waited for ever (an
    honest test timed out). Later versions have no such refusal. Done in
    every run, traced or not: a test that found ``threading._sys`` replaced in
    the measured run only knew it was that run (red team 14, finding 03).
    Returns whether the retry is in place.
    """
    if sys.version_info[:2] != (3, 11):
        return False
    threading = sys.modules.get("threading")
    if threading is None or not hasattr(threading, "_sys"):  # pragma: no cover - not CPython
        return False
    threading._sys = _RetryingSys(sys)  # type: ignore[attr-defined]
    return True


def _backstops(timeout: float) -> None:
    """Die on its own if the judge's SIGKILL never comes (CPU and wall clock)."""
    with contextlib.suppress(Exception):
        import resource

        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        want = math.ceil(timeout) + 1
        if hard == resource.RLIM_INFINITY or want < hard:
            resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    with contextlib.suppress(Exception):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, timeout + 1.0)
