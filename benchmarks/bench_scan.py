"""Scan speed against a bare ``ast.parse`` of the same files (run by hand).

    python benchmarks/bench_scan.py [DIR ...]

Defaults to the installed sources of rich, click, pytest and coverage: a few
hundred real files. Both sides read and parse every file; the scan also
walks the tree into quests. The full ``scan --no-baseline`` (snapshot hashes
and the ledger write included) is reported as well.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pytest_quest.config import Settings
from pytest_quest.scan import find_functions, scan


def _default_dirs() -> list[Path]:
    out = []
    for name in ("rich", "click", "_pytest", "coverage"):
        spec = importlib.util.find_spec(name)
        if spec and spec.origin:
            out.append(Path(spec.origin).parent)
    return out


def _parse_only(files: list[Path]) -> None:
    for path in files:
        ast.parse(path.read_bytes())


def _parse_all(files: list[Path]) -> int:
    count = 0
    for path in files:
        tree = ast.parse(path.read_bytes())
        count += sum(1 for _ in ast.walk(tree))
    return count


def _interleaved(funcs: dict[str, object], repeat: int = 7) -> dict[str, list[float]]:
    """Time each function once per round, in turn, so load on the machine hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(repeat):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()  # type: ignore[operator]
            times[name].append(time.perf_counter() - start)
    return times


def main(argv: list[str]) -> None:
    dirs = [Path(a) for a in argv] or _default_dirs()
    work = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    for d in dirs:
        shutil.copytree(d, work / d.name, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(work.rglob("*.py"))
    settings = Settings(root=work, sources=tuple(d.name for d in dirs), test_dir="tests/quest")
    found, errors, nfiles = find_functions(settings)
    print(f"{nfiles} files, {len(found)} quests, {len(errors)} unparsable")
    def full_scan() -> None:
        shutil.rmtree(work / ".quest", ignore_errors=True)
        scan(settings, baseline=False)

    times = _interleaved({
        "ast.parse": lambda: _parse_only(files),
        "ast.parse + walk": lambda: _parse_all(files),
        "find_functions": lambda: find_functions(settings),
        "scan --no-baseline": full_scan,
    })
    base = min(times["ast.parse"])
    for name, values in times.items():
        best, median = min(values), statistics.median(values)
        print(f"{name:20s} best {best * 1000:7.1f} ms  median {median * 1000:7.1f} ms"
              f"  {best / base:5.2f}x ast.parse")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
