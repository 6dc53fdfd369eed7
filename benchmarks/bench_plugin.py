"""Overhead of ``pytest --quest-check`` against plain ``pytest --cov --cov-branch``.

Run by hand, not in CI::

    python benchmarks/bench_plugin.py [--reps 5] [--package more-itertools]

It downloads the sdist of a small pure-Python library with its tests into
``benchmarks/_work/`` (gitignored; its code is never committed), scans it
into a branch-mode ledger, locks what its suite covers (``--quest-update``,
which exercises the update path once), then times the two commands side by
side, alternating runs so drift in the machine hits both equally. The ratio
of medians should stay at or below 1.05: the ratchet measures through
pytest-cov, so the only extra cost is analysing the locked files at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

__all__ = ["main"]

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
#: more-itertools' tests that sleep or spin for seconds measure the clock, not coverage.
DESELECT = ("not roundtrip and not oncurrent and not lcg_mitigation and not all_orderings "
            "and not concurrent_calls and not test_primes and not nth_prime_approximate "
            "and not test_large")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}


def fetch(package: str) -> Path:
    """The unpacked sdist of ``package`` (downloaded once)."""
    WORK.mkdir(parents=True, exist_ok=True)
    archives = sorted(WORK.glob("*.tar.gz"))
    if not archives:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:",
                        "--no-deps", "--dest", str(WORK), package], check=True)
        archives = sorted(WORK.glob("*.tar.gz"))
    archive = archives[-1]
    root = WORK / archive.name.removesuffix(".tar.gz")
    if not root.is_dir():
        with tarfile.open(archive) as tar:
            tar.extractall(WORK, filter="data")
    # Make the sdist its own pytest rootdir, away from pytest-quest's own configuration.
    ini = root / "pytest.ini"
    if not ini.exists():
        ini.write_text("[pytest]\n", encoding="utf-8")
    return root


def prepare(root: Path) -> None:
    """Scan into a branch-mode ledger and lock what the suite covers."""
    import shutil

    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    shutil.rmtree(root / ".quest", ignore_errors=True)  # a fresh ledger: the same start each time
    settings = load_settings(root).with_overrides(branch=True)
    report, _ledger = scan(settings, baseline=False)
    print(f"scanned {report.total} functions in {report.files} files of {settings.sources}")
    update = run(root, ["--quest-update"])
    print(f"--quest-update: exit {update[1]}, {update[0]:.2f} s")


def run(root: Path, extra: list[str]) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           "-k", DESELECT, "tests", *extra]
    started = time.perf_counter()
    child = subprocess.run(cmd, cwd=root, env=_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, check=False)
    seconds = time.perf_counter() - started
    if child.returncode not in (0, 1):
        sys.stdout.write(child.stdout.decode(errors="replace")[-3000:])
        raise SystemExit(f"pytest failed with exit code {child.returncode}")
    return seconds, child.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--package", default="more-itertools")
    args = parser.parse_args(argv)
    root = fetch(args.package)
    sources = ",".join(f"--cov={s}" for s in ("more_itertools",))
    prepare(root)
    variants = {
        "cov --cov-branch": [sources, "--cov-branch", "--cov-report="],
        "--quest-check": ["--quest-check"],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    codes: dict[str, set[int]] = {name: set() for name in variants}
    run(root, variants["cov --cov-branch"])  # warm the file cache and the .pyc files
    for _ in range(args.reps):
        for name, extra in variants.items():
            seconds, code = run(root, extra)
            times[name].append(seconds)
            codes[name].add(code)
    for name, values in times.items():
        print(f"{name:>18}: median {statistics.median(values):6.2f} s  "
              f"runs {', '.join(f'{v:.2f}' for v in values)}  exit {sorted(codes[name])}")
    ratio = statistics.median(times["--quest-check"]) / statistics.median(
        times["cov --cov-branch"])
    print(f"ratio --quest-check / --cov --cov-branch: {ratio:.3f}x (target <= 1.05x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
