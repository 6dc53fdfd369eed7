"""What every sandboxed run process uses: event pipe, guard, pristine target, reports.

The sandbox process has two halves. :mod:`pytest_quest.harness` is its entry
point (the command line, the suite and submit modes, coverage's set-up, the
exit); :mod:`pytest_quest.forkrun` is the judge's zygote and forked runs. Both
need the pieces here: the judge writes events through :class:`Channel` and
serves the target module from :class:`Pristine`; each run child adds
:class:`Guard` as an audit hook (beside :mod:`pytest_quest.watch`), finds the target function
with :func:`resolve` and answers with :func:`report_event`,
:func:`short_repr` and :func:`coverage_entries`, which the baseline's
:class:`~pytest_quest.harness.SuiteSession` uses too.

They used to live in the harness, which imports forkrun to judge a
submission, while forkrun imported them back from the harness: an import
cycle (issue 11). Kept here, below both, the arrows point one way (harness to
forkrun, both to this module), and ``tests/test_layers.py`` fails on any
cycle in the package. Importing this module starts nothing.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import linecache
import os
import stat
import sys
import types

# Bound at import (see pytest_quest.watch): a builtin the test rebinds never runs here.
from builtins import (  # noqa: UP029 - bound on purpose, as the comment says
    AttributeError,
    OSError,
    PermissionError,
    ValueError,
    any,
    bool,
    bytes,
    classmethod,
    compile,
    dict,
    enumerate,
    exec,
    float,
    frozenset,
    getattr,
    hasattr,
    int,
    isinstance,
    len,
    list,
    memoryview,
    open,
    property,
    repr,
    reversed,
    round,
    sorted,
    str,
    tuple,
    type,
    vars,
)
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from pytest_quest.hooked import (
    CONTROL,
    AnswerPipe,
    Phase,
    folder_prefixes,
    getframe,
    normal,
    real_path,
    text_of,
)
from pytest_quest.protocol import (
    DENIED_RECORD,
    EventKind,
    HarnessSpec,
    TargetSpec,
    encode_event,
)
from pytest_quest.scrub import file_spec

__all__ = [
    "GUARDED",
    "Channel",
    "Guard",
    "Pristine",
    "coverage_entries",
    "report_event",
    "resolve",
    "short_repr",
]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Bound at import: the guard compares with them inside the hook (a ``str`` subclass put in
#: ``os.devnull`` would have its ``__eq__`` run there).
_DEVNULL, _SEP = os.devnull, os.sep
_PATH_EVENTS = {
    "os.remove": 1, "os.rmdir": 1, "os.mkdir": 1, "os.rename": 2, "os.chmod": 1,
    "os.chown": 1, "os.link": 2, "os.symlink": 2, "os.truncate": 1, "os.utime": 1,
    "os.setxattr": 1, "os.removexattr": 1,
    "shutil.rmtree": 1, "shutil.move": 2, "shutil.copyfile": 2, "shutil.copytree": 2,
}
#: Where an event names the folder descriptor its relative path is found from (``dir_fd``):
#: path index -> descriptor index. ``shutil.rmtree`` walks by descriptors
#: (``os.remove(name, dir_fd=...)``): judged from the working directory, an honest test
#: clearing a folder of its own temp dir was refused (calibration, aiofiles).
_DIR_FDS = {
    "os.remove": {0: 1}, "os.rmdir": {0: 1}, "os.mkdir": {0: 2}, "os.chmod": {0: 2},
    "os.chown": {0: 3}, "os.utime": {0: 3}, "os.rename": {0: 2, 1: 3}, "os.link": {0: 2, 1: 3},
}
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                           "os.spawn", "os.fork", "os.forkpty", "pty.spawn"})
#: What multiprocessing imports to start a new Python (its ``spawn`` and ``forkserver`` start
#: methods): where the target's file is hidden, that Python cannot import it.
_NEW_PYTHON = frozenset({"multiprocessing.popen_spawn_posix", "multiprocessing.popen_forkserver"})
#: What the native-code check stats with, bound at import (the test could replace them).
_LSTAT, _IS_FILE, _PROC = os.lstat, stat.S_ISREG, "/proc/"
#: A subinterpreter made: the run's audit hooks are the main interpreter's alone, so nothing
#: of the run would judge what runs in it (red team 51 read the installed code with ctypes
#: there). The interpreter's own test modules that make one are hidden from runs too.
_NEW_INTERPRETER = "cpython.PyInterpreterState_New"
#: The events the guard judges (the seal compares our run code before these: pytest_quest.seal).
GUARDED = frozenset({"open", "os.symlink", "sys.addaudithook", "import", "socket.connect",
                     "socket.sendto", "mmap.__new__", _NEW_INTERPRETER, *_PATH_EVENTS,
                     *_SPAWN_EVENTS})
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
    installs one: each forked run adds its own, and nothing of the run holds
    it: it is started and speaks as :mod:`pytest_quest.hooked` says. Once the
    kernel confines the run (``confined`` names how), a child process can do
    no more than the test itself, so processes are allowed: many real plugins
    start one at import. A denial before test code starts is the
    environment's doing (``early``), one in the test's time the test's
    (``denied``, on the answer pipe at once).
    """

    def __init__(self, allowed: Sequence[str], confined: str = "", target_hidden: bool = False,
                 pipe: AnswerPipe | None = None) -> None:
        #: Each root as given and resolved; in the test's time paths are resolved with system
        #: calls bound at import (``os.path.realpath`` looks up ``os.lstat`` as it runs: red
        #: team 27).
        self.allowed = folder_prefixes(allowed)
        self.confined = confined
        #: The target's file is hidden from the run's processes: a new Python started by
        #: multiprocessing cannot import it, and its pool would restart workers until the
        #: timeout (red team 14). Refused at once, with the way out in the message.
        self.target_hidden = target_hidden
        #: Denials in the test's time: its doing.
        self.denied: list[str] = []
        #: Denials before: the project's or a plugin's doing (an environment fault).
        self.early: list[str] = []
        self._pipe = pipe if pipe is not None else AnswerPipe(None)
        self._phase = Phase()
        #: Where native code may be loaded from: the import folders as the run starts (the
        #: standard library's extensions, the installed packages, the project's copy), none
        #: of them writable by the run. A C extension the test wrote to its temp dir (compiled
        #: there, or carried as bytes) reads any memory with no audit event: red team 53. Not
        #: the interpreter's whole folder: the base interpreter's own site-packages, which a
        #: venv does not import from, held cffi and numpy for red team 58.
        roots = folder_prefixes(root for root in sys.path if root and os.path.isabs(root))
        self.native_roots = tuple(sorted(root for root in roots if not self.inside(root)))

    def inside(self, path: Any, descriptor: bool = False, folder: Any = None) -> bool:
        """Whether ``path`` lies in the run's writable folders. A descriptor passes (writing
        to one is printing), unless ``descriptor``: then what it is open on counts (a
        change of attributes of pytest's capture file, shared by every run, carried the
        measured run's answers to the others: red team 11, finding 02). A path of a class
        the guard cannot read without running its code is outside. ``folder``: the
        descriptor a relative path is found from (``dir_fd``), as the kernel finds it."""
        if path is None or (type(path) is int and not descriptor):
            return True
        if type(path) is int:
            text = _open_on(path)
            if text is None:
                return True  # no such descriptor: the call fails by itself
            if not text.startswith("/"):
                return True  # a pipe or socket of this run's own
        else:
            text = text_of(path)
            if text is None:
                return False
            if type(folder) is int and folder >= 0 and not text.startswith("/"):
                base = _open_on(folder)
                if base is None or not base.startswith("/"):
                    return True  # no such folder descriptor: the call fails by itself
                text = f"{base}/{text}"
        return self._writable(real_path(text))

    def _writable(self, real: str) -> bool:
        """Whether ``real``, a path with its links followed, lies in the writable folders."""
        return real == _DEVNULL or (real + _SEP).startswith(self.allowed)

    def _native_allowed(self, path: Any) -> bool:
        """Whether the file of an ``import`` event (None but for a C extension's load, under
        whatever name: red team 54 loaded one without an extension's ending) lies in an
        import folder the run cannot write, as the kernel finds it: each link followed
        before a ``..`` after it (red team 54 went up through a link ``normal`` had cut
        away), through no part lying in a folder the run can change before the loader
        follows it (a link swapped, a folder not there yet: red teams 54 and 55), and
        nothing under ``/proc`` (its links, ``/proc/self/cwd`` or ``fd``, change with the
        process); a relative path, a path with a NUL (the loader opens the text before it:
        red team 55), or one that names no file, is refused."""
        if path is None:
            return True
        text = text_of(path)
        if text is None or "\0" in text or not text.startswith("/"):
            # the loader opens what comes before a NUL; a relative path is found from the
            # working folder the loader sees, which another thread may move (red team 55)
            return False
        visited: list[str] = []
        real = real_path(text, visited=visited)
        try:
            found = _IS_FILE(_LSTAT(real).st_mode)
        except (OSError, ValueError):
            return False
        # each part looked up lies in a folder whose links were followed already
        return found and not self._writable(real) and self._in_native_root(real) and \
            not any(part.startswith(_PROC) or self._writable(part.rpartition("/")[0] or "/")
                    for part in visited)

    def _in_native_root(self, real: str) -> bool:
        """``real`` lies in an import folder, and not in a packages folder inside one that is
        not one itself: the standard library's folder holds the base interpreter's
        ``site-packages``, which a venv does not import from (red team 58 loaded cffi's and
        numpy's C code from there)."""
        for root in self.native_roots:
            if real.startswith(root) and not any(
                    part.endswith("-packages") for part in real[len(root):].split(_SEP)[:-1]):
                return True
        return False

    def deny(self, what: str) -> None:
        if self._phase.testing():
            if len(self.denied) < 100:
                self.denied.append(what)
                self._pipe.tell(DENIED_RECORD, what)
        elif len(self.early) < 100:
            self.early.append(what)
        raise PermissionError(f"pytest-quest sandbox: {what} is not allowed")

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event == CONTROL:
            verb = args[0] if args else None
            if type(verb) is str and verb == "start" and self._phase.steer(verb, getframe(1)):
                self._pipe.seal()
            return
        if event == "open":
            path, mode, flags = (*tuple(args), None, None, 0)[:3]
            writing = (type(mode) is str and any(c in mode for c in "wax+")) or (
                type(flags) is int and flags & _WRITE_FLAGS
            )
            if writing and not self.inside(path):
                self.deny(f"writing {_shown(path)}")
        elif event == "os.symlink" and len(args) > 1:
            self._link(args[0], args[1])
        elif event in _PATH_EVENTS:
            folders = _DIR_FDS.get(event, {})
            for index, path in enumerate(args[: _PATH_EVENTS[event]]):
                at = folders.get(index)
                folder = args[at] if at is not None and len(args) > at else None
                if not self.inside(path, descriptor=True, folder=folder):
                    self.deny(f"{event} on {_shown(path)}")
        elif event in _SPAWN_EVENTS and not self.confined:
            self.deny(f"starting a process ({event})")
        elif event == "sys.addaudithook":
            self.deny("installing an audit hook")
        elif event == _NEW_INTERPRETER:
            self.deny("starting a subinterpreter (no audit hook of the run would judge it)")
        elif event == "import" and len(args) > 1 and not self._native_allowed(args[1]):
            self.deny(f"loading native code from {_shown(args[1])} (only the interpreter's, "
                      "the installed packages' and the project's own)")
        elif event == "import" and self.target_hidden and args and type(args[0]) is str and \
                args[0] in _NEW_PYTHON:
            self.deny("multiprocessing's spawn and forkserver start methods (the new Python "
                      "cannot import the code under test, hidden from every process of the "
                      "run; use multiprocessing.get_context('fork'))")
        elif event in ("socket.connect", "socket.sendto") and len(args) > 1 and \
                not _loopback(args[1]):
            self.deny(f"network access to {_host(args[1])}")
        elif event == "mmap.__new__" and args and _is_dev_zero(args[0]):
            # A shared mapping of /dev/zero is a shmem file numbered from the per-CPU counters
            # every run shares (red team 17); seccomp refuses the other ways to make one.
            self.deny("mapping /dev/zero (use mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE))")


    def _link(self, source: Any, link: Any) -> None:
        """A link made inside the allowed folders that points inside them too: its target is
        found from the link's own folder, as the kernel will."""
        where, text = text_of(link), text_of(source)
        if where is None or text is None or not self.inside(where):
            self.deny(f"os.symlink on {_shown(link)}")
        assert where is not None and text is not None
        folder = real_path(normal(where).rpartition("/")[0] or "/")
        if not self.inside(real_path(text, folder)):
            self.deny(f"os.symlink to {_shown(source)}")


def _shown(path: Any) -> str:
    """A path for a denial's text, without running the test's code (no ``str()`` of it)."""
    if type(path) is int:
        return f"descriptor {path}"
    text = text_of(path)
    return text if text is not None else "a path object"


def _is_dev_zero(fileno: Any) -> bool:
    return type(fileno) is int and fileno >= 0 and _open_on(fileno) == "/dev/zero"


def _open_on(fd: int) -> str | None:
    """What a descriptor of this process is open on (a path, or ``pipe:[N]`` and the like);
    None for no such descriptor."""
    try:
        return _readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
    except OSError:
        return None


_readlink = os.readlink  # bound at import: the guard calls nothing the test can replace


def _loopback(address: Any) -> bool:
    """Local servers a test starts itself are fine; the outside world is not."""
    if type(address) is not tuple or not address:
        return True  # AF_UNIX paths and the like stay on this machine
    host = address[0]
    return type(host) is str and (host in ("localhost", "::1", "") or host.startswith("127."))


def _host(address: Any) -> str:
    host = address[0] if type(address) is tuple and address else None
    return repr(host) if type(host) is str else "an address object"


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
        code = self.code or self.module_code
        assert code is not None, "the pristine hook serves no module in a run"
        exec(code, module.__dict__)

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
        where = _in_own_file(report) or (str(crash.path), _line(crash.lineno))
        return {"message": str(crash.message)[:2000], "file": where[0], "line": where[1]}
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, message = report.longrepr
        return {"message": str(message)[:2000], "file": str(path), "line": _line(line)}
    text = str(report.longrepr or "")
    return {"message": text[-2000:], "file": None, "line": None}


def _in_own_file(report: pytest.CollectReport | pytest.TestReport
                 ) -> tuple[str, int | None] | None:
    """The last place of the failure's traceback in the test's own file: where its line
    failed, not the library's assertion helper below it (``unittest``'s ``assertEqual``)."""
    location = getattr(report, "location", None)
    own = location[0] if type(location) is tuple and location else None
    entries = getattr(getattr(report.longrepr, "reprtraceback", None), "reprentries", ())
    for entry in reversed(entries or ()):
        place = getattr(entry, "reprfileloc", None)
        if own and place is not None and str(place.path) == own:
            return own, _line(place.lineno)
    return None


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
