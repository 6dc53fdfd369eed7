"""The scan's baseline against ``pytest -n auto --cov`` of the same suite, side by side.

Run on demand (never collected: the test suite lives in ``tests/``)::

    python benchmarks/bench_baseline.py [--lib boltons==26.2.0] [--reps 3]

The library's sdist is downloaded once (``calibrate.fetch``). Four sides run
in turn, once per repetition, in one process, so machine noise hits all alike:

* ``baseline``: :func:`pytest_quest.scan.run_suite` as ``scan`` runs it
  (sandbox copy, kernel confinement, coverage of the sources; on xdist
  workers when pytest-xdist is installed);
* ``baseline -n 0``: the same with the project's ``addopts = "-n 0"``,
  which is what every baseline did before it used the workers;
* ``pytest -n auto --cov``: the suite as a user runs it on every core;
* ``pytest --cov``: one process, for scale.

Goal (issue 9, point 7): ``baseline`` at most 1.1x ``pytest -n auto --cov``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from calibrate import KNOWN, fetch, make_project

from pytest_quest.config import load_settings
from pytest_quest.protocol import EventKind
from pytest_quest.scan import run_suite


def _serial(project: Path) -> Path:
    """The project with ``-n 0`` in its pytest ``addopts``: the baseline as it was."""
    config = project / "pyproject.toml"
    text = config.read_text(encoding="utf-8")
    marker = "[tool.pytest.ini_options]\n"
    if marker not in text:
        raise SystemExit(f"{config} has no {marker.strip()} table to add -n 0 to")
    config.write_text(text.replace(marker, marker + 'addopts = "-n 0"\n'), encoding="utf-8")
    return project


def _baseline(project: Path, package: str) -> Callable[[], tuple[float, str]]:
    settings = load_settings(project).with_overrides(sources=(package,))

    def run() -> tuple[float, str]:
        started = time.perf_counter()
        result = run_suite(settings)
        seconds = time.perf_counter() - started
        collected = result.first(EventKind.COLLECTED) or {}
        passed = sum(1 for e in result.of(EventKind.REPORT)
                     if e["when"] == "call" and e["outcome"] == "passed")
        return seconds, f"{passed} passed, workers {collected.get('workers', 0)}"

    return run


def _plain(project: Path, package: str, *extra: str) -> Callable[[], tuple[float, str]]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "no:randomly", f"--cov={package}", "--cov-report=", *extra]

    def run() -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        tail = (done.stdout.strip().splitlines() or ["no output"])[-1]
        return seconds, tail

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", default="boltons==26.2.0",
                        help=f"NAME==VERSION, one of {sorted(KNOWN)}")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    name = args.lib.partition("==")[0]
    package = KNOWN[name]
    unpacked = fetch(args.lib)
    work = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    try:
        project = make_project(unpacked, package, work / "project")
        serial = _serial(make_project(unpacked, package, work / "serial"))
        sides = {
            "baseline": _baseline(project, package),
            "baseline -n 0": _baseline(serial, package),
            "pytest -n auto --cov": _plain(project, package, "-n", "auto"),
            "pytest --cov": _plain(project, package, "-n", "0"),
        }
        times: dict[str, list[float]] = {side: [] for side in sides}
        for rep in range(args.reps):
            for side, run in sides.items():
                seconds, what = run()
                times[side].append(seconds)
                print(f"rep {rep} {side:<22} {seconds:7.2f} s  {what}", flush=True)
        plain = times["pytest -n auto --cov"]
        print(f"\nmedian of {args.reps}, {args.lib}")
        for side, values in times.items():
            ratios = [a / b for a, b in zip(values, plain, strict=True)]
            print(f"{side:<22} {statistics.median(values):7.2f} s  "
                  f"{statistics.median(ratios):5.2f}x pytest -n auto --cov "
                  f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
        print("goal: baseline <= 1.1x pytest -n auto --cov")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
