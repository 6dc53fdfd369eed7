"""How much the whole gate costs next to one plain ``pytest --cov`` run of the same file.

Run on demand (never collected: the test suite lives in ``tests/``)::

    python benchmarks/bench_gate.py [--reps 5] [--mutants 20]

Both sides run on a fresh scanned copy of example_project, alternating in one
process so machine noise hits both alike. The gate side is the full
``pytest_quest.submit.submit`` call (sandbox copy, coverage, reruns, mutation);
the plain side is ``python -m pytest --cov=hotel <testfile>`` in the same copy.
The target (docs/mutation.md) is a median ratio of at most 1.5.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_quest.cli.demo import COMPLETE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "example_project"
QUEST = "hotel/pricing.py::nightly_rate"

#: The demo's complete test: every branch and boundary, exact values.
TEST = COMPLETE


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".quest", "__pycache__", ".pytest_cache", "quest")}


def _fresh(master: Path, into: Path) -> tuple[Path, Path]:
    """A scanned project copy with the test file written where the quest expects it."""
    from pytest_quest.config import load_settings
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path

    shutil.copytree(master, into)
    settings = load_settings(into)
    quest = Ledger.load(Ledger.for_root(into).path).get(QUEST)
    test = into / default_test_path(quest, settings)
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(TEST, encoding="utf-8")
    return into, test


def _gate(project: Path, test: Path, mutants: int, mutation: bool, reruns: int
          ) -> tuple[float, str, dict[str, object]]:
    from pytest_quest.config import load_settings
    from pytest_quest.submit import submit

    settings = load_settings(project).with_overrides(
        max_mutants=mutants, mutation=mutation, reruns=reruns)
    started = time.perf_counter()
    result = submit(settings, QUEST, test=test)
    seconds = time.perf_counter() - started
    mutation = result.evidence.mutation if result.evidence else None
    return seconds, result.verdict.outcome.value, dict(mutation or {})


def _plain(project: Path, test: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--cov=hotel", str(test.relative_to(project))],
        cwd=project, capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"plain pytest failed:\n{done.stdout}\n{done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--mutants", type=int, default=20, help="max_mutants for the gate")
    parser.add_argument("--no-mutation", action="store_true",
                        help="submit without the mutation stage (coverage and reruns only)")
    parser.add_argument("--reruns", type=int, default=3, help="runs of the test file (>= 1)")
    args = parser.parse_args()
    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    work = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    try:
        master = work / "master"
        shutil.copytree(EXAMPLE, master, ignore=_ignore)
        scan(load_settings(master))
        ratios, gates, plains = [], [], []
        print(f"{'rep':>3} {'gate s':>8} {'plain s':>8} {'ratio':>6}  verdict  mutants")
        for rep in range(args.reps):
            project, test = _fresh(master, work / f"gate{rep}")
            plain_project, plain_test = _fresh(master, work / f"plain{rep}")
            plain = _plain(plain_project, plain_test)
            gate, verdict, mutation = _gate(project, test, args.mutants, not args.no_mutation,
                                            args.reruns)
            ratios.append(gate / plain)
            gates.append(gate)
            plains.append(plain)
            ran = (f"{mutation.get('extreme_total')}+{mutation.get('classic_total')} "
                   f"in {mutation.get('seconds')} s") if mutation else "-"
            print(f"{rep:>3} {gate:8.3f} {plain:8.3f} {gate / plain:6.2f}  {verdict:7}  {ran}")
        gate_s, plain_s = statistics.median(gates), statistics.median(plains)
        print(f"median gate {gate_s:.3f} s, plain {plain_s:.3f} s,"
              f" ratio {statistics.median(ratios):.2f} (min {min(ratios):.2f}, "
              f"max {max(ratios):.2f}); target <= 1.5")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
