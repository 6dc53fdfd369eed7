"""What kernel confinement costs: the same submission confined and unconfined, side by side.

Run on demand (never collected: the test suite lives in ``tests/``)::

    python benchmarks/bench_confine.py [--reps 7]

Three measurements, each alternating confined and unconfined in one process so
machine noise hits both alike:

* the whole gate (``submit``: sandbox copy, run, reruns, mutation) on the
  demo's complete test for ``hotel/pricing.py::nightly_rate``;
* confinement alone, the harness's way: a Python process that calls
  ``confine.enter()`` (fork into the namespaces, build the root, Landlock)
  against one that only imports the module, and ``enter()`` timed from inside;
* the generic launcher (:func:`confine.wrap`, used for arbitrary programs):
  ``python -c pass`` through ``python -m pytest_quest.confine`` against direct;
* ``confine.detect()``, paid once per command (the namespace probe forks);
* each run's seccomp filter (:func:`seccomp.install`): 50,000 ``stat`` calls (the
  kernel caches the answer of a call judged by its number) and 50,000 anonymous
  ``mmap`` calls (judged by their flags, the filter runs each time), filtered
  against unfiltered, timed from inside.

"Unconfined" is what a system without Landlock or namespaces gets: the audit
hook only. The goal is next to no cost for confinement (docs/security.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from pytest_quest import confine
from pytest_quest.cli.demo import COMPLETE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "example_project"
QUEST = "hotel/pricing.py::nightly_rate"


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".quest", "__pycache__", ".pytest_cache", "quest")}


@contextlib.contextmanager
def _unconfined() -> Iterator[None]:
    """As on a system without kernel confinement: sandbox.run skips the launcher."""
    real = confine.detect
    confine.detect = lambda: confine.Isolation(  # type: ignore[assignment]
        system="Linux", landlock_abi=0, namespaces=False, namespaces_error="benchmark")
    try:
        yield
    finally:
        confine.detect = real  # type: ignore[assignment]


def _submit(master: Path, into: Path) -> tuple[float, str, str]:
    from pytest_quest.config import load_settings
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path
    from pytest_quest.submit import submit

    shutil.copytree(master, into)
    settings = load_settings(into)
    ledger = Ledger.load(Ledger.for_root(into).path)
    test = into / default_test_path(ledger.get(QUEST), settings, ledger.quests)
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(COMPLETE, encoding="utf-8")
    started = time.perf_counter()
    result = submit(settings, QUEST, test=test)
    seconds = time.perf_counter() - started
    return seconds, result.verdict.outcome.value, result.isolation


ENTER = """
import sys, time
from pytest_quest import confine
started = time.perf_counter()
if sys.argv[1] == "on":
    confine.enter(confine.Policy(writable=(sys.argv[2],)))
print(time.perf_counter() - started)
"""


CALLS = """
import mmap, os, sys, time
from pytest_quest import seccomp
if sys.argv[1] == "on":
    assert seccomp.install()
started = time.perf_counter()
for _ in range(50_000):
    os.stat(".")
    mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE).close()
print(time.perf_counter() - started)
"""


def _calls(on: bool) -> float:
    """Seconds the 100,000 calls of :data:`CALLS` took, filtered or not."""
    done = subprocess.run([sys.executable, "-c", CALLS, "on" if on else "off"], check=True,
                          capture_output=True, text=True)
    return float(done.stdout)


def _enter(box: Path, on: bool) -> tuple[float, float]:
    """Wall time of the whole process, and of ``enter()`` as the confined process saw it."""
    command = [sys.executable, "-c", ENTER, "on" if on else "off", str(box)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=box, check=True, env={"PATH": os.environ["PATH"]},
                          capture_output=True, text=True)
    return time.perf_counter() - started, float(done.stdout)


def _launch(box: Path, wrapped: bool) -> float:
    command = [sys.executable, "-c", "pass"]
    if wrapped:
        command = confine.wrap(command, confine.Policy(writable=(str(box),)))
    started = time.perf_counter()
    subprocess.run(command, cwd=box, check=True, env={"PATH": os.environ["PATH"]})
    return time.perf_counter() - started


def _row(name: str, on: list[float], off: list[float]) -> None:
    a, b = statistics.median(on), statistics.median(off)
    print(f"{name:<28} {a:9.4f} {b:11.4f} {a - b:+9.4f} {a / b:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    isolation = confine.detect()
    if not isolation.kernel:
        raise SystemExit(f"no kernel confinement here ({isolation.namespaces_error}): "
                         "nothing to compare")
    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    probe = []
    for _ in range(args.reps):
        confine.detect.cache_clear()
        started = time.perf_counter()
        confine.detect()
        probe.append(time.perf_counter() - started)
    work = Path(tempfile.mkdtemp(prefix="bench-confine-"))
    try:
        master = work / "master"
        shutil.copytree(EXAMPLE, master, ignore=_ignore)
        scan(load_settings(master))
        box = work / "box"
        box.mkdir()
        gate_on, gate_off, launch_on, launch_off = [], [], [], []
        enter_on, enter_off, inside, calls_on, calls_off = [], [], [], [], []
        print(f"isolation: {isolation.name}; {args.reps} reps, alternating")
        print(f"{'rep':>3} {'confined s':>11} {'unconfined s':>13}  verdicts")
        for rep in range(args.reps):
            on, verdict_on, judged = _submit(master, work / f"on{rep}")
            with _unconfined():
                off, verdict_off, judged_off = _submit(master, work / f"off{rep}")
            gate_on.append(on)
            gate_off.append(off)
            launch_on.append(_launch(box, True))
            launch_off.append(_launch(box, False))
            whole, within = _enter(box, True)
            enter_on.append(whole)
            inside.append(within)
            enter_off.append(_enter(box, False)[0])
            calls_on.append(_calls(True))
            calls_off.append(_calls(False))
            print(f"{rep:>3} {on:11.3f} {off:13.3f}  {verdict_on} ({judged}), "
                  f"{verdict_off} ({judged_off})")
        print(f"\n{'median of ' + str(args.reps):<28} {'confined':>9} {'unconfined':>11} "
              f"{'cost s':>9} {'ratio':>6}")
        _row("submit (whole gate)", gate_on, gate_off)
        _row("process calling enter()", enter_on, enter_off)
        print(f"{'enter() itself, from inside':<28} {statistics.median(inside):9.4f}")
        _row("python -c pass via wrap()", launch_on, launch_off)
        print(f"{'detect() once per command':<28} {statistics.median(probe):9.4f}")
        _row("100,000 calls, seccomp", calls_on, calls_off)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
