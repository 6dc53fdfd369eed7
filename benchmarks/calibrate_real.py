"""Calibrate the gate on real PyPI libraries, unmodified, with tests written for them (issue 8).

    python benchmarks/calibrate_real.py                 # every library below
    python benchmarks/calibrate_real.py --lib xmltodict --lib yarl
    python benchmarks/calibrate_real.py --fresh         # new venvs too

Run by hand, never in CI. For each library the script does what a new user does:

1. downloads its sdist (``pip download --no-binary :all: --no-deps NAME==VERSION``) into
   ``benchmarks/_work/`` (gitignored) and unpacks a fresh copy, changing nothing in it;
2. makes a virtualenv for it (``benchmarks/_work/venvs/NAME``) with this checkout of
   pytest-quest installed editable, plus the test dependencies the library itself declares
   (its extras, dependency groups or requirement files, see :data:`LIBRARIES`);
3. runs ``pytest-quest scan`` there: the baseline locks what the library's own suite covers;
4. for each stored test ``benchmarks/real_tests/NAME/*.py`` (a ``# quest: ID`` header names
   its quest; the tests were written by hand for functions the baseline did not lock), copies
   it to the test path ``pytest-quest next --id ID`` gives and runs ``pytest-quest submit``;
5. runs ``pytest-quest check`` (the CI ratchet: the whole suite under pytest-cov must keep
   every lock, the baseline's and the gate's);
6. prints one table row per library (quests, baseline locks, submits, PASS, FAIL, REVIEW,
   errors) and every verdict that is not PASS with its root cause and first fact, and writes
   the details to ``benchmarks/_work/calibration-real.json``.

A FAIL of a stored test is either a weak test (fix the test) or a false FAIL (fix the gate);
docs/calibration.md records which and why.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work"
TESTS = HERE / "real_tests"
_HEADER = re.compile(r"^# quest: (\S+)\s*$", re.MULTILINE)
#: ``# unreachable: LINE REASON``: a line no test can reach, claimed at submit (goes to REVIEW).
_UNREACHABLE = re.compile(r"^# unreachable: (\d+) (.+?)\s*$", re.MULTILINE)

sys.path.insert(0, str(HERE))
from calibrate import fetch  # noqa: E402  (a sibling script, not a package)

__all__ = ["LIBRARIES", "Library", "calibrate", "main"]


@dataclass(frozen=True)
class Library:
    """One library: its pinned sdist, the trait it stands for, and how its tests install."""

    name: str
    version: str
    shape: str
    #: ``pip install`` arguments for the test dependencies; ``{project}`` is the unpacked sdist.
    install: tuple[str, ...] = ()
    #: Environment for the installs (a build switch, never for the runs).
    env: dict[str, str] = field(default_factory=dict)

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}"


#: The libraries and the trait each stands for; the test dependencies are the library's own.
LIBRARIES = (
    Library("cachetools", "8.0.2", "src/ layout, unittest-style tests, full coverage",
            ("-e", "{project}")),
    Library("click", "8.5.1", "src/ layout, filterwarnings = error, addopts -m",
            ("-e", "{project}")),
    Library("xmltodict", "1.0.4", "one flat module (xmltodict.py)",
            ("-e", "{project}[test]")),
    Library("humanize", "4.17.0",
            "heavy plugins (pytest-benchmark, pytest-codspeed, freezegun), doctest-modules, "
            "filterwarnings = error, src/",
            ("-e", "{project}[tests]")),
    Library("pluggy", "1.7.0",
            "filterwarnings = error in tox.ini, pytest-benchmark, src/, a dependency of pytest",
            ("-e", "{project}", "pytest-benchmark", "coverage")),
    Library("pyee", "13.0.1", "heavy plugins (pytest-asyncio, pytest-trio, twisted)",
            ("-e", "{project}", "pytest-asyncio", "pytest-trio", "twisted", "trio")),
    Library("prettytable", "3.18.0",
            "src/ layout, filterwarnings = error, pytest 9's native [tool.pytest] table",
            ("-e", "{project}[tests]")),
    Library("yarl", "1.25.1",
            "xdist in addopts (--numprocesses=auto), -p pytest_cov --cov, doctest-modules, "
            "filterwarnings = error, a Cython extension",
            ("-e", "{project}", "-r", "{project}/requirements/test.txt")),
    Library("flake8-pyi", "26.5.0",
            "xdist in addopts (-nauto), --doctest-modules, filterwarnings = error, "
            "a flake8 plugin whose suite runs flake8 in subprocesses",
            ("-e", "{project}", "pytest-xdist", "flake8-bugbear==24.12.12",
             "flake8-noqa==1.4.0")),
    Library("aiofiles", "25.1.0",
            "pytest-asyncio in auto mode (asyncio_mode = auto), tests that write files in "
            "tmp_path and use a thread pool, src/",
            ("-e", "{project}", "coverage", "pytest", "pytest-asyncio")),
    Library("attrs", "26.1.0",
            "hypothesis, --import-mode=importlib and --strict-config in addopts, src/ with two "
            "packages (attr, attrs), coverage branch = true and patch = subprocess",
            ("-e", "{project}", "hypothesis", "pympler", "pytest-xdist[psutil]", "cloudpickle")),
    Library("python-dateutil", "4.0.0",
            "freezegun, hypothesis, system time zone data and the tzdata package (a conftest "
            "fixture blocks one), filterwarnings = error, a conftest marking xfail tests "
            "no_cover, custom python_files, src/",
            ("-e", "{project}", "-r", "{project}/requirements-dev.txt")),
    Library("sqlparse", "0.6.1",
            "no pytest configuration at all, conftest fixtures (filepath, load_file), a "
            "package at the root (no src/), hatchling",
            ("-e", "{project}", "pytest", "coverage")),
    Library("marshmallow", "4.4.0",
            "class-heavy API (Schema metaclass, fields), src/, its dependency group "
            "tests = [pytest, simplejson], norecursedirs",
            ("-e", "{project}", "pytest", "simplejson")),
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def venv_for(lib: Library, project: Path, fresh: bool) -> Path:
    """The library's virtualenv with pytest-quest (this checkout) and its test dependencies."""
    venv = WORK / "venvs" / lib.name
    if fresh and venv.exists():
        shutil.rmtree(venv)
    if not (venv / "bin" / "pytest-quest").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", str(ROOT)], check=True)
    args = [a.replace("{project}", str(project)) for a in lib.install]
    if args:
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *args], check=True,
                       env={**os.environ, **lib.env})
    return venv


def quest_cli(venv: Path, project: Path, *args: str, timeout: float = 3600) -> dict[str, Any]:
    """``pytest-quest ARGS --json`` in the project; its JSON answer plus the exit code."""
    command, *rest = args  # --json before any "--" that passes options on to pytest
    proc = subprocess.run([str(venv / "bin" / "pytest-quest"), command, "--json", *rest],
                          cwd=project,
                          capture_output=True, text=True, timeout=timeout)
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except ValueError:
        data = {"error": proc.stdout[-2000:] + proc.stderr[-2000:]}
    if not isinstance(data, dict):
        data = {"answer": data}
    data["exit_code"] = proc.returncode
    if proc.returncode not in (0, 1, 3) and "error" not in data:
        data["error"] = proc.stderr[-2000:]
    return data


def own_config(project: Path) -> list[str]:
    """pytest options that keep an in-place run to the project's own configuration.

    The projects live inside this repository, whose ``pyproject.toml`` has a pytest
    table: a library with no pytest configuration of its own (cachetools, xmltodict)
    would pick ours up, as it never does in its sandbox copy or on its own.
    """
    for name, table in (("pytest.ini", ""), (".pytest.ini", ""), ("pyproject.toml", "[tool.pytest"),
                        ("tox.ini", "[pytest]"), ("setup.cfg", "[tool:pytest]")):
        path = project / name
        if path.is_file() and table in path.read_text(encoding="utf-8"):
            return ["--rootdir", str(project), "-c", str(path)]
    return ["--rootdir", str(project), "-c", os.devnull]


def stored_tests(lib: Library) -> list[tuple[str, Path, list[str]]]:
    """(quest id, file, ``--unreachable`` claims) of every stored test of ``lib``."""
    out = []
    for path in sorted((TESTS / lib.name).glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        match = _HEADER.search(text)
        if match:
            claims = [f"{line}:{reason}" for line, reason in _UNREACHABLE.findall(text)]
            out.append((match.group(1), path, claims))
    return out


def calibrate(lib: Library, fresh: bool = False, check: bool = True) -> dict[str, Any]:
    """Scan one unmodified library, submit its stored tests, run the ratchet; a record."""
    unpacked = fetch(lib.spec)
    project = WORK / f"real-{unpacked.name}"
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(unpacked, project)
    started = time.monotonic()
    venv = venv_for(lib, project, fresh)
    log(f"{lib.spec}: venv ready ({time.monotonic() - started:.0f} s); scanning")
    scan = quest_cli(venv, project, "scan")
    record: dict[str, Any] = {"library": lib.spec, "shape": lib.shape, "scan": scan,
                              "submits": []}
    if "error" in scan:
        log(f"  scan failed: {scan['error']}")
        return record
    log(f"  {scan['total']} quests, {scan['locked_by_baseline']} locked by the baseline")
    for quest, source, claims in stored_tests(lib):
        shown = quest_cli(venv, project, "next", "--id", quest)
        if "error" in shown:
            record["submits"].append({"quest": quest, "file": source.name, "verdict": "ERROR",
                                      "error": shown["error"]})
            log(f"  ERROR  {quest}: {shown['error']}")
            continue
        target = project / shown["test_path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        begun = time.monotonic()
        extra = [arg for claim in claims for arg in ("--unreachable", claim)]
        result = quest_cli(venv, project, "submit", quest, *extra)
        verdict = result.get("verdict", "ERROR")
        row = {"quest": quest, "file": source.name, "verdict": verdict,
               "root_cause": result.get("root_cause"), "facts": result.get("facts", []),
               "error": result.get("error"), "seconds": round(time.monotonic() - begun, 1)}
        record["submits"].append(row)
        log(f"  {verdict:6} {row['root_cause'] or '':28} {quest} ({row['seconds']} s)")
    record["status"] = quest_cli(venv, project, "status")
    if check:
        # The CI ratchet on the library as it now stands: every lock (baseline and gate)
        # must hold when the whole suite, quest tests included, runs under pytest-cov.
        record["check"] = quest_cli(venv, project, "check", "--", *own_config(project))
        log(f"  check: ok={record['check'].get('ok')} checked={record['check'].get('checked')} "
            f"problems={len(record['check'].get('problems') or [])}")
    return record


def row(record: dict[str, Any]) -> dict[str, Any]:
    scan, submits = record["scan"], record["submits"]
    count = {v: sum(s["verdict"] == v for s in submits) for v in ("PASS", "FAIL", "REVIEW")}
    return {"library": record["library"], "quests": scan.get("total"),
            "baseline": scan.get("locked_by_baseline"), "submits": len(submits), **count,
            "errors": len(submits) - sum(count.values())}


def report(records: list[dict[str, Any]]) -> str:
    lines = ["| library | quests | baseline locks | submits | PASS | FAIL | REVIEW | errors "
             "| check |",
             "|---|---|---|---|---|---|---|---|---|"]
    for record in records:
        r = row(record)
        ratchet = record.get("check") or {}
        held = ("-" if not ratchet else
                f"ok, {ratchet.get('checked')} locks" if ratchet.get("ok") else
                f"{len(ratchet.get('problems') or [])} problems {ratchet.get('error') or ''}")
        lines.append(f"| {r['library']} | {r['quests']} | {r['baseline']} | {r['submits']} | "
                     f"{r['PASS']} | {r['FAIL']} | {r['REVIEW']} | {r['errors']} | {held} |")
    for record in records:
        for sub in record["submits"]:
            if sub["verdict"] != "PASS":
                fact = sub["facts"][0] if sub.get("facts") else {}
                lines.append(f"- {sub['verdict']} {sub['quest']}: {sub.get('root_cause')} "
                             f"{fact.get('where', '')} {fact.get('actual', '')} "
                             f"{sub.get('error') or ''}".rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", action="append", help="library name (repeatable; default all)")
    parser.add_argument("--fresh", action="store_true", help="make the venvs anew")
    parser.add_argument("--no-check", action="store_true",
                        help="skip `pytest-quest check` (the CI ratchet) after the submits")
    parser.add_argument("--json", type=Path, default=WORK / "calibration-real.json")
    args = parser.parse_args(argv)
    chosen = [lib for lib in LIBRARIES if not args.lib or lib.name in args.lib]
    started = time.monotonic()
    records = [calibrate(lib, args.fresh, not args.no_check) for lib in chosen]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"records": records,
                                     "seconds": round(time.monotonic() - started, 1)},
                                    indent=2), encoding="utf-8")
    print(report(records))
    print(f"\ntotal {time.monotonic() - started:.0f} s; details in {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
