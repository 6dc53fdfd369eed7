"""``next --json`` against a bare ``json.load`` of the same ledger, side by side in one run.

Run by hand from the repository root::

    python benchmarks/bench_next.py [--quests 14000] [--repeat 15]

Builds a synthetic ledger of ``--quests`` quests (every state, about the size
of CPython's Lib), then times, interleaved so both see the same load on a
shared machine: ``python -c "import json; json.load(open(LEDGER))"`` in a
fresh interpreter, ``pytest-quest next --json`` and ``pytest-quest next --json
--agent bench`` (which also takes a lease). Each is a real subprocess, startup
included. It reports the median and the minimum wall time and child CPU
time, and the ratio to ``json.load``; the issue's goal is at most 1.5x.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_cli_status import build_ledger  # noqa: E402

__all__ = ["main", "run_once"]

GOAL = 1.5


#: As installed packages run: bytecode cached. With PYTHONDONTWRITEBYTECODE set (some shells
#: and CI images do), every module edited since its last .pyc would be compiled on every run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(args: list[str]) -> tuple[float, float]:
    """Wall and child-CPU seconds of one run of ``args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=ENV)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _console() -> list[str]:
    """The installed console script, as an agent calls it (``python -m`` adds runpy)."""
    script = Path(sys.executable).parent / "pytest-quest"
    if script.exists():
        return [str(script)]
    found = shutil.which("pytest-quest")
    return [found] if found else [sys.executable, "-m", "pytest_quest"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quests", type=int, default=14_000)
    parser.add_argument("--repeat", type=int, default=15)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        build_ledger(root, options.quests, attempts=False)
        ledger = root / ".quest" / "ledger.json"
        size = ledger.stat().st_size
        cases = {
            "json.load (fresh python)": [sys.executable, "-c",
                                         f"import json; json.load(open({str(ledger)!r}))"],
            "next --json": [*_console(), "next", "--json", "--root", str(root)],
            "next --json --agent bench": [*_console(), "next", "--json", "--agent", "bench",
                                          "--root", str(root)],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for args in cases.values():  # warm the file cache and write the .pyc files
            run_once(args)
        for _ in range(options.repeat):
            for name, args in cases.items():
                times[name].append(run_once(args))
    print(f"{options.quests} quests, ledger {size / 1e6:.1f} MB, {options.repeat} interleaved runs")
    print(f"{'':28} {'wall med':>9} {'wall min':>9} {'cpu med':>9} {'cpu min':>9}  ratio (cpu med)")
    base = statistics.median(c for _, c in times["json.load (fresh python)"])
    worst = 0.0
    for name, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        ratio = statistics.median(cpus) / base
        if name != "json.load (fresh python)":
            worst = max(worst, ratio)
        print(f"{name:28} {statistics.median(walls):8.3f}s {min(walls):8.3f}s "
              f"{statistics.median(cpus):8.3f}s {min(cpus):8.3f}s  {ratio:.2f}x")
    print(f"goal: at most {GOAL}x json.load; worst {worst:.2f}x")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
