"""The baseline over pytest-xdist workers: real scans of small projects, workers and all.

This suite's environment has pytest-xdist, so a baseline runs on workers
unless the project says otherwise; each test compares with a run in one
process where that is the point.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from pytest_quest.config import load_settings
from pytest_quest.progress import Tally
from pytest_quest.protocol import EventKind
from pytest_quest.sandbox import RunResult
from pytest_quest.scan import run_suite, scan

CORES = len(os.sched_getaffinity(0))
AUTO = CORES if CORES > 1 else 0

SOURCE = '''\
def double(x):
    if x > 10:
        return "big"
    return x * 2


def half(x):
    return x / 2


def unused(x):
    return -x
'''

TESTS = {
    "tests/test_double.py": "from calc import double\n\n\n"
                            "def test_small():\n    assert double(2) == 4\n\n\n"
                            "def test_big():\n    assert double(11) == 'big'\n",
    "tests/test_half.py": "from calc import half\n\n\n"
                          "def test_half():\n    assert half(4) == 2\n",
}


def _project(root: Path, addopts: str = "") -> Path:
    (root / "calc").mkdir(parents=True, exist_ok=True)
    (root / "calc" / "__init__.py").write_text(SOURCE, encoding="utf-8")
    for rel, text in TESTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    options = f'addopts = "{addopts}"\n' if addopts else ""
    (root / "pyproject.toml").write_text(
        f'[tool.pytest.ini_options]\npythonpath = ["."]\n{options}', encoding="utf-8")
    return root


def _baseline(root: Path) -> RunResult:
    result = run_suite(load_settings(root))
    assert result.tampered is None and result.finished, result.output
    return result


def _lines(result: RunResult) -> list[int]:
    return (result.coverage_files or {})["calc/__init__.py"]["executed_lines"]


@pytest.mark.slow
def test_the_baseline_runs_on_every_core_and_merges_the_workers_coverage(tmp_path: Path
                                                                         ) -> None:
    on_workers = _baseline(_project(tmp_path / "auto"))
    alone = _baseline(_project(tmp_path / "alone", addopts="-n 0"))
    collected = on_workers.first(EventKind.COLLECTED)
    assert collected is not None and collected["workers"] == AUTO
    assert alone.first(EventKind.COLLECTED)["workers"] == 0  # type: ignore[index]
    # The same tests, and the lines each worker ran, as in one process.
    assert sorted(collected["nodeids"]) == sorted(alone.first(EventKind.COLLECTED)["nodeids"])
    assert _lines(on_workers) == _lines(alone) == [1, 2, 3, 4, 7, 8, 11]
    calls = sorted(e["nodeid"] for e in on_workers.of(EventKind.REPORT) if e["when"] == "call")
    assert calls == ["tests/test_double.py::test_big", "tests/test_double.py::test_small",
                     "tests/test_half.py::test_half"]


@pytest.mark.slow
def test_the_projects_own_worker_count_wins(tmp_path: Path) -> None:
    result = _baseline(_project(tmp_path, addopts="-n 1"))
    assert result.first(EventKind.COLLECTED)["workers"] == 1  # type: ignore[index]
    assert _lines(result) == [1, 2, 3, 4, 7, 8, 11]


@pytest.mark.slow
def test_without_xdist_the_baseline_says_it_ran_in_one_process(tmp_path: Path) -> None:
    root = _project(tmp_path, addopts="-p no:xdist")
    report, ledger = scan(load_settings(root))
    assert report.baseline["workers"] == 0
    assert ledger.get("calc/__init__.py::double").state.value == "PASS"
    assert ledger.get("calc/__init__.py::unused").state.value == "TODO"


@pytest.mark.slow
def test_a_scan_on_workers_locks_what_they_covered(tmp_path: Path) -> None:
    report, _ = scan(load_settings(_project(tmp_path)))
    assert report.baseline["workers"] == AUTO
    assert sorted(report.locked) == ["calc/__init__.py::double", "calc/__init__.py::half"]


def test_merging_the_workers_data_closes_every_database_it_opened(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An unclosed in-memory database warns when collected on Python 3.13+ (sqlite3's
    ``ResourceWarning``); pytest reports it at the session's end, and a project's
    ``filterwarnings = error`` made the baseline end without ``done``: nothing locked."""
    import gc

    import coverage

    from pytest_quest.workers import merge

    blobs = []
    for lines in ([1, 2], [2, 5]):
        data = coverage.CoverageData(no_disk=True)
        data.add_lines({"/project/calc.py": lines})
        blobs.append(data.dumps())
        data.close(force=True)
    closed = []

    class Recorded(coverage.CoverageData):
        def close(self, force: bool = False) -> None:
            closed.append(force)
            super().close(force=force)

    monkeypatch.setattr(coverage, "CoverageData", Recorded)
    gc.collect()  # what earlier tests left to collect is theirs, not merge's (-n 1 on 3.13)
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    cov = coverage.Coverage(data_file=None, config_file=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        merge(cov, blobs)
        gc.collect()
    assert closed == [True, True]
    assert unraisable == []
    assert sorted(cov.get_data().lines("/project/calc.py") or []) == [1, 2, 5]


FORGER = '''\
import json
import os


def test_forge():
    # The controller (this worker's parent) names its event pipe in its command line.
    parent = os.getppid()
    with open(f"/proc/{parent}/cmdline", "rb") as handle:
        argv = handle.read().split(b"\\0")
    events = os.readlink(f"/proc/{parent}/fd/{int(argv[argv.index(b'--events-fd') + 1])}")
    assert events.startswith("pipe:")
    line = json.dumps({"event": "report", "round": 1, "nodeid": "forged::test",
                       "when": "call", "outcome": "passed", "duration": 0.0})
    held = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == events:
                held.append(int(name))
        except OSError:  # the listing's own descriptor, closed by now
            pass
    for fd in held:
        os.write(fd, (line + "\\n").encode())
    assert held == []
'''


@pytest.mark.slow
@pytest.mark.skipif(AUTO == 0, reason="xdist runs workers only with two cores or more")
def test_a_worker_cannot_write_to_the_event_pipe(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "tests" / "test_forge.py").write_text(FORGER, encoding="utf-8")
    result = _baseline(root)
    assert result.first(EventKind.COLLECTED)["workers"] == AUTO  # type: ignore[index]
    nodeids = {e["nodeid"] for e in result.of(EventKind.REPORT)}
    assert "tests/test_forge.py::test_forge" in nodeids
    assert "forged::test" not in nodeids


def test_progress_names_the_workers() -> None:
    tally = Tally()
    assert tally.workers() is None
    tally.feed(b'{"event": "collected", "count": 4, "nodeids": [], "workers": 2}\n')
    assert tally.workers() == 2 and tally.counts() == (0, 4)
    tally.feed(b'{"event": "collected", "count": 4, "nodeids": []}\n')
    assert tally.workers() is None


FINISH = textwrap.dedent('''\
    import atexit, sys
    from pytest_quest.harness import finish
    from pytest_quest.runparts import Channel
    atexit.register(lambda: print("interpreter shutdown ran"))
    print("buffered output", end="")
    finish(Channel(int(sys.argv[1])), None if sys.argv[2] == "none" else int(sys.argv[2]))
''')


@pytest.mark.slow
@pytest.mark.parametrize(("status", "expected"), [
    ("3", b'{"event": "done", "exitstatus": 3, "denied": []}\n'), ("none", b""),
])
def test_the_harness_reports_done_and_leaves_at_once(status: str, expected: bytes) -> None:
    read, write = os.pipe()
    try:
        done = subprocess.run([sys.executable, "-c", FINISH, str(write), status],
                              pass_fds=(write,), capture_output=True, text=True, check=False)
        os.close(write)
        sent = os.read(read, 4096)
    finally:
        os.close(read)
    assert done.returncode == 0, done.stderr
    assert sent == expected  # done only with an exit status: none means "ended before reporting"
    assert done.stdout == "buffered output"  # flushed, but no interpreter shutdown after it
