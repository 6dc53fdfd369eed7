"""The CI ratchet for one pytest session: measurement arranged, verdict at the end.

Imported only when ``--quest-check`` or ``--quest-update`` is given (see
:mod:`pytest_quest.plugin`), so plain pytest runs load none of this.
"""


from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
from argparse import Namespace
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import find_root
from pytest_quest.errors import QuestError
from pytest_quest.facts import Fact
from pytest_quest.gitbase import HistoryCheck, auto_base, check_history
from pytest_quest.ledger import LEDGER_DIR, Ledger
from pytest_quest.lockcheck import (
    TEST_CHANGED,
    CheckReport,
    check_locks,
    lock_covered,
    locked_test,
    own_tests_contexts,
    read_entries,
    source_dirs,
)
from pytest_quest.measure import coverage_core
from pytest_quest.states import State

__all__ = ["PLUGIN_NAME", "QuestPlugin"]

PLUGIN_NAME = "_quest"
#: Variables that would redirect or reconfigure our private measurement.
_COVERAGE_ENV = ("COVERAGE_FILE", "COVERAGE_RCFILE", "COVERAGE_FORCE_CONFIG", "COVERAGE_DEBUG",
                 "COVERAGE_DEBUG_FILE")


def _private_dir() -> tuple[Path, bool]:
    """The temp dir holding our rc and data file, and whether this process owns it.

    An xdist worker must use its controller's rc so its data file lands where
    the controller combines. Workers are the controller's direct children, so
    the directory is named after the controller's pid and found by
    ``getppid()``; nothing travels through the environment, and a pytest
    started from inside a test never mistakes itself for a worker.
    """
    base = Path(tempfile.gettempdir())
    uid = os.getuid() if hasattr(os, "getuid") else 0
    if os.environ.get("PYTEST_XDIST_WORKER"):
        parent = base / f"pytest-quest-{uid}-{os.getppid()}"
        if (parent / "coveragerc").is_file():
            return parent, False
    own = base / f"pytest-quest-{uid}-{os.getpid()}"
    shutil.rmtree(own, ignore_errors=True)  # a stale one from a recycled pid
    own.mkdir(mode=0o700)
    return own, True


class QuestPlugin:
    """The ratchet for one pytest session (on the controller; idle on xdist workers)."""

    def __init__(self, config: pytest.Config, namespace: Namespace) -> None:
        self.config = config
        self.update = bool(namespace.quest_update)
        self.json_path = namespace.quest_json
        self.worker = False
        self.report: CheckReport | None = None
        self.error: str | None = None
        self.private: Path | None = None
        self.owns_private = False
        self.saved_env: dict[str, str] = {}
        invoked = Path(config.invocation_params.dir)
        if namespace.quest_ledger:
            self.ledger_path = (invoked / namespace.quest_ledger).resolve()
        else:
            self.ledger_path = Ledger.for_root(find_root(invoked)).path
        try:
            self.ledger = Ledger.load(self.ledger_path)
        except QuestError as exc:
            raise pytest.UsageError(f"pytest-quest: {exc}") from None
        # A ledger in some project's .quest/ belongs to that project; one kept
        # anywhere else describes the project pytest runs in.
        if self.ledger_path.parent.name == LEDGER_DIR:
            self.root = self.ledger.root
        else:
            self.root = find_root(invoked)
        self.branch = bool(self.ledger.settings.get("branch"))
        # Judged here, before pytest-cov starts measuring: a base that cannot be
        # read stops the run at once. xdist workers judge it too (a few git
        # calls); only the controller reports it.
        self.history = self._history(getattr(namespace, "quest_base", None))
        self.unjudged: list[str] = []
        #: Test files (from the rootdir) this run reported on, xdist workers' included.
        self.ran: set[str] = set()
        self._arrange_coverage(namespace)

    def _history(self, base: str | None) -> HistoryCheck:
        """Judge the ledger against ``--quest-base`` (or the CI's base) before the suite runs.

        An explicit base that cannot be read stops the run at once: a check
        that silently compared nothing would look like a pass.
        """
        note = None
        if not base:
            base, note = auto_base(root=self.root)
            if base is None:
                return HistoryCheck(None, note)
        try:
            return check_history(self.root, self.ledger_path, base, note)
        except QuestError as exc:
            raise pytest.UsageError(f"pytest-quest: {exc}") from None

    # ------------------------------------------------------------ measuring
    def _arrange_coverage(self, namespace: Namespace) -> None:
        if not hasattr(namespace, "cov_source"):
            self.error = ("pytest-cov is not active (disabled with -p no:pytest_cov?): "
                          "nothing measures")
            return
        if getattr(namespace, "no_cov", False):
            self.error = "coverage is disabled by --no-cov: the ratchet cannot verify anything"
            return
        if self.update:
            # Which test ran each line: an update locks through the project's own tests only.
            namespace.cov_context = "test"
            self._unset("COVERAGE_CORE")  # sysmon records no contexts (measure.coverage_core)
        if namespace.cov_source:
            # The user's --cov measures; a branch-mode ledger needs branch data from it.
            if self.branch:
                namespace.cov_branch = True
            return
        self.private, self.owns_private = _private_dir()
        rc = self.private / "coveragerc"
        if self.owns_private:
            # sys.monitoring where it measures what the ledger needs (measure.coverage_core);
            # a COVERAGE_CORE the user set still wins, as coverage.py lets it.
            core = coverage_core(self.branch, contexts=self.update)
            rc.write_text(
                "[run]\n"
                f"branch = {self.branch}\n"
                f"{f'core = {core}' if core else ''}\n"
                f"data_file = {self.private / '.coverage'}\n"
                # An unimported source is the ratchet's fact to report, not a warning
                # that `filterwarnings = error` would turn into a crash.
                "disable_warnings = module-not-imported, module-not-measured, "
                "no-data-collected\n",
                encoding="utf-8",
            )
        for name in _COVERAGE_ENV:
            self._unset(name)
        if self.branch and sys.version_info < (3, 14):
            self._unset("COVERAGE_CORE")  # sysmon + branch warns (and falls back) before 3.14
        namespace.cov_source = source_dirs(self.ledger, self.root)
        namespace.cov_config = str(rc)
        namespace.cov_branch = self.branch
        namespace.cov_report = [""]  # pytest-cov: no report at all

    def _unset(self, name: str) -> None:
        if name in os.environ:
            self.saved_env[name] = os.environ.pop(name)

    def _data_file(self) -> str | None:
        cov_plugin = self.config.pluginmanager.getplugin("_cov")
        controller = getattr(cov_plugin, "cov_controller", None)
        cov = getattr(controller, "cov", None)
        if cov is None:
            return None
        topdir = Path(getattr(controller, "topdir", "."))
        names = []
        with contextlib.suppress(Exception):
            names.append(cov.get_data().data_filename())
        # After a report through ``[paths]`` (yarl's .coveragerc) the data object is an
        # in-memory remap; the run itself was saved to the configured file.
        names.append(cov.config.data_file)
        for name in names:
            if (topdir / name).is_file():
                return str(topdir / name)
        return str(topdir / names[0])

    # ---------------------------------------------------------------- hooks
    def pytest_configure(self, config: pytest.Config) -> None:
        """xdist workers only measure (through pytest-cov); the controller judges."""
        self.worker = hasattr(config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Which test files ran: a narrowed run judges the locks they earned."""
        if report.when == "call":
            self.ran.add(report.nodeid.split("::", 1)[0])

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        """``--quest-update`` runs the suite and the locked quest tests only.

        A file in the quest folder that no PASS quest was locked by (a test
        the gate FAILed, one nobody submitted) is left out of the run: the
        gate never judged it. A locked test that changed runs, and is judged
        again at the end (see ``_recheck``). The locked ones run to keep
        their own locks checked; they lock nothing new (:meth:`_judge` counts
        only the project's own tests for that).
        """
        if not self.update:
            return
        folder = self._quest_dir()
        locked = {locked_test(q) for q in self.ledger.quests.values() if q.state is State.PASS}
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            path = Path(str(item.path)).resolve()
            inside = folder == path or folder in path.parents
            rel = path.relative_to(self.root).as_posix() if self.root in path.parents else None
            (drop if inside and rel not in locked else keep).append(item)
        if drop:
            self.unjudged = sorted({Path(str(i.path)).name for i in drop})
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def _quest_dir(self) -> Path:
        """The quest test folder, as the ledger's last scan configured it."""
        return (self.root / str(self.ledger.settings.get("test_dir") or "tests/quest")).resolve()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Judge after pytest-cov combined its data (its wrapper runs inside ours)."""
        result = yield
        if self.worker or session.config.option.collectonly:
            return result
        self.report = self._judge(session)
        if not self.report.ok:
            session.testsfailed += 1  # the run's exit code becomes 1 (tests failed)
        if self.json_path:
            out = Path(self.config.invocation_params.dir) / self.json_path
            out.write_text(json.dumps(self.report.to_dict(), indent=2, sort_keys=True) + "\n",
                           encoding="utf-8")
        return result

    def _judge(self, session: pytest.Session) -> CheckReport:
        history = self.history.to_dict()
        if self.error is not None:
            return CheckReport(error=self.error, history=history)
        data_file = self._data_file()
        if data_file is None or not Path(data_file).is_file():
            return CheckReport(error="pytest-cov recorded no coverage data for this run",
                               history=history)
        wanted = {State.PASS, State.TODO} if self.update else {State.PASS}
        rels = {q.path for q in self.ledger.quests.values() if q.state in wanted}
        try:
            entries = read_entries(data_file, self.root, rels, self.branch)
            todo_entries = None
            if self.update:
                todo_rels = {q.path for q in self.ledger.quests.values()
                             if q.state is State.TODO}
                todo_entries = read_entries(data_file, self.root, todo_rels, self.branch,
                                            contexts=own_tests_contexts(self._quest_dir(),
                                                                        session.config.rootpath))
        except Exception as exc:
            return CheckReport(error=f"cannot read coverage data {data_file}: {exc}",
                               history=history)
        narrowed = _narrowed(session.config, self.root)
        ran = None
        if narrowed is not None:
            rootdir = session.config.rootpath
            files = [(rootdir / f).resolve() for f in self.ran]
            ran = {f.relative_to(self.root).as_posix() for f in files if self.root in f.parents}
        report = check_locks(self.ledger, entries, self.branch, want_todo=self.update,
                             root=self.root, ran=ran, todo_entries=todo_entries)
        report.narrowed = narrowed
        report.history = self.history.to_dict()
        if self.update:
            if report.narrowed is not None:
                report.skipped_update = f"the run was narrowed ({report.narrowed})"
            elif session.testsfailed:
                report.skipped_update = (
                    f"{session.testsfailed} test(s) failed: a failing suite locks nothing"
                )
            else:
                try:
                    refused = self._recheck(report)
                    if refused:
                        report.skipped_update = (
                            f"changed locked test(s) of {', '.join(refused)} ran and the gate "
                            "did not accept them: nothing is locked through unjudged tests")
                    else:
                        lock_covered(self.ledger_path, report, self.branch, self.root)
                except QuestError as exc:
                    report.skipped_update = str(exc)
        return report

    def _recheck(self, report: CheckReport) -> list[str]:
        """``--quest-update`` judges changed locked tests again: a gate PASS relocks them.

        Returns the quests whose changed test the gate did not accept: this
        run executed them, so it must not lock anything else through them.
        """
        changed = [p.quest for p in report.problems
                   if any(f.rule == TEST_CHANGED for f in p.facts)]
        if not changed:
            return []
        from pytest_quest.config import load_settings
        from pytest_quest.recheck import recheck

        settings = load_settings(self.root, self.ledger.settings)
        relocked = {r.quest for r in recheck(settings, tuple(changed)) if r.verdict == "PASS"}
        kept = []
        for problem in report.problems:
            if problem.quest in relocked:
                facts = tuple(f for f in problem.facts if f.rule != TEST_CHANGED)
                if not facts:
                    continue
                problem = replace(problem, facts=facts)
            kept.append(problem)
        report.problems = kept
        report.rechecked = sorted(relocked)
        return sorted(set(changed) - relocked)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.report
        if self.worker or report is None:
            return
        write = terminalreporter.write_line
        _write_history(terminalreporter, report.history)
        if report.narrowed is not None:
            write(f"quest ratchet: narrowed run ({report.narrowed}): judged the "
                  f"{report.checked} lock(s) whose test ran, skipped {report.skipped}",
                  yellow=True)
        if self.unjudged:
            write(f"quest ratchet: left out {len(self.unjudged)} quest-folder test file(s) no "
                  "PASS was locked by: " + ", ".join(self.unjudged), yellow=True)
        if report.error is not None:
            terminalreporter.write_sep("=", "quest ratchet: cannot verify", red=True, bold=True)
            write(f"pytest-quest: {report.error}")
            return
        if report.problems:
            terminalreporter.write_sep(
                "=", f"quest ratchet: {len(report.problems)} of {report.checked} locked "
                f"function(s) no longer hold", red=True, bold=True)
            for problem in report.problems:
                tail = f" (locked test: {problem.test})" if problem.test else ""
                write(f"LOST {problem.quest}{tail}", red=True, bold=True)
                for fact in problem.facts:
                    write(f"  {_fact_line(fact)}")
        else:
            write(f"quest ratchet: all {report.checked} locked function(s) fully covered",
                  green=True)
        if report.rechecked:
            write(f"quest ratchet: the gate judged {len(report.rechecked)} changed locked "
                  "test(s) again and relocked: " + ", ".join(report.rechecked), green=True)
        if report.locked:
            write(f"quest ratchet: locked {len(report.locked)} newly covered function(s): "
                  + ", ".join(report.locked), green=True)
        if report.skipped_update:
            write(f"quest ratchet: nothing locked: {report.skipped_update}", yellow=True)
        if report.vanished:
            write(f"quest ratchet: {len(report.vanished)} locked function(s) no longer exist "
                  "(run `pytest-quest scan` to retire them): " + ", ".join(report.vanished),
                  yellow=True)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        os.environ.update(self.saved_env)
        if self.owns_private and self.private is not None:
            shutil.rmtree(self.private, ignore_errors=True)


def _narrowed(config: pytest.Config, root: Path) -> str | None:
    """What narrowed this run to part of the suite (-k, -m, --deselect, paths), or None.

    Only what this run was given (its command line, ``PYTEST_ADDOPTS``) narrows it: a
    selection in the project's own ``addopts`` (click: ``-m 'not stress'``) is how its
    suite always runs, the baseline's included, and skipping every lock for it would
    leave the ratchet checking nothing.
    """
    option = config.option
    given = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]
    for flag, names in (("keyword", ("-k",)), ("markexpr", ("-m",)),
                        ("deselect", ("--deselect",)), ("lf", ("--lf", "--last-failed"))):
        if getattr(option, flag, None) and any(
                str(a) == n or str(a).startswith(n if len(n) == 2 else n + "=")
                for a in given for n in names):
            return names[0]
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return None
    here = Path(config.invocation_params.dir)
    chosen = {(here / a.split("::")[0]).resolve() for a in config.args}
    whole = {(config.rootpath / t).resolve() for t in config.getini("testpaths")} or {root}
    covers_all = all(any(g == w or g in w.parents for g in chosen) for w in whole)
    if covers_all and not any("::" in a for a in config.args):
        return None
    return "paths: " + " ".join(config.args)


def _write_history(terminalreporter: Any, history: dict[str, Any] | None) -> None:
    if history is None:
        return
    write = terminalreporter.write_line
    if not history.get("checked"):
        write(f"quest ratchet: {history['note']}", yellow=True)
        return
    violations = history.get("violations") or []
    if violations:
        terminalreporter.write_sep(
            "=", f"quest ratchet: the ledger went back against {history['base']}: "
            f"{len(violations)} violation(s)", red=True, bold=True)
        for fact in violations:
            write(f"  {_fact_line(Fact.from_dict(fact))}", red=True)
    else:
        write(f"quest ratchet: {history['note']}: the ledger only moved forward", green=True)
    for fact in history.get("notices") or []:
        write(f"  notice {_fact_line(Fact.from_dict(fact))}", yellow=True)


def _fact_line(fact: Fact) -> str:
    return f"[{fact.rule}] where: {fact.where}; expected: {fact.expected}; actual: {fact.actual}"
