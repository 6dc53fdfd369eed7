"""What two installs of pytest-quest cost per confined submit, side by side in one run.

Run on demand (never collected)::

    python benchmarks/bench_harden.py --before /path/venv-a/bin/python \\
        --after /path/venv-b/bin/python [--reps 9]

Each repetition submits the demo's complete test for
``hotel/pricing.py::nightly_rate`` (reruns and mutation on) with each
interpreter in turn, on a fresh copy of a project scanned once by each, so
machine noise hits both alike. Used to measure what the hardening of the
unconfined parent costs (fresh private dir per run, the spec as a memfd, tmpfs
temp and home, a session keyring, a cgroup per run): docs/security.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_quest.cli.demo import COMPLETE

ROOT = Path(__file__).resolve().parent.parent
QUEST = "hotel/pricing.py::nightly_rate"
TEST = "tests/quest/test_hotel_pricing__nightly_rate.py"


def _cli(python: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "pytest_quest", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)


def _scanned(python: str, work: Path, name: str) -> Path:
    project = work / name
    shutil.copytree(ROOT / "example_project", project)
    done = _cli(python, "scan", cwd=project)
    if done.returncode != 0:
        raise SystemExit(f"scan with {python} failed: {done.stderr}")
    return project


def _submit(python: str, scanned: Path, work: Path) -> tuple[float, str]:
    project = Path(tempfile.mkdtemp(dir=work)) / "p"
    shutil.copytree(scanned, project)
    (project / TEST).parent.mkdir(parents=True, exist_ok=True)
    (project / TEST).write_text(COMPLETE, encoding="utf-8")
    started = time.perf_counter()
    done = _cli(python, "submit", QUEST, "--test", TEST, "--json", cwd=project)
    seconds = time.perf_counter() - started
    verdict = json.loads(done.stdout)
    return seconds, f"{verdict['verdict']} {verdict.get('evidence', {}).get('isolation')}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-harden-"))
    try:
        pythons = {"before": args.before, "after": args.after}
        scanned = {k: _scanned(py, work, k) for k, py in pythons.items()}
        times: dict[str, list[float]] = {k: [] for k in pythons}
        seen: dict[str, set[str]] = {k: set() for k in pythons}
        for _ in range(args.reps):
            for key, python in pythons.items():
                seconds, verdict = _submit(python, scanned[key], work)
                times[key].append(seconds)
                seen[key].add(verdict)
        for key in pythons:
            values = sorted(times[key])
            print(f"{key:7} median {statistics.median(values):.3f} s  min {values[0]:.3f} s  "
                  f"max {values[-1]:.3f} s  verdicts {sorted(seen[key])}")
        diff = statistics.median(times["after"]) - statistics.median(times["before"])
        print(f"after - before (medians): {diff:+.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
