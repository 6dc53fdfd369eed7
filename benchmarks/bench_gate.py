"""How much the whole gate costs next to one plain ``pytest --cov`` run of the same file.

Run on demand (never collected: the test suite lives in ``tests/``)::

    python benchmarks/bench_gate.py [--reps 5] [--mutants 20]
    python benchmarks/bench_gate.py --lib boltons==26.2.0 \
        --quest boltons/strutils.py::camel2under --test tests/test_strutils.py
    python benchmarks/bench_gate.py --real [--reps 3]

Both sides run on a fresh scanned copy of the project, alternating in one
process so machine noise hits both alike. The gate side is the full
``pytest_quest.submit.submit`` call (sandbox copy, coverage, reruns, mutation);
the plain side is ``python -m pytest --cov=PACKAGE <testfile>`` in the same copy.
By default the project is example_project and the test the demo's complete one;
with ``--lib`` it is a library's sdist (``calibrate.fetch``) and one of its own
test files, submitted for ``--quest``. ``--real`` runs :data:`REAL_FILES` in turn, each a
library's own test file submitted for a function it tests, and prints one row per file. The
target (docs/mutation.md) is a median ratio of at most 1.5, in wall time. The CPU time of
every process (this one and the children it waited for) is printed beside it: the gate
runs two runs at once on two cores, so a busy machine slows it more than the
plain run, and the CPU ratio shows how much work it really adds.
"""

from __future__ import annotations

import argparse
import compileall
import resource
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
#: ``--real``: libraries' own test files as they ship, each submitted for a function it tests
#: (library, quest, test file), each judged PASS. Human test files: tens to hundreds of tests,
#: most of them about other functions, unlike the demo's five one-line checks, where a run's
#: fixed cost is all there is.
REAL_FILES = (
    ("boltons==26.2.0", "boltons/strutils.py::parse_int_list", "tests/test_strutils.py"),
    ("boltons==26.2.0", "boltons/strutils.py::strip_ansi", "tests/test_strutils.py"),
    ("boltons==26.2.0", "boltons/strutils.py::bytes2human", "tests/test_strutils.py"),
    ("boltons==26.2.0", "boltons/iterutils.py::windowed_iter", "tests/test_iterutils.py"),
    ("inflection==0.5.1", "inflection/__init__.py::camelize", "test_inflection.py"),
    ("inflection==0.5.1", "inflection/__init__.py::underscore", "test_inflection.py"),
)


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".quest", "__pycache__", ".pytest_cache", "quest")}


def _fresh(master: Path, into: Path, quest_id: str = QUEST, text: str = TEST
           ) -> tuple[Path, Path]:
    """A scanned project copy with the test file written where the quest expects it."""
    from pytest_quest.config import load_settings
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path

    shutil.copytree(master, into)
    settings = load_settings(into)
    ledger = Ledger.load(Ledger.for_root(into).path)
    test = into / default_test_path(ledger.get(quest_id), settings, ledger.quests)
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(text, encoding="utf-8")
    return into, test


def _library(spec: str, into: Path, quest_id: str, test_rel: str) -> tuple[Path, str, str]:
    """A library's sdist as a scanned project (no baseline), its package and the test text."""
    from calibrate import KNOWN, fetch, make_project

    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    package = KNOWN[spec.partition("==")[0]]
    project = make_project(fetch(spec), package, into)
    config = project / "pyproject.toml"
    # inflection ships a setup.py and no pyproject.toml: the settings get a file of their own
    before = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(before + f'\n[tool.pytest-quest]\nsources = ["{package}"]\n',
                      encoding="utf-8")
    scan(load_settings(project), baseline=False)
    if quest_id == QUEST:
        raise SystemExit("--lib needs --quest (and --test): a function of that library")
    return project, package, (project / test_rel).read_text(encoding="utf-8")


def _cpu() -> float:
    """CPU seconds of this process and of every child it has waited for, so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _gate(project: Path, test: Path, mutants: int, mutation: bool, reruns: int,
          quest_id: str = QUEST) -> tuple[float, float, str, dict[str, object]]:
    from pytest_quest.config import load_settings
    from pytest_quest.submit import submit

    settings = load_settings(project).with_overrides(
        max_mutants=mutants, mutation=mutation, reruns=reruns)
    cpu, started = _cpu(), time.perf_counter()
    result = submit(settings, quest_id, test=test)
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    mutation = result.evidence.mutation if result.evidence else None
    if result.verdict.outcome.value != "PASS":
        print(f"  {result.verdict.outcome.value}: {[f.to_dict() for f in result.verdict.facts]}")
    return seconds, cpu, result.verdict.outcome.value, dict(mutation or {})


def _plain(project: Path, test: Path, package: str = "hotel") -> tuple[float, float]:
    cpu, started = _cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--cov={package}", str(test.relative_to(project))],
        cwd=project, capture_output=True, text=True, check=False,
    )
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"plain pytest failed:\n{done.stdout}\n{done.stderr}")
    return seconds, cpu


def _bench(master: Path, work: Path, package: str, text: str, quest: str,
           args: argparse.Namespace) -> tuple[float, float, float, float, list[str]]:
    """``args.reps`` repetitions, alternating both sides, one line each and a median line;
    the medians of gate and plain seconds, of the ratio and of the CPU ratio, the verdicts."""
    ratios, gates, plains, cpu_ratios, verdicts = [], [], [], [], []
    print(f"{'rep':>3} {'gate s':>8} {'plain s':>8} {'ratio':>6} {'cpu ratio':>9}"
          "  verdict  mutants")
    for rep in range(args.reps):
        project, test = _fresh(master, work / f"gate{rep}", quest, text)
        plain_project, plain_test = _fresh(master, work / f"plain{rep}", quest, text)
        plain, plain_cpu = _plain(plain_project, plain_test, package)
        gate, gate_cpu, verdict, mutation = _gate(
            project, test, args.mutants, not args.no_mutation, args.reruns, quest)
        ratios.append(gate / plain)
        cpu_ratios.append(gate_cpu / plain_cpu)
        gates.append(gate)
        plains.append(plain)
        verdicts.append(verdict)
        ran = (f"{mutation.get('extreme_total')}+{mutation.get('classic_total')} "
               f"(+{mutation.get('classic_stopped', 0)} stopped) "
               f"in {mutation.get('seconds')} s, {mutation.get('paused')} s of it "
               "paused between waves") if mutation else "-"
        print(f"{rep:>3} {gate:8.3f} {plain:8.3f} {gate / plain:6.2f} "
              f"{gate_cpu / plain_cpu:9.2f}  {verdict:7}  {ran}")
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(plain_project, ignore_errors=True)
    gate_s, plain_s = statistics.median(gates), statistics.median(plains)
    ratio, cpu_ratio = statistics.median(ratios), statistics.median(cpu_ratios)
    print(f"median gate {gate_s:.3f} s, plain {plain_s:.3f} s,"
          f" ratio {ratio:.2f} (min {min(ratios):.2f}, "
          f"max {max(ratios):.2f}); target <= 1.5; CPU time of every process:"
          f" ratio {cpu_ratio:.2f}")
    return gate_s, plain_s, ratio, cpu_ratio, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--mutants", type=int, default=20, help="max_mutants for the gate")
    parser.add_argument("--no-mutation", action="store_true",
                        help="submit without the mutation stage (coverage and reruns only)")
    parser.add_argument("--reruns", type=int, default=3, help="runs of the test file (>= 1)")
    parser.add_argument("--lib", help="NAME==VERSION of a library in calibrate.KNOWN")
    parser.add_argument("--quest", default=QUEST, help="the quest id (with --lib)")
    parser.add_argument("--test", help="the library's test file submitted for it (with --lib)")
    parser.add_argument("--real", action="store_true",
                        help="every file of REAL_FILES in turn, then a table of medians")
    args = parser.parse_args()
    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    # As an installed copy has it (pip compiles it): under PYTHONDONTWRITEBYTECODE an edited
    # checkout would recompile pytest-quest's modules in every sandbox start (about 50 ms).
    compileall.compile_dir(ROOT / "pytest_quest", quiet=1)
    work = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    try:
        if args.real:
            rows = []
            for number, (lib, quest, test_rel) in enumerate(REAL_FILES):
                print(f"\n{lib} {quest} ({test_rel})")
                master = work / f"master{number}"
                _, package, text = _library(lib, master, quest, test_rel)
                rows.append((lib, quest, test_rel,
                             *_bench(master, work / f"runs{number}", package, text, quest, args)))
            print(f"\n{'quest':44} {'gate s':>7} {'plain s':>7} {'ratio':>6} {'cpu':>5}  verdicts")
            for _lib, quest, _test, gate_s, plain_s, ratio, cpu_ratio, verdicts in rows:
                print(f"{quest:44} {gate_s:7.3f} {plain_s:7.3f} {ratio:6.2f} {cpu_ratio:5.2f}"
                      f"  {' '.join(verdicts)}")
            print(f"median of the files' ratios {statistics.median(r[5] for r in rows):.2f}"
                  f" (max {max(r[5] for r in rows):.2f}); target <= 1.5")
            return
        master = work / "master"
        package, text = "hotel", TEST
        if args.lib:
            _, package, text = _library(args.lib, master, args.quest, args.test or "")
        else:
            shutil.copytree(EXAMPLE, master, ignore=_ignore)
            scan(load_settings(master))
        _bench(master, work, package, text, args.quest, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
