"""pytest11 entry point: the ``quest`` option group and the CI ratchet's hooks.

``pytest --quest-check`` fails the run when a locked (PASS) quest is no longer
fully covered, or its locked test file is gone; ``--quest-update`` also locks
the TODO quests the run covers fully. The verdict itself lives in
:mod:`pytest_quest.lockcheck`; this module only wires hooks.

Measuring: we never run a Coverage object of our own beside pytest-cov (the
collectors stack and pytest-cov dies with an INTERNALERROR). When the user
gave ``--cov``, we read pytest-cov's combined data after it finished. When
not, we switch pytest-cov on ourselves (``--cov=<ledger sources>``, no
report, a private rc and data file in a temp dir), so xdist workers, their
combination and the early start before conftests import are pytest-cov's
proven machinery, not a second copy of it.

Plain ``pytest`` pays one attribute lookup: the :class:`QuestPlugin` object
is registered only when a quest option is given.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from argparse import Namespace
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import find_root
from pytest_quest.errors import QuestError
from pytest_quest.facts import Fact
from pytest_quest.ledger import LEDGER_DIR, Ledger
from pytest_quest.lockcheck import CheckReport, evaluate, lock_covered, read_entries, source_dirs
from pytest_quest.states import State

__all__ = ["QuestPlugin", "pytest_addoption", "pytest_load_initial_conftests"]

PLUGIN_NAME = "_quest"
#: Variables that would redirect or reconfigure our private measurement.
_COVERAGE_ENV = ("COVERAGE_FILE", "COVERAGE_RCFILE", "COVERAGE_FORCE_CONFIG", "COVERAGE_DEBUG",
                 "COVERAGE_DEBUG_FILE")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("quest", "pytest-quest ratchet")
    group.addoption("--quest-check", action="store_true", default=False,
                    help="fail the run when a locked quest is no longer fully covered")
    group.addoption("--quest-update", action="store_true", default=False,
                    help="like --quest-check, and lock quests this run covers fully")
    group.addoption("--quest-ledger", default=None, metavar="PATH",
                    help="ledger file (default: .quest/ledger.json in the project root)")
    group.addoption("--quest-json", default=None, metavar="PATH",
                    help="also write the ratchet's verdict as JSON to PATH")


def _wanted(namespace: Namespace) -> bool:
    return bool(getattr(namespace, "quest_check", False)
                or getattr(namespace, "quest_update", False))


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, None, None]:
    """Register the ratchet before pytest-cov's own hook reads its options.

    A wrapper runs before every plain implementation (pytest-cov's is only
    ``tryfirst``), so the ``--cov`` options we set are seen when pytest-cov
    decides whether to start, which is before any conftest is imported.
    """
    namespace = early_config.known_args_namespace
    if _wanted(namespace) and not early_config.pluginmanager.has_plugin(PLUGIN_NAME):
        plugin = QuestPlugin(early_config, namespace)
        early_config.pluginmanager.register(plugin, PLUGIN_NAME)
    return (yield)


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
        self._arrange_coverage(namespace)

    # ------------------------------------------------------------ measuring
    def _arrange_coverage(self, namespace: Namespace) -> None:
        if not hasattr(namespace, "cov_source"):
            self.error = ("pytest-cov is not active (disabled with -p no:pytest_cov?): "
                          "nothing measures")
            return
        if getattr(namespace, "no_cov", False):
            self.error = "coverage is disabled by --no-cov: the ratchet cannot verify anything"
            return
        if namespace.cov_source:
            # The user's --cov measures; a branch-mode ledger needs branch data from it.
            if self.branch:
                namespace.cov_branch = True
            return
        self.private, self.owns_private = _private_dir()
        rc = self.private / "coveragerc"
        if self.owns_private:
            rc.write_text(
                "[run]\n"
                f"branch = {self.branch}\n"
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
        try:
            name = cov.get_data().data_filename()
        except Exception:
            name = cov.config.data_file
        return str(Path(getattr(controller, "topdir", "."), name))

    # ---------------------------------------------------------------- hooks
    def pytest_configure(self, config: pytest.Config) -> None:
        """xdist workers only measure (through pytest-cov); the controller judges."""
        self.worker = hasattr(config, "workerinput")

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
        if self.error is not None:
            return CheckReport(error=self.error)
        data_file = self._data_file()
        if data_file is None or not Path(data_file).is_file():
            return CheckReport(error="pytest-cov recorded no coverage data for this run")
        wanted = {State.PASS, State.TODO} if self.update else {State.PASS}
        rels = {q.path for q in self.ledger.quests.values() if q.state in wanted}
        try:
            entries = read_entries(data_file, self.root, rels, self.branch)
        except Exception as exc:
            return CheckReport(error=f"cannot read coverage data {data_file}: {exc}")
        report = evaluate(self.ledger, entries, self.branch, want_todo=self.update,
                          root=self.root)
        if self.update:
            if session.testsfailed:
                report.skipped_update = (
                    f"{session.testsfailed} test(s) failed: a failing suite locks nothing"
                )
            else:
                try:
                    lock_covered(self.ledger_path, report, self.branch, self.root)
                except QuestError as exc:
                    report.skipped_update = str(exc)
        return report

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.report
        if self.worker or report is None:
            return
        write = terminalreporter.write_line
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


def _fact_line(fact: Fact) -> str:
    return f"[{fact.rule}] where: {fact.where}; expected: {fact.expected}; actual: {fact.actual}"
