"""coverage.py's ``sys.monitoring`` core against its C tracer, side by side, per interpreter.

Run by hand, not in CI::

    python benchmarks/bench_sysmon.py --python .ci-venv-3.12/bin/python \
        --python .ci-venv-3.13/bin/python [--reps 3]

Each ``--python`` is an interpreter with pytest-quest installed (the venvs
``.ci/run`` makes will do). The workload is more-itertools' own test suite
(its sdist, fetched once into ``benchmarks/_work/`` as bench_plugin.py does),
measured two ways, each with core ``none`` (no measurement), ``ctrace`` and
``sysmon``, alternating within each repetition so drift hits all equally:

- ``judge``: the suite run in-process under a ``coverage.Coverage`` built
  exactly as the sandbox harness builds it (``harness._coverage``, line mode),
  with the core forced; this is what a submission's measured run and a scan's
  baseline pay.
- ``--quest-check``: ``pytest --quest-check`` on a line-mode ledger (the CI
  plugin), with ``COVERAGE_CORE`` set, which coverage.py lets win over the
  plugin's own choice.

It prints the median seconds of each, the overhead over ``none``, and the
number of lines each core measured (they must agree: a faster core that sees
less would be no gain).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_plugin import DESELECT, fetch

__all__ = ["main"]

CORES = ("none", "ctrace", "sysmon")
#: Runs the suite in-process under the judge's own Coverage object; prints one JSON line.
JUDGE = """
import json, sys, time
import pytest
from pytest_quest import harness
from pytest_quest.protocol import HarnessSpec

core, root, deselect = sys.argv[1:4]
cov = None
if core != "none":
    spec = HarnessSpec(mode="suite", pytest_args=(), sandbox=root, private_dir=root,
                       allowed_write=(), sources=("more_itertools",))
    cov = harness._coverage(spec)
    cov.set_option("run:core", core)
    cov.start()
started = time.perf_counter()
code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:pytest_cov",
                    "-k", deselect, "tests"])
seconds = time.perf_counter() - started
lines = 0
if cov is not None:
    cov.stop()
    data = cov.get_data()
    lines = sum(len(data.lines(f) or ()) for f in data.measured_files())
print(json.dumps({"seconds": seconds, "code": int(code), "lines": lines}))
"""


def _env(core: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    if core is not None:
        env["COVERAGE_CORE"] = core
    return env


def judge(python: str, root: Path, core: str) -> tuple[float, int]:
    """Seconds of the suite under the harness's Coverage with ``core``, and lines measured."""
    child = subprocess.run([python, "-c", JUDGE, core, str(root), DESELECT], cwd=root,
                           env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           check=False)
    last = child.stdout.decode(errors="replace").strip().splitlines()[-1:]
    try:
        result = json.loads(last[0])
    except (IndexError, ValueError):
        sys.stdout.write(child.stdout.decode(errors="replace")[-3000:])
        raise SystemExit(f"{python}: the judge workload failed") from None
    if result["code"] not in (0, 1):
        raise SystemExit(f"{python}: pytest exited {result['code']} under core {core}")
    return float(result["seconds"]), int(result["lines"])


def quest_check(python: str, root: Path, core: str) -> float:
    """Wall seconds of ``pytest --quest-check`` with ``COVERAGE_CORE=core``."""
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           "-k", DESELECT, "tests"]
    if core != "none":
        cmd.append("--quest-check")
    started = time.perf_counter()
    child = subprocess.run(cmd, cwd=root, env=_env(None if core == "none" else core),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    seconds = time.perf_counter() - started
    if child.returncode not in (0, 1):
        sys.stdout.write(child.stdout.decode(errors="replace")[-3000:])
        raise SystemExit(f"{python}: pytest --quest-check exited {child.returncode}")
    return seconds


def prepare(root: Path) -> None:
    """A fresh line-mode ledger; nothing locked, so every interpreter checks the same."""
    import shutil

    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    shutil.rmtree(root / ".quest", ignore_errors=True)
    report, _ledger = scan(load_settings(root).with_overrides(branch=False), baseline=False)
    print(f"scanned {report.total} functions in {report.files} files (line mode)")


def _version(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=None,
                        help="an interpreter with pytest-quest installed (repeatable)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--package", default="more-itertools")
    args = parser.parse_args(argv)
    root = fetch(args.package)
    prepare(root)
    for given in args.python or [sys.executable]:
        python = os.path.abspath(given) if os.sep in given else given  # the runs' cwd is root
        version = _version(python)
        monitoring = tuple(map(int, version.split(".")[:2])) >= (3, 12)
        cores = [c for c in CORES if c != "sysmon" or monitoring]
        judge(python, root, "none")  # warm the file cache and the .pyc files
        times: dict[tuple[str, str], list[float]] = {}
        lines: dict[str, set[int]] = {}
        for _ in range(args.reps):
            for core in cores:
                seconds, measured = judge(python, root, core)
                times.setdefault(("judge", core), []).append(seconds)
                lines.setdefault(core, set()).add(measured)
                times.setdefault(("--quest-check", core), []).append(
                    quest_check(python, root, core))
        print(f"Python {version} ({python}), {args.reps} repetitions, median seconds:")
        for workload in ("judge", "--quest-check"):
            base = statistics.median(times[(workload, "none")])
            row = [f"none {base:6.2f}"]
            for core in cores[1:]:
                value = statistics.median(times[(workload, core)])
                row.append(f"{core} {value:6.2f} ({value / base:4.2f}x)")
            print(f"  {workload:>14}: " + "   ".join(row))
        print("  lines measured: " + ", ".join(
            f"{core} {sorted(lines[core])}" for core in cores[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
