"""The program that runs inside the sandbox: ``python -m pytest_quest.harness SPEC --events-fd N``.

Two modes (see :class:`~pytest_quest.protocol.HarnessSpec`):

``suite`` (the scan's baseline) runs the project's own suite once in this
process with coverage: trusted code, no judge needed.

``submit`` judges one untrusted test file, and this process never runs it.
It is the *judge*: it reads the target's pristine source before anything
else, compiles it, installs an import hook that serves the target module from
that code object, sets pytest up (config, plugins, the project's protected
conftests, the third-party modules the target imports), and at collection
time forks a *zygote* (:mod:`pytest_quest.forkrun`) that forks one child per
run. Each child installs its run's module (pristine or a mutant), collects
the test file, runs it and answers through its own pipe; the judge parses
every answer defensively, schedules the controls and mutants
(:mod:`pytest_quest.mutate`) and alone writes events to the inherited pipe
``N``, which no child holds. See docs/security.md ("evidence channel").
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import linecache
import os
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import pytest

from pytest_quest.measure import coverage_core
from pytest_quest.protocol import (
    WORKER_COVERAGE_ENV,
    EventKind,
    HarnessSpec,
    TargetSpec,
    encode_event,
)
from pytest_quest.scrub import body_of, file_spec, holds_body

__all__ = ["Channel", "Guard", "Pristine", "Watch", "finish", "main"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": 1, "os.rmdir": 1, "os.mkdir": 1, "os.rename": 2, "os.chmod": 1,
    "os.chown": 1, "os.link": 2, "os.symlink": 2, "os.truncate": 1, "os.utime": 1,
    "shutil.rmtree": 1, "shutil.move": 2, "shutil.copyfile": 2, "shutil.copytree": 2,
}
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                           "os.spawn", "os.fork", "os.forkpty", "pty.spawn"})
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

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """Let pytest-quest's own code write; never around test code."""
        self.paused = True
        try:
            yield
        finally:
            self.paused = False

    def inside(self, path: Any) -> bool:
        if isinstance(path, int) or path is None:
            return True
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
                if not self.inside(path):
                    self.deny(f"{event} on {path}")
        elif event in _SPAWN_EVENTS and not self.confined:
            self.deny(f"starting a process ({event})")
        elif event == "sys.addaudithook":
            self.deny("installing an audit hook")
        elif event in ("socket.connect", "socket.sendto") and not _loopback(args[1]):
            self.deny(f"network access to {args[1]!r}")


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

    def __init__(self, target: TargetSpec, path: str, text: str) -> None:
        self.path = os.path.realpath(path)
        self.module = target.module
        self.qualname = ".".join((*target.owner, target.name))
        self.text = text
        self.body = body_of(text)
        self.paused = False
        self.loading = False
        self.nodeid = ""
        self.reads: list[str] = []

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
            func = args[0]
            if (not self.loading and type(func) is types.FunctionType
                    and func.__module__ == self.module and func.__qualname__ == self.qualname):
                self._saw("read the target's __code__")
        elif event == "compile" and len(args) == 2 and not _pytest_parsing():
            source, filename = args
            if self._is_target(filename):
                self._saw("compiled code under the target's file name")
            elif isinstance(source, str | bytes) and self.text:
                text = source if isinstance(source, str) else source.decode("utf-8", "replace")
                if self.text in text or holds_body(text, self.body):
                    self._saw("compiled the target's source text")


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


def _limit(cpu: int | None, memory_mb: int | None, fsize_mb: int | None) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no resource limits
        return
    pairs = (
        (cpu, resource.RLIMIT_CPU, 1),
        (memory_mb, resource.RLIMIT_AS, 1024 * 1024),
        (fsize_mb, resource.RLIMIT_FSIZE, 1024 * 1024),
    )
    for value, which, scale in pairs:
        if not value:
            continue
        soft = int(value * scale)
        _hard_cur = resource.getrlimit(which)[1]
        hard = soft if _hard_cur == resource.RLIM_INFINITY else min(soft, _hard_cur)
        with contextlib.suppress(ValueError, OSError):  # the platform may refuse
            resource.setrlimit(which, (min(soft, hard), hard))
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


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


# ------------------------------------------------------------ the pristine target
class Pristine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The target module as read before any run, served to every import of it.

    The judge reads the source once, compiles it with the real file name and
    fills :mod:`linecache` from that text, so tracebacks and
    ``inspect.getsource`` never open the file. In a run, :attr:`code` is the
    run's module (the pristine one or a mutant), served to every import of
    the target in that run: a module whose import failed is imported again
    by the test module, and it must get the same code.
    """

    def __init__(self, target: TargetSpec, path: str, source: bytes) -> None:
        self.target = target
        self.path = path
        self.source = source
        self.text = source.decode("utf-8")
        self.module_code: types.CodeType = compile(source, path, "exec", dont_inherit=True)
        self.code: types.CodeType | None = self.module_code
        self.watch: Watch | None = None
        #: Called before the module executes in the judge (it starts measuring there).
        self.before_exec: Callable[[], None] | None = None
        lines = self.text.splitlines(keepends=True)
        linecache.cache[path] = (len(self.text), None, lines, path)

    @classmethod
    def read(cls, spec: HarnessSpec, target: TargetSpec) -> Pristine:
        path = os.path.join(spec.sandbox, target.file)
        with open(path, "rb") as handle:
            return cls(target, path, handle.read())

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
            exec(self.code or self.module_code, module.__dict__)
        finally:
            if watch is not None:
                watch.loading = False

    def get_source(self, fullname: str) -> str:
        return self.text

    def get_filename(self, fullname: str) -> str:
        return self.path

    def is_package(self, fullname: str) -> bool:
        return os.path.basename(self.path) == "__init__.py"


def third_party_imports(source: str, sandbox: str) -> list[str]:
    """Modules the target imports that live outside the sandbox (found statically).

    The judge imports them before forking, so each run pays nothing for
    them; the project's own modules stay unimported, so every run loads them
    fresh (with the run's target in place).
    """
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    root = os.path.realpath(sandbox) + os.sep
    out: list[str] = []
    for name in dict.fromkeys(names):
        try:
            found = importlib.util.find_spec(name.split(".", 1)[0])
        except (ImportError, ValueError):
            continue
        origin = getattr(found, "origin", None)
        if found is None or not origin or os.path.realpath(origin).startswith(root):
            continue
        out.append(name)
    return out


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


# ------------------------------------------------------------------- suite mode
class SuiteSession:
    """The baseline: the project's own suite, once, measured; events straight to the pipe.

    In one process, or over pytest-xdist workers (:mod:`pytest_quest.workers`):
    then the workers collect and run, this controller turns their reports
    into events and merges their coverage into its own before the report.
    """

    def __init__(self, channel: Channel, cov: Any, spec: HarnessSpec) -> None:
        self.channel = channel
        self.cov = cov
        self.spec = spec
        self.collected = False
        #: Each finished worker's coverage data (``coverage.CoverageData.dumps``).
        self.blobs: list[bytes] = []

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """On xdist workers this controller runs no test: only the workers measure on.

        Each worker measures from its own start (its imports included), so
        tracing the controller's report handling would only slow it down.
        """
        if getattr(config.option, "dist", "no") != "no":
            self.cov.stop()

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.channel.emit(EventKind.COLLECT_ERROR, nodeid=report.nodeid, **short_repr(report))

    def pytest_collection_finish(self, session: Any) -> None:
        self._collected([i.nodeid for i in session.items], 0)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        """Every worker collects the same tests; the first to finish tells how many."""
        self._collected(list(ids), int(node.workerinput["workercount"]))

    def _collected(self, nodeids: list[str], workers: int) -> None:
        if not self.collected:
            self.collected = True
            self.channel.emit(EventKind.COLLECTED, count=len(nodeids), nodeids=nodeids,
                              workers=workers)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        from pytest_quest.workers import OUTPUT_KEY

        blob = getattr(node, "workeroutput", {}).get(OUTPUT_KEY)
        if isinstance(blob, bytes):
            self.blobs.append(blob)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.channel.emit(EventKind.REPORT, **report_event(report))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: Any) -> Any:
        try:
            return (yield)
        finally:
            if not session.config.option.collectonly:
                self.cov.stop()
                self.channel.emit(EventKind.COVERAGE,
                                  **_json_coverage(self.cov, self.spec, self.blobs))
                self.channel.emit(EventKind.ROUND_DONE, round=1)


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


def _json_coverage(cov: Any, spec: HarnessSpec, blobs: Sequence[bytes] = ()) -> dict[str, Any]:
    """coverage's JSON report (with the xdist workers' data), read back and trimmed."""
    from pytest_quest.workers import merge

    morfs = [os.path.join(spec.sandbox, f) for f in spec.measure_files] or None
    outfile = os.path.join(spec.private_dir, "coverage.json")
    try:
        with _quiet_warnings():
            merge(cov, blobs)
            cov.json_report(morfs=morfs, outfile=outfile)
        with open(outfile, encoding="utf-8") as handle:
            return {"files": coverage_entries(json.load(handle), spec.sandbox)}
    except Exception as exc:
        return {"files": {}, "error": str(exc)}


@contextlib.contextmanager
def _quiet_warnings() -> Iterator[None]:
    """Nothing of ours may warn into a project that turns warnings into errors."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _coverage_options(spec: HarnessSpec) -> dict[str, Any]:
    """What is measured: ``coverage.Coverage`` keywords, the same in every xdist worker."""
    # Include patterns, never source=: that takes no single module (a flat xmltodict.py).
    include = [os.path.join(spec.sandbox, f) for f in spec.measure_files or spec.sources]
    return {"branch": spec.branch, "include": include or None}


def _coverage(spec: HarnessSpec) -> Any:
    import coverage

    cov = coverage.Coverage(data_file=None, config_file=False, **_coverage_options(spec))
    # sys.monitoring on 3.12+ where it measures what the run needs (measure.coverage_core).
    core = coverage_core(spec.branch)
    if core is not None:
        cov.set_option("run:core", core)
    return cov


#: The collector pytest-quest's own suite started at process start-up, if any.
_OUTER: list[Any] = []


def _keep_measuring_ourselves(outer: Any) -> None:
    """pytest-quest's own suite measures this process (docs/development.md).

    coverage.py stops saving the collector it started at process start-up
    as soon as the process creates a Coverage object of its own, which the
    harness always does; for our suite's measurement the start-up one must
    still save its data when the process leaves (:func:`finish`). Only ever
    set when such a collector exists.
    """
    if outer is not None:
        outer._auto_save = True
        _OUTER.append(outer)


def finish(channel: Channel, code: int | None) -> NoReturn:
    """Report the end (``done`` when there is an exit status) and leave at once.

    Everything the gate reads has been written to the pipe by then, and the
    whole sandbox is thrown away: pytest's session teardown and the
    interpreter's (unloading every module, the collectors' exit handlers)
    would cost a tenth of a small submission's gate for nothing
    (docs/mutation.md, "Cost"). Only our own suite's start-up collector
    saves its data first.
    """
    if code is not None:
        channel.emit(EventKind.DONE, exitstatus=int(code), denied=[])
    channel.close()
    for outer in _OUTER:
        with contextlib.suppress(Exception):
            outer.stop()
            outer.save()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _run_suite(spec: HarnessSpec, channel: Channel, confined: str) -> int | None:
    import coverage

    # xdist workers measure alike (pytest imports pytest_quest.workers itself: -p).
    os.environ[WORKER_COVERAGE_ENV] = json.dumps(_coverage_options(spec))
    outer = coverage.Coverage.current()
    cov = _coverage(spec)
    _keep_measuring_ourselves(outer)
    cov.start()
    plugins: list[Any] = [SuiteSession(channel, cov, spec)]
    if spec.guard:
        guard = Guard(spec.allowed_write, confined)
        sys.addaudithook(guard)
    code = pytest.main(list(spec.pytest_args), plugins=plugins)
    return int(code)


# ------------------------------------------------------------------ submit mode
def _run_submit(spec: HarnessSpec, channel: Channel, confined: str,
                seed_fd: int | None = None) -> int | None:
    from pytest_quest.forkrun import Judge, set_dumpable

    assert spec.target is not None and spec.test_file is not None
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        channel.emit(EventKind.ENV_ERROR, message="judging a submission needs os.fork, which "
                     "this platform lacks (docs/mutation.md)")
        return None
    set_dumpable(False)  # no process of the same user may ptrace or read the judge
    pristine = Pristine.read(spec, spec.target)
    sys.meta_path.insert(0, pristine)
    for name in third_party_imports(pristine.text, spec.sandbox):
        with contextlib.suppress(BaseException):  # the run will say what is wrong
            importlib.import_module(name)
    import coverage

    outer = coverage.Coverage.current()  # only pytest-quest's own suite measures the harness
    own = os.path.dirname(os.path.abspath(outer.config.data_file)) if outer else None
    cov = _coverage(spec)
    _keep_measuring_ourselves(outer)
    with _quiet_warnings():
        cov.start()  # set up here, once, not in the measured run: the first start costs
        cov.stop()
    # Only the target file is measured, and nothing of it runs before the judge imports it:
    # measuring starts there, if a conftest does, not while pytest sets up (pytest's
    # configuration and the plugins' imports run a third slower traced).
    pristine.before_exec = _measure_from_here(cov)
    judge = Judge(spec, channel, pristine, cov, seed_fd,
                  lambda status: finish(channel, status), own, confined)
    _plugins_as_installed(pytest.Config)
    code = pytest.main(list(spec.pytest_args), plugins=[judge])
    return int(code)  # pytest stopped before collection: the judge never ran


def _measure_from_here(cov: Any) -> Callable[[], None]:
    """Start ``cov`` (once) when the judge itself imports the target module.

    A conftest that imports the module runs its top level, and maybe its
    functions, in the judge before any run exists (the "swap" install,
    docs/mutation.md): those lines must be in the coverage each run goes on
    from. The frame executing the module is new, so it is measured whole.
    """
    started: list[bool] = []

    def start() -> None:
        if not started:
            started.append(True)
            with _quiet_warnings():
                cov.start()

    return start


def _plugins_as_installed(config_class: Any) -> bool:
    """The judge imports installed plugins without rewriting their asserts.

    pytest rewrites the asserts of every module of each distribution that
    declares a ``pytest11`` plugin (anyio's whole package: 47 modules), and
    caches the result beside the sources. The sandbox writes no bytecode and
    the confined run sees site-packages read-only, so the judge rewrote them
    on every submission: 0.2-0.4 s of its start-up. What that buys is richer
    messages for asserts failing inside a plugin's own code; pass or fail is
    the same, and the test file and the conftests are rewritten as always
    (docs/mutation.md, "Cost"). Returns False where this pytest has no such
    step (nothing changes).
    """
    original = getattr(config_class, "_mark_plugins_for_rewrite", None)
    if original is None:  # pragma: no cover - another pytest: plugins are rewritten
        return False

    def hook_only(self: Any, hook: Any, *_args: Any, **_kwargs: Any) -> None:
        self.pluginmanager.rewrite_hook = hook  # what else that step did: keep the hook

    config_class._mark_plugins_for_rewrite = hook_only
    return True


def _arguments(argv: list[str]) -> tuple[str, int, int | None]:
    """SPEC, the event pipe and, for a submission, the pipe holding the schedule's seed."""
    usage = "usage: python -m pytest_quest.harness SPEC --events-fd N [--seed-fd M]"
    if len(argv) not in (3, 5) or argv[1] != "--events-fd" or not argv[2].isdigit():
        raise SystemExit(usage)
    if len(argv) == 5 and (argv[3] != "--seed-fd" or not argv[4].isdigit()):
        raise SystemExit(usage)
    return argv[0], int(argv[2]), int(argv[4]) if len(argv) == 5 else None


def main(argv: list[str] | None = None) -> NoReturn:
    confined = ""
    if {"PYTEST_QUEST_CONFINE", "PYTEST_QUEST_CONFINED"} & os.environ.keys():
        from pytest_quest import confine  # first thing: before any project or test code

        confined = confine.enter_requested()
    spec_path, fd, seed_fd = _arguments(sys.argv[1:] if argv is None else argv)
    with open(spec_path, encoding="utf-8") as handle:
        spec = HarnessSpec.from_json(handle.read())
    channel = Channel(fd)
    channel.emit(EventKind.START, pid=os.getpid(), time=time.time())
    _limit(spec.limits.cpu, spec.limits.memory_mb, spec.limits.fsize_mb)
    if spec.mode == "suite":
        finish(channel, _run_suite(spec, channel, confined))
    finish(channel, _run_submit(spec, channel, confined, seed_fd))


if __name__ == "__main__":
    # Run with -m (confine's runner, runpy): forkrun imports this module by its name, which
    # would compile and execute the file a second time as another module (20-30 ms of the
    # judge's start-up, and two of every class). This copy is that module.
    sys.modules.setdefault("pytest_quest.harness", sys.modules[__name__])
    main()
