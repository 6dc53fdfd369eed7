"""What every sandboxed run process uses: event pipe, guard, code watch, pristine target, reports.

The sandbox process has two halves. :mod:`pytest_quest.harness` is its entry
point (the command line, the suite and submit modes, coverage's set-up, the
exit); :mod:`pytest_quest.forkrun` is the judge's zygote and forked runs. Both
need the pieces here: the judge writes events through :class:`Channel` and
serves the target module from :class:`Pristine`; each run child adds
:class:`Guard` and :class:`Watch` as audit hooks, finds the target function
with :func:`resolve` and answers with :func:`report_event`,
:func:`short_repr` and :func:`coverage_entries`, which the baseline's
:class:`~pytest_quest.harness.SuiteSession` uses too.

They used to live in the harness, which imports forkrun to judge a
submission, while forkrun imported them back from the harness: an import
cycle (issue 11). Kept here, below both, the arrows point one way (harness to
forkrun, both to this module), and ``tests/test_layers.py`` fails on any
cycle in the package. Importing this module starts nothing: it only looks up
pytest's traceback parser, which :class:`Watch` must tell from a test's own
``compile``.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import linecache
import os
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from pytest_quest.protocol import EventKind, HarnessSpec, TargetSpec, encode_event
from pytest_quest.scrub import file_spec, holds_body

__all__ = [
    "Channel",
    "Guard",
    "Pristine",
    "Watch",
    "coverage_entries",
    "report_event",
    "resolve",
    "short_repr",
]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": 1, "os.rmdir": 1, "os.mkdir": 1, "os.rename": 2, "os.chmod": 1,
    "os.chown": 1, "os.link": 2, "os.symlink": 2, "os.truncate": 1, "os.utime": 1,
    "os.setxattr": 1, "os.removexattr": 1,
    "shutil.rmtree": 1, "shutil.move": 2, "shutil.copyfile": 2, "shutil.copytree": 2,
}
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                           "os.spawn", "os.fork", "os.forkpty", "pty.spawn"})
#: What multiprocessing imports to start a new Python (its ``spawn`` and ``forkserver`` start
#: methods): where the target's file is hidden, that Python cannot import it.
_NEW_PYTHON = frozenset({"multiprocessing.popen_spawn_posix", "multiprocessing.popen_forkserver"})
#: The coverage keys the gate reads; everything else in coverage's JSON is dropped.
_COVERAGE_KEYS = ("executed_lines", "missing_lines", "excluded_lines", "executed_branches",
                  "missing_branches")


class Channel:
    """The judge's side of the event pipe: one JSON object per line, written whole.

    The descriptor is made non-inheritable at once: no program this process
    or its children start (an xdist worker, a plugin's helper) receives it.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        with contextlib.suppress(OSError):
            os.set_inheritable(fd, False)

    def emit(self, kind: EventKind, **data: Any) -> None:
        payload = encode_event(kind, **data)
        view = memoryview(payload)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class Guard:
    """An audit hook: no writes outside the allowed roots, no child processes.

    Audit hooks cannot be removed from Python code, so the judge never
    installs one: each forked run adds its own. pytest-quest's own writes
    after the test code finished run inside :meth:`trusted`. Once the kernel
    confines the run (``confined`` names how), a child process can do no more
    than the test itself, so processes are allowed: many real plugins start
    one at import. Without it, a denial before the submitted test module is
    collected is the environment's doing (``early``), not the test's.
    """

    def __init__(self, allowed: Sequence[str], confined: str = "") -> None:
        self.allowed = tuple(os.path.realpath(a).rstrip(os.sep) + os.sep for a in allowed)
        self.confined = confined
        self.paused = False
        #: Set when the test module is about to be imported: denials from then on are its doing.
        self.test_started = False
        self.denied: list[str] = []
        #: Denials before that: the project's or a plugin's doing (an environment fault).
        self.early: list[str] = []
        #: The target's file is hidden from the run's processes: a new Python started by
        #: multiprocessing cannot import it, and its pool would restart workers until the
        #: timeout (red team 14). Refused at once, with the way out in the message.
        self.target_hidden = False

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """Let pytest-quest's own code write; never around test code."""
        self.paused = True
        try:
            yield
        finally:
            self.paused = False

    def inside(self, path: Any, descriptor: bool = False) -> bool:
        """Whether ``path`` lies in the run's writable folders. A descriptor passes (writing
        to one is printing), unless ``descriptor``: then what it is open on counts (a
        change of attributes of pytest's capture file, shared by every run, carried the
        measured run's answers to the others: red team 11, finding 02)."""
        if path is None or (isinstance(path, int) and not descriptor):
            return True
        if isinstance(path, int):
            path = _open_on(path)
            if path is None:
                return True  # no such descriptor: the call fails by itself
            if not path.startswith("/"):
                return True  # a pipe or socket of this run's own
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return False
        return real == os.devnull or (real + os.sep).startswith(self.allowed)

    def deny(self, what: str) -> None:
        found = self.denied if self.test_started else self.early
        if len(found) < 100:
            found.append(what)
        raise PermissionError(f"pytest-quest sandbox: {what} is not allowed")

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if self.paused:
            return
        if event == "open":
            path, mode, flags = (*tuple(args), None, None, 0)[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writing and not self.inside(path):
                self.deny(f"writing {os.fsdecode(path)}")
        elif event in _PATH_EVENTS:
            for path in args[: _PATH_EVENTS[event]]:
                if not self.inside(path, descriptor=True):
                    self.deny(f"{event} on {path}")
        elif event in _SPAWN_EVENTS and not self.confined:
            self.deny(f"starting a process ({event})")
        elif event == "sys.addaudithook":
            self.deny("installing an audit hook")
        elif event == "import" and self.target_hidden and args and args[0] in _NEW_PYTHON:
            self.deny("multiprocessing's spawn and forkserver start methods (the new Python "
                      "cannot import the code under test, hidden from every process of the "
                      "run; use multiprocessing.get_context('fork'))")
        elif event in ("socket.connect", "socket.sendto") and not _loopback(args[1]):
            self.deny(f"network access to {args[1]!r}")
        elif event == "mmap.__new__" and args and _is_dev_zero(args[0]):
            # A shared mapping of /dev/zero is a shmem file numbered from the per-CPU counters
            # every run shares (red team 17); seccomp refuses the other ways to make one.
            self.deny("mapping /dev/zero (use mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE))")


def _is_dev_zero(fileno: Any) -> bool:
    return isinstance(fileno, int) and fileno >= 0 and _open_on(fileno) == "/dev/zero"


def _open_on(fd: int) -> str | None:
    """What a descriptor of this process is open on (a path, or ``pipe:[N]`` and the like);
    None for no such descriptor."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
    except OSError:
        return None


def _loopback(address: Any) -> bool:
    """Local servers a test starts itself are fine; the outside world is not."""
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and the like stay on this machine
    host = str(address[0])
    return host in ("localhost", "::1", "") or host.startswith("127.")


class Watch:
    """An audit hook that notices a test reading the code under test.

    A test that looks at the target's code (its source file, its
    ``__code__``, a compile of its text, a second import by path) can tell a
    mutant from the original without testing behaviour. Our own code (the
    loader executing the module, coverage reading sources for its report)
    runs with the watch paused or ``loading``.
    """

    def __init__(self, target: TargetSpec, path: str,
                 fingerprint: tuple[tuple[int, ...], tuple[int, ...]],
                 test_path: str = "") -> None:
        self.path = os.path.realpath(path)
        self.module = target.module
        self.qualname = ".".join((*target.owner, target.name))
        #: The target's def and body as hashed lines, never as text
        #: (:func:`pytest_quest.scrub.fingerprint`, made before any run exists).
        self.function, self.body = fingerprint
        self.paused = False
        self.loading = False
        self.nodeid = ""
        self.reads: list[str] = []
        #: The submitted test file: code read through a generator or a frame by it.
        self.test_path = os.path.realpath(test_path) if test_path else ""
        self._busy = False
        #: ``co_filename`` -> its real path. pytest, pluggy and logging take frames all the
        #: time; resolving a name once keeps the watch from costing a run its speed.
        self._real: dict[str, str] = {}

    def _file_of(self, code: types.CodeType) -> str:
        name = code.co_filename
        real = self._real.get(name)
        if real is None:
            real = self._real[name] = os.path.realpath(name)
        return real

    def _saw(self, what: str) -> None:
        entry = f"{self.nodeid}: {what}" if self.nodeid else what
        if entry not in self.reads and len(self.reads) < 20:
            self.reads.append(entry)

    def _is_target(self, path: Any) -> bool:
        if not isinstance(path, str | bytes | os.PathLike):
            return False
        try:
            return os.path.realpath(os.fsdecode(path)) == self.path
        except (TypeError, ValueError):
            return False

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if self.paused:
            return
        if event == "open" and args and self._is_target(args[0]):
            mode, flags = (*tuple(args[1:]), None, 0)[:2]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if not writing:  # a write is the guard's and the sources check's business
                self._saw("opened the target's source file")
        elif event == "object.__getattr__" and len(args) == 2 and args[1] == "__code__":
            if self._busy:
                return
            func = args[0]
            if not self.loading and type(func) is types.FunctionType and (
                    (func.__module__ == self.module and func.__qualname__ == self.qualname)
                    or self._runs_target(func)):
                self._saw("read the target's __code__")
        elif event == "object.__getattr__" and len(args) == 2 and args[1] in _RUN_GETTERS:
            if not self.loading and not self._busy:
                self._code_through(args[0], args[1])
        elif event in ("sys.setprofile", "sys.settrace") and not self._busy:
            self._tracer_by_test(event)
        elif (event in _WALK_EVENTS or (
                event == "object.__getattr__" and len(args) == 2 and args[1] == "tb_frame")) \
                and not self._busy and not self.loading:
            self._walk_by_test(event if event != "object.__getattr__" else "tb_frame")
        elif event in ("gc.get_referents", "gc.get_referrers") and args and not self.loading:
            if not self._busy and self._holds_target(args[0]):
                self._saw(f"reached the target's code through {event}")
        elif event == "compile" and len(args) == 2 and not _pytest_parsing():
            source, filename = args
            if self._is_target(filename):
                self._saw("compiled code under the target's file name")
            elif isinstance(source, str | bytes) and self.function:
                text = source if isinstance(source, str) else source.decode("utf-8", "replace")
                if holds_body(text, self.function) or holds_body(text, self.body):
                    self._saw("compiled the target's source text")


    def _is_target_code(self, code: Any) -> bool:
        if not isinstance(code, types.CodeType) or code.co_qualname != self.qualname:
            return False
        try:
            return os.path.realpath(code.co_filename) == self.path
        except (TypeError, ValueError):
            return False

    def _runs_target(self, func: types.FunctionType) -> bool:
        """The function runs the target's code, whatever its ``__qualname__`` and
        ``__module__`` say now: both may be set by anybody, and a test renamed the target for
        the read, then back (red team 8, finding 05). The code's name and file are fixed."""
        self._busy = True
        try:
            return self._is_target_code(func.__code__)
        except Exception:  # pragma: no cover - a function whose code cannot be read
            return False
        finally:
            self._busy = False

    def _holds_target(self, objects: Any) -> bool:
        """The target function (or its code) among what ``gc`` is asked about, or a generator,
        coroutine or frame running it: ``gc.get_referents`` of those lists the installed code
        (red team 8, finding 01: a generator of the target, which any test of a generator
        function makes, handed out a reach check's probe)."""
        self._busy = True
        try:
            return any(self._is_target_code(o) or (
                type(o) is types.FunctionType and self._is_target_code(o.__code__)) or (
                type(o) in _RUNNING and self._is_target_code(getattr(o, _RUNNING[type(o)])))
                for o in (objects if isinstance(objects, tuple) else ()))
        except Exception:  # pragma: no cover - an object whose attributes fail
            return False
        finally:
            self._busy = False

    def _code_through(self, holder: Any, attr: str) -> None:
        """A generator's, coroutine's or frame's code read by the test itself (or through the
        disassembler): the code a run installed, a mutant's or a reach check's stop included
        (red team 6, finding 06: a test told reach checks apart by ``SystemExit`` among the
        names of ``gi_code`` or of a frame's ``f_code`` and failed only there). pytest, the
        traceback module and logging read frames of the target for their own reports."""
        self._busy = True  # what follows reads f_code and gi_code itself
        try:
            caller = sys._getframe(2)  # 0: here, 1: __call__, 2: the code doing the read
            reader = self._file_of(caller.f_code)
            while reader in _PASS_THROUGH and caller.f_back is not None:
                caller = caller.f_back  # it reads for its caller (red team 8, finding 06)
                reader = self._file_of(caller.f_code)
            if not (reader == self.test_path or os.path.basename(reader) == "dis.py" or (
                    f"{os.sep}_pytest{os.sep}" in reader and self._test_on_stack(caller))):
                return
            found = getattr(holder, attr, None)
            if attr in _FRAME_GETTERS:  # the frame itself: its locals and offset tell mutants
                found = getattr(found, "f_code", None)  # apart (red team 7, finding 01)
            if self._is_target_code(found):
                self._saw(f"read the target's code through {attr}")
        except Exception:  # pragma: no cover - a frame without a caller: nothing to judge
            return
        finally:
            self._busy = False


    def _tracer_by_test(self, event: str) -> None:
        """A profiler or tracer the test installs (``cProfile``: its stats hold the code
        objects each call ran, the installed code of the target among them; red team 6,
        finding 06). Coverage's and our own hooks are installed before the watch, or by
        their own modules (threads)."""
        self._busy = True
        try:
            reader = self._file_of(sys._getframe(2).f_code)
            if reader == self.test_path or os.path.basename(reader) in _TRACER_MODULES:
                self._saw(f"installed a profiler or tracer ({event})")
        except Exception:  # pragma: no cover - no caller frame: nothing to judge
            return
        finally:
            self._busy = False

    def _walk_by_test(self, what: str) -> None:
        """The test file itself takes a frame (its own, to walk up to the harness's: the run's
        code is in their locals), every thread's or every object of the process (red team 6,
        finding 06), also through ``inspect`` or ``traceback`` (red team 8, finding 03).
        pytest, logging and the traceback module take frames for their own reports."""
        if not self.test_path:
            return
        self._busy = True
        try:
            caller = sys._getframe(2)
            reader = self._file_of(caller.f_code)
            if what == "tb_frame" and reader == _TRACEBACK and caller.f_back is not None and \
                    self._file_of(caller.f_back.f_code) == _TRACEBACK:
                return  # traceback's own formatting (format_exc): text out, no frame handed on
            while reader in _FRAME_HELPERS and caller.f_back is not None:
                caller = caller.f_back  # inspect.currentframe() takes the frame for its caller
                reader = self._file_of(caller.f_code)
            if reader == self.test_path:
                self._saw(f"walked the process's frames or objects ({what})")
        except Exception:  # pragma: no cover - no caller frame: nothing to judge
            return
        finally:
            self._busy = False

    def _test_on_stack(self, frame: types.FrameType | None) -> bool:
        """pytest's traceback API called from the test (``excinfo.traceback[-1].frame.code
        .raw``), not pytest reporting a failure after the test returned."""
        for _ in range(200):
            if frame is None or not self.test_path:
                return False
            if self._file_of(frame.f_code) == self.test_path:
                return True
            frame = frame.f_back
        return False


#: What runs a function's code, and the attribute that names that code.
_RUNNING: dict[type, str] = {types.GeneratorType: "gi_code", types.CoroutineType: "cr_code",
                             types.AsyncGeneratorType: "ag_code", types.FrameType: "f_code"}
#: Standard modules whose reads of a generator's or frame's code are their caller's:
#: ``types._GeneratorWrapper`` hands out the wrapped generator's ``gi_code`` from a property
#: (red team 8, finding 06: the read was types.py's, not the test's).
_PASS_THROUGH = frozenset({os.path.realpath(types.__file__)})
#: Standard modules that take a frame for their caller (``inspect.currentframe``, ``stack``,
#: ``traceback.extract_stack``): a walk they make is their caller's (red team 8, finding 03).
_FRAME_HELPERS = _PASS_THROUGH | frozenset(
    os.path.realpath(os.path.join(os.path.dirname(types.__file__), name))
    for name in ("inspect.py", "traceback.py"))
#: traceback.py: its ``walk_tb`` hands frames to its caller; when that caller is traceback.py
#: itself, the frames end as text (``format_exc``: red team 11, finding 03, a false FAIL).
_TRACEBACK = os.path.realpath(os.path.join(os.path.dirname(types.__file__), "traceback.py"))
#: Events that hand out frames (every thread's, too) or every object of the process.
_WALK_EVENTS = frozenset({"sys._getframe", "sys._current_frames", "gc.get_objects"})
#: Standard modules that install a profiler or tracer for their caller.
_TRACER_MODULES = frozenset({"cProfile.py", "profile.py", "bdb.py", "pdb.py", "trace.py"})
#: Attributes that hand out the code object a generator, coroutine or frame runs.
_CODE_GETTERS = frozenset({"gi_code", "cr_code", "ag_code", "f_code"})
#: Attributes that hand out the frame a generator, coroutine or async generator runs in.
_FRAME_GETTERS = frozenset({"gi_frame", "cr_frame", "ag_frame"})
#: What hands out the code a run installed, directly or through a frame (one lookup: this
#: runs for every attribute read that raises an audit event).
_RUN_GETTERS = _CODE_GETTERS | _FRAME_GETTERS


def _statement_finder() -> types.CodeType | None:
    try:
        from _pytest._code.source import getstatementrange_ast
    except ImportError:  # pragma: no cover - another pytest: its tracebacks may be flagged
        return None
    return getstatementrange_ast.__code__


#: pytest parses a file's text to show the failing statement of a traceback entry.
_PYTEST_PARSER = _statement_finder()


def _pytest_parsing() -> bool:
    """Whether the compile under way is pytest formatting a traceback (not the test reading).

    Since every run's reads are judged, a mutant that breaks the test at
    import shows its traceback, and pytest parses the target's text for it.
    Told by the caller's code object itself, which test code cannot forge.
    """
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(3):
        if frame is None:
            return False
        if frame.f_code is _PYTEST_PARSER:
            return True
        frame = frame.f_back
    return False


# ------------------------------------------------------------ the pristine target
class Pristine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The target module as the judge reads it once, served to every import of it.

    The source is read, compiled with the real file name and put in
    :mod:`linecache` (tracebacks and ``inspect.getsource`` in the judge
    never open the file) the first time :attr:`source`, :attr:`text` or
    :attr:`module_code` is asked for: when a conftest imports the module, or
    after the runs' zygote is forked. Every run is forked from the zygote,
    so a run's memory never held the shipped text unless a conftest imported
    the module: freed bytes stay in a heap, and a run read them back from its
    own memory (red team 10, finding 01). In a run, :attr:`code` is the run's
    module (the pristine one or a mutant), served to every import of the
    target in that run: a module whose import failed is imported again by
    the test module, and it must get the same code.
    """

    source: bytes
    text: str
    module_code: types.CodeType | None

    def __init__(self, target: TargetSpec, path: str) -> None:
        self.target = target
        self.path = path
        #: The run's module; None: the pristine one (:attr:`module_code`).
        self.code: types.CodeType | None = None
        self.watch: Watch | None = None
        #: Called before the module executes in the judge (it starts measuring there).
        self.before_exec: Callable[[], None] | None = None

    def __getattr__(self, name: str) -> Any:
        """Read the file on the first use of what comes from it (see the class)."""
        if name not in ("source", "text", "module_code"):
            raise AttributeError(name)
        with open(self.path, "rb") as handle:
            source = handle.read()
        self.source = source
        self.text = source.decode("utf-8")
        self.module_code = compile(source, self.path, "exec", dont_inherit=True)
        lines = self.text.splitlines(keepends=True)
        linecache.cache[self.path] = (len(self.text), None, lines, self.path)
        return getattr(self, name)

    @property
    def loaded(self) -> bool:
        """Whether the file was read (in the judge: whether the zygote inherits its text)."""
        return "source" in vars(self)

    @classmethod
    def read(cls, spec: HarnessSpec, target: TargetSpec) -> Pristine:
        return cls(target, os.path.join(spec.sandbox, target.file))

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.target.module:
            return None
        return file_spec(fullname, self, self.path)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if self.before_exec is not None:
            self.before_exec()
        watch = self.watch
        if watch is not None:
            watch.loading = True
        try:
            code = self.code or self.module_code
            assert code is not None, "the pristine hook serves no module in a run"
            exec(code, module.__dict__)
        finally:
            if watch is not None:
                watch.loading = False

    def get_source(self, fullname: str) -> str:
        return self.text

    def get_filename(self, fullname: str) -> str:
        return self.path

    def is_package(self, fullname: str) -> bool:
        return os.path.basename(self.path) == "__init__.py"


def resolve(target: TargetSpec) -> Any:
    """The target's plain function as its module holds it now (or None)."""
    owner: Any = sys.modules.get(target.module)
    for part in target.owner:
        owner = getattr(owner, part, None)
    holder = getattr(owner, "__dict__", None)
    value: Any = holder.get(target.name) if holder is not None else None
    if isinstance(value, property):
        value = getattr(value, target.accessor or "fget")
    value = getattr(value, "__func__", value)  # staticmethod, classmethod
    value = getattr(value, "func", value)  # functools.cached_property
    while hasattr(value, "__wrapped__"):  # functools.wraps decorators
        value = value.__wrapped__
    return value if isinstance(value, types.FunctionType) else None


# ------------------------------------------------------------ what a run reports
def short_repr(report: pytest.CollectReport | pytest.TestReport) -> dict[str, Any]:
    """Location and message of a failure, not pages of traceback."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return {"message": str(crash.message)[:2000], "file": str(crash.path),
                "line": _line(crash.lineno)}
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, message = report.longrepr
        return {"message": str(message)[:2000], "file": str(path), "line": _line(line)}
    text = str(report.longrepr or "")
    return {"message": text[-2000:], "file": None, "line": None}


def _line(value: Any) -> int | None:
    return value if type(value) is int else None


def coverage_entries(data: dict[str, Any], root: str) -> dict[str, Any]:
    """coverage's JSON ``files`` -> project-relative paths with only the keys the gate reads."""
    prefix = root.rstrip(os.sep) + os.sep
    out: dict[str, Any] = {}
    for name, entry in data.get("files", {}).items():
        rel = name[len(prefix):] if name.startswith(prefix) else name
        out[rel.replace(os.sep, "/")] = {k: entry[k] for k in _COVERAGE_KEYS if k in entry}
    return out


def report_event(report: pytest.TestReport) -> dict[str, Any]:
    """One pytest report as the ``report`` event of the measured round."""
    data: dict[str, Any] = {
        "round": 1, "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
        "duration": round(float(report.duration), 6),
    }
    if hasattr(report, "wasxfail"):
        data["xfail"] = True
    if report.failed or report.skipped:
        data.update(short_repr(report))
    return data
