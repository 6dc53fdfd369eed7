"""The CI ratchet for one pytest session: measurement arranged, verdict at the end.

Imported only when ``--quest-check`` or ``--quest-update`` is given (see
:mod:`pytest_quest.plugin`), so plain pytest runs load none of this.
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
