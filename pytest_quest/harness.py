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

This module is the entry point: the command line, the two modes, coverage's
set-up and the exit (:func:`finish`). What the judge and its runs share (the
event channel, the sandbox guard and code watch, the pristine import hook,
the shape of a report) is in :mod:`pytest_quest.runparts`, which forkrun
imports instead of this module.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import pytest

from pytest_quest.measure import coverage_core
from pytest_quest.protocol import WORKER_COVERAGE_ENV, EventKind, HarnessSpec
from pytest_quest.runparts import (
    Channel,
    Guard,
    Pristine,
    coverage_entries,
    report_event,
    short_repr,
)
from pytest_quest.syscalls import calls
from pytest_quest.targetfacts import read_apart

__all__ = ["finish", "main"]


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


@contextlib.contextmanager
def _without_origin() -> Iterator[None]:
    """Start a collector without coverage.py noting where it was made.

    coverage.py keeps each collector's origin (``inspect.stack()``: the
    source of every frame read, the path of every loaded module resolved)
    for one debug message about mismatched collectors: 15 ms of the judge's
    start-up, the same in every submission. Measuring is unchanged. Without
    that function (another coverage.py), nothing is replaced.
    """
    from coverage import collector

    original = getattr(collector, "short_stack", None)
    if original is None:  # pragma: no cover - another coverage.py
        yield
        return
    collector.short_stack = lambda *_args, **_kwargs: "(started by the pytest-quest judge)"
    try:
        yield
    finally:
        collector.short_stack = original


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


def finish(channel: Channel, code: int | None, page_cache: bool = False) -> NoReturn:
    """Report the end (``done`` when there is an exit status) and leave at once.

    Everything the gate reads has been written to the pipe by then, and the
    whole sandbox is thrown away: pytest's session teardown and the
    interpreter's (unloading every module, the collectors' exit handlers)
    would cost a tenth of a small submission's gate for nothing
    (docs/mutation.md, "Cost"). Only our own suite's start-up collector
    saves its data first. ``page_cache``: the runs' page cache was emptied
    between waves (``done`` says so, for the verdict's isolation).
    """
    if code is not None:
        extra = {"page_cache": True} if page_cache else {}
        channel.emit(EventKind.DONE, exitstatus=int(code), denied=[], **extra)
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
    calls.seal()  # confined already: no call of ours is left for the suite to make (_kernel.c)
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
    pristine = Pristine.read(spec, spec.target)  # the file is read when first needed
    sys.meta_path.insert(0, pristine)
    import coverage

    outer = coverage.Coverage.current()  # only pytest-quest's own suite measures the harness
    own = os.path.dirname(os.path.abspath(outer.config.data_file)) if outer else None
    cov = _coverage(spec)
    _keep_measuring_ourselves(outer)
    with _quiet_warnings(), _without_origin():
        cov.start()  # set up here, once, not in the measured run: the first start costs
        cov.stop()
    target = spec.target
    facts = read_apart(pristine.path, target.lines, target.body, spec.sandbox, spec.branch, cov)
    for name in facts.imports:
        with contextlib.suppress(BaseException):  # the run will say what is wrong
            importlib.import_module(name)
    # Only the target file is measured, and nothing of it runs before the judge imports it:
    # measuring starts there, if a conftest does, not while pytest sets up (pytest's
    # configuration and the plugins' imports run a third slower traced).
    pristine.before_exec = _measure_from_here(cov)
    judge = Judge(spec, channel, pristine, cov, facts, seed_fd,
                  functools.partial(finish, channel), own, confined,
                  fresh_coverage=lambda: _coverage(spec))
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
    # Run with -m (confine's runner, runpy): an import of this module by its name would
    # compile and execute the file a second time as another module (20-30 ms of the judge's
    # start-up, and two of every class). forkrun no longer does (it takes what it shares from
    # runparts), but this copy stays the module any such import gets.
    sys.modules.setdefault("pytest_quest.harness", sys.modules[__name__])
    main()
