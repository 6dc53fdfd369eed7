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


def _parse_all(files: list[Path]) -> int:
    count = 0
    for path in files:
        tree = ast.parse(path.read_bytes())
        count += sum(1 for _ in ast.walk(tree))
    return count


def _best(func, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main(argv: list[str]) -> None:
    dirs = [Path(a) for a in argv] or _default_dirs()
    work = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    for d in dirs:
        shutil.copytree(d, work / d.name, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(work.rglob("*.py"))
    settings = Settings(root=work, sources=tuple(d.name for d in dirs), test_dir="tests/quest")
    found, errors, nfiles = find_functions(settings)
    print(f"{nfiles} files, {len(found)} quests, {len(errors)} unparsable")
    only_best, _ = _best(lambda: [ast.parse(p.read_bytes()) for p in files])
    parse_best, parse_med = _best(lambda: _parse_all(files))
    find_best, find_med = _best(lambda: find_functions(settings))

    def full_scan() -> None:
        shutil.rmtree(work / ".quest", ignore_errors=True)
        scan(settings, baseline=False)

    scan_best, scan_med = _best(full_scan)
    print(f"ast.parse only     best {only_best * 1000:7.1f} ms")
    print(f"ast.parse + walk   best {parse_best * 1000:7.1f} ms  median {parse_med * 1000:7.1f} ms")
    print(f"find_functions     best {find_best * 1000:7.1f} ms  median {find_med * 1000:7.1f} ms"
          f"  ratio {find_best / parse_best:.2f}x")
    print(f"scan --no-baseline best {scan_best * 1000:7.1f} ms  median {scan_med * 1000:7.1f} ms"
          f"  ratio {scan_best / parse_best:.2f}x ({scan_best / only_best:.2f}x of parse only)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
