"""Time the maintainer views on a 10,000-quest ledger: ``status`` and ``export`` stay under 1 s.

Run by hand from the repository root::

    python benchmarks/bench_views.py [--quests 10000] [--repeat 5]

Each command runs as a real subprocess (what a maintainer waits for, startup
included); the report shows the median wall time and the median CPU time of
the child, since wall time on a shared machine measures the neighbours too.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_cli_status import build_ledger  # noqa: E402

__all__ = ["main", "measure"]

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status",),
    ("status", "--json"),
    ("show", "pkg/mod_0000.py::func_6", "--json"),
    ("review", "--json"),
    ("export",),
    ("export", "--format", "csv"),
    ("export", "--format", "html", "-o", "{out}/report.html"),
)


def measure(args: list[str], repeat: int) -> tuple[float, float]:
    """Median wall and child-CPU seconds of ``args`` over ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quests", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    exe = [sys.executable, "-m", "pytest_quest"]
    with tempfile.TemporaryDirectory() as tmp:
        root, out = Path(tmp) / "project", Path(tmp) / "out"
        out.mkdir()
        build_ledger(root, options.quests)
        size = (root / ".quest" / "ledger.json").stat().st_size
        print(f"{options.quests} quests, ledger {size / 1e6:.1f} MB, median of {options.repeat}")
        baseline = measure([*exe, "--version"], options.repeat)
        print(f"{'pytest-quest --version (startup)':44} wall {baseline[0]:6.3f} s  "
              f"cpu {baseline[1]:6.3f} s")
        worst = 0.0
        for command in COMMANDS:
            args = [a.replace("{out}", str(out)) for a in command]
            wall, cpu = measure([*exe, *args, "--root", str(root)], options.repeat)
            worst = max(worst, cpu)
            flag = "" if cpu < 1.0 else "  <-- over 1 s"
            print(f"{' '.join(command).replace('{out}/', ''):44} wall {wall:6.3f} s  "
                  f"cpu {cpu:6.3f} s{flag}")
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
