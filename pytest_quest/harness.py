"""The program that runs inside the sandbox: ``python -m pytest_quest.harness SPEC``.

It is the only pytest-quest code that shares a process with untrusted test
code, so it sets its own limits and guards first, starts coverage before any
conftest is imported, then runs pytest once. Inside that one session it runs
the collected tests several times (first measured, then reruns for
flakiness) and hands over to the mutation stage, so the interpreter and
pytest start-up are paid once. Results go out as JSON lines on a file opened
before the guards were installed; a process that dies early simply leaves
no ``done`` event, which the gate reads as a missing report.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

import pytest

__all__ = ["main"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": 1, "os.rmdir": 1, "os.mkdir": 1, "os.rename": 2, "os.chmod": 1,
    "os.chown": 1, "os.link": 2, "os.symlink": 2, "os.truncate": 1, "os.utime": 1,
    "shutil.rmtree": 1, "shutil.move": 2, "shutil.copyfile": 2, "shutil.copytree": 2,
}
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                           "os.spawn", "os.fork", "os.forkpty", "pty.spawn"})


class Emitter:
    """Writes one JSON object per line and flushes, so a crash loses nothing sent."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def __call__(self, event: str, **data: Any) -> None:
        data["event"] = event
        self._stream.write(json.dumps(data, default=str) + "\n")
        self._stream.flush()


class Guard:
    """An audit hook: no writes outside the allowed roots, no child processes.

    Audit hooks cannot be removed from Python code. Our own writes (the
    coverage report) and forks (the mutation stage) run inside :meth:`trusted`.
    Once the kernel confines the run (``confined`` names how), a child process
    can do no more than the test itself, so processes are allowed: many real
    plugins start one at import. Without it, a denial before the submitted test
    module is collected is the environment's doing (``before_test``), not the test's.
    """

    def __init__(self, allowed: list[str], emit: Emitter, confined: str = "") -> None:
        self.allowed = tuple(os.path.realpath(a).rstrip(os.sep) + os.sep for a in allowed)
        self.emit = emit
        self.confined = confined
        self.paused = False
        self.test_started = False
        self.denied: list[str] = []

    def pytest_collectstart(self, collector: Any) -> None:
        """The first test module is the submitted one: from here on, denials are its doing."""
        if isinstance(collector, pytest.Module):
            self.test_started = True

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """Let pytest-quest's own code write and fork; never around test code."""
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
        self.denied.append(what)
        self.emit("denied", what=what, before_test=not self.test_started)
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


def _limit(limits: dict[str, Any]) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no resource limits
        return
    pairs = {
        "cpu": (resource.RLIMIT_CPU, 1),
        "memory_mb": (resource.RLIMIT_AS, 1024 * 1024),
        "fsize_mb": (resource.RLIMIT_FSIZE, 1024 * 1024),
    }
    for key, (which, scale) in pairs.items():
        value = limits.get(key)
        if not value:
            continue
        soft = int(value * scale)
        _hard_cur = resource.getrlimit(which)[1]
        hard = soft if _hard_cur == resource.RLIM_INFINITY else min(soft, _hard_cur)
        with contextlib.suppress(ValueError, OSError):  # the platform may refuse
            resource.setrlimit(which, (min(soft, hard), hard))
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _short_repr(report: Any) -> dict[str, Any]:
    """Location and message of a failure, not pages of traceback."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return {"message": str(crash.message)[:2000], "file": str(crash.path), "line": crash.lineno}
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, message = report.longrepr
        return {"message": str(message)[:2000], "file": str(path), "line": line}
    text = str(report.longrepr or "")
    return {"message": text[-2000:], "file": None, "line": None}


class Session:
    """The pytest plugin that drives measured run, reruns and mutation in one session."""

    def __init__(self, spec: dict[str, Any], emit: Emitter, cov: Any, guard: Guard | None) -> None:
        self.spec = spec
        self.emit = emit
        self.cov = cov
        self.guard = guard
        self.target = spec.get("target")
        self.original: Any = None
        self.original_code: Any = None
        self.round = 1
        #: Why the target did not import before pytest started (retried after collection).
        self.import_error: str | None = None
        self.env_failed = False
        #: Coverage of the measured round by file and rerun outcomes (the mutation stage's inputs).
        self.measured_files: dict[str, Any] | None = None
        self.rerun_outcomes: list[str] = []

    # ------------------------------------------------------------ collection
    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.emit("collect_error", nodeid=report.nodeid, **_short_repr(report))

    def pytest_collection_finish(self, session: Any) -> None:
        if self.import_error is not None:
            error = _import_target(self.spec, self, self.emit)
            if error is not None:
                self.env_failed = True
                self.emit("env_error", message=error)
        self.emit("collected", count=len(session.items), nodeids=[i.nodeid for i in session.items])

    # --------------------------------------------------------------- running
    def pytest_runtest_logreport(self, report: Any) -> None:
        data: dict[str, Any] = {
            "round": self.round,
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "duration": round(report.duration, 6),
        }
        if hasattr(report, "wasxfail"):
            data["xfail"] = True
        if report.failed or report.skipped:
            data.update(_short_repr(report))
        self.emit("report", **data)

    def _check_target(self, item: Any) -> None:
        """Was the target function replaced while the test ran? (monkeypatch, mock.patch)."""
        if self.original is None:
            return
        current = self.resolve()
        if current is not self.original or self.original.__code__ is not self.original_code:
            self.emit("target_replaced", nodeid=item.nodeid)

    def resolve(self) -> Any:
        """The target's plain function as its module holds it now (or None)."""
        owner: Any = sys.modules.get(self.target["module"])
        for part in self.target["owner"]:
            owner = getattr(owner, part, None)
        holder = getattr(owner, "__dict__", None)
        value = holder.get(self.target["name"]) if holder is not None else None
        if isinstance(value, property):
            value = getattr(value, self.target.get("accessor") or "fget")
        value = getattr(value, "__func__", value)  # staticmethod, classmethod
        value = getattr(value, "func", value)  # functools.cached_property
        while hasattr(value, "__wrapped__"):  # functools.wraps decorators
            value = value.__wrapped__
        return value

    def pytest_runtestloop(self, session: Any) -> Any:
        if self.env_failed:
            return True
        if session.testsfailed or session.config.option.collectonly:
            return None
        from _pytest.runner import runtestprotocol

        items = session.items
        hook = session.config.hook
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            hook.pytest_runtest_protocol(item=item, nextitem=following)
        if self.cov is not None:
            self.cov.stop()
            self._emit_coverage()
        self.emit("round_done", round=1)
        for number in range(2, int(self.spec.get("reruns", 1)) + 1):
            self.round = number
            outcomes = []
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                reports = runtestprotocol(item, nextitem=following, log=False)
                outcomes.append(_outcome(reports))
            self.rerun_outcomes.extend(outcomes)
            self.emit("round_done", round=number, outcomes=dict(zip(
                [i.nodeid for i in items], outcomes, strict=True)))
        mutation = self.spec.get("mutation")
        if mutation and self.original is not None:
            from pytest_quest import mutate

            mutate.run_stage(self, items, mutation)
        return True

    def _emit_coverage(self) -> None:
        files = self.spec.get("measure_files")
        outfile = os.path.join(self.spec["private_dir"], "coverage.json")
        morfs = [os.path.join(self.spec["sandbox"], f) for f in files] if files else None
        trusted = self.guard.trusted() if self.guard else contextlib.nullcontext()
        try:
            with trusted:
                self.cov.json_report(morfs=morfs, outfile=outfile)
        except Exception as exc:
            self.emit("coverage", files={}, error=str(exc))
            return
        with open(outfile, encoding="utf-8") as handle:
            data = json.load(handle)
        root = self.spec["sandbox"].rstrip(os.sep) + os.sep
        out = {}
        for name, entry in data.get("files", {}).items():
            rel = name[len(root):] if name.startswith(root) else name
            entry.pop("functions", None)
            entry.pop("classes", None)
            out[rel.replace(os.sep, "/")] = entry
        self.measured_files = out
        self.emit("coverage", files=out)


def _outcome(reports: list[Any]) -> str:
    for report in reports:
        if report.failed:
            return "failed"
        if report.skipped:
            return "skipped"
    return "passed"


def _import_target(spec: dict[str, Any], session: Session, emit: Emitter) -> str | None:
    """Import the pristine target and remember the function; return the error, if any.

    Called before pytest starts (so tests cannot touch it first) and, when that
    fails, once more after collection: some projects only import once their
    conftest has set the stage (paths, settings modules).
    """
    import importlib

    target = spec["target"]
    try:
        importlib.import_module(target["module"])
    except BaseException as exc:  # anything here is the environment's fault, not the test's
        return f"importing {target['module']} failed: {type(exc).__name__}: {exc}"
    func = session.resolve()
    if func is None or not hasattr(func, "__code__"):
        emit("target_missing", module=target["module"], qualname=target["qualname"])
        return None
    session.original = func
    session.original_code = func.__code__
    return None


def main(argv: list[str] | None = None) -> int:
    confined = ""
    if {"PYTEST_QUEST_CONFINE", "PYTEST_QUEST_CONFINED"} & os.environ.keys():
        from pytest_quest import confine  # first thing: before any project or test code

        confined = confine.enter_requested()
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    events = os.path.join(spec["private_dir"], "events.jsonl")
    stream = open(events, "a", encoding="utf-8")  # noqa: SIM115 - closed after pytest.main
    emit = Emitter(stream)
    emit("start", pid=os.getpid(), time=time.time())
    _limit(spec.get("limits", {}))

    import coverage

    cov = None
    if spec.get("coverage", True):
        cov = coverage.Coverage(
            data_file=None,
            config_file=False,
            branch=bool(spec.get("branch")),
            include=[os.path.join(spec["sandbox"], f) for f in spec["measure_files"]]
            if spec.get("measure_files")
            else None,
            source=[os.path.join(spec["sandbox"], s) for s in spec.get("sources", [])] or None,
        )
    guard = None
    if spec.get("guard", True):
        guard = Guard(spec["allowed_write"], emit, confined)
    session = Session(spec, emit, cov, guard)
    if cov is not None:
        cov.start()
    if spec.get("target"):
        session.import_error = _import_target(spec, session, emit)
    if guard is not None:
        sys.addaudithook(guard)
    plugins: list[Any] = [session, _TargetCheck(session)] if spec.get("target") else [session]
    if guard is not None:
        plugins.append(guard)
    code = pytest.main(list(spec["pytest_args"]), plugins=plugins)
    emit("done", exitstatus=int(code), denied=guard.denied if guard else [])
    stream.close()
    if guard is not None:
        guard.paused = True  # test code is over: exit hooks may write (see docs/development.md)
    return 0


class _TargetCheck:
    """Checks the target function is still itself at the end of each test call."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        try:
            return (yield)
        finally:
            self.session._check_target(item)


if __name__ == "__main__":
    sys.exit(main())
