"""Settings: ``[tool.pytest-quest]`` of the target's ``pyproject.toml``, then flags.

Precedence: command-line flag > ``pyproject.toml`` > the defaults below.
"""

from __future__ import annotations

import contextlib
import re
import sys
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pytest_quest.errors import ConfigError

__all__ = [
    "IGNORED_DIRS",
    "ISOLATION",
    "ORIGINS",
    "Settings",
    "detect_sources",
    "explain_settings",
    "find_root",
    "is_tooling",
    "load_settings",
]

#: Folders never scanned, snapshotted or copied into a sandbox.
IGNORED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".quest", ".tox", ".nox", ".venv", "venv", "env", ".env",
        "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
        "node_modules", "build", "dist", "htmlcov", ".eggs", ".idea", ".vscode",
    }
)
#: Values of the ``isolation`` setting (see docs/security.md).
ISOLATION = ("auto", "strict")
_NOT_SOURCES = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example",
                          "benchmark", "benchmarks", "bench", "scripts", "tools", "build",
                          "dist", "site", "ci", "changelog.d", "requirements"})
#: Top-level modules that run the project (packaging, tasks, docs) rather than belong to it.
_NOT_SOURCE_MODULES = frozenset({"setup.py", "conftest.py", "noxfile.py", "fabfile.py",
                                 "tasks.py", "manage.py", "dodo.py", "versioneer.py",
                                 "pavement.py", "toxfile.py", "conf.py", "benchmark.py",
                                 "benchmarks.py", "bench.py", "profile_it.py"})
_TOOLING = re.compile(r"^(bench(mark)?s?_.*|.*_bench(mark)?s?|test_.*|.*_test)\.py$")


@dataclass(frozen=True)
class Settings:
    """Everything a command needs to know about the target project."""

    root: Path
    sources: tuple[str, ...] = ()
    test_dir: str = "tests/quest"
    #: Folders never copied into a sandbox nor protected (large data the tests do not read).
    exclude: tuple[str, ...] = ()
    #: Quest ids or globs (``hotel/legacy/*``, ``*::__repr__``) that are never quests.
    exclude_quests: tuple[str, ...] = ()
    max_tries: int = 3
    timeout: float = 60.0
    baseline_timeout: float = 900.0
    branch: bool = False
    reruns: int = 3
    mutation: bool = True
    #: Share of classic mutants a test must kill (after the extreme ones all die).
    mutation_threshold: float = 0.6
    max_mutants: int = 20
    memory_mb: int = 4096
    #: Size of each in-memory folder a confined run writes beside its sandbox copy (tmp, home).
    disk_mb: int = 1024
    #: Processes a run may have at once (cgroup pids.max, else RLIMIT_NPROC above the count now).
    pids_max: int = 512
    lease_seconds: int = 1800
    python: str = field(default_factory=lambda: sys.executable)
    #: "auto": the best confinement the kernel offers; "strict": refuse to judge without any.
    isolation: str = "auto"

    def with_overrides(self, **values: Any) -> Settings:
        """Apply command-line flags; ``None`` means "not given"."""
        given = {k: v for k, v in values.items() if v is not None}
        if "sources" in given:
            cleaned = tuple(_clean_rel(s, self.root) for s in given["sources"])
            given["sources"] = cleaned or self.sources
        return replace(self, **given)

    def to_dict(self) -> dict[str, Any]:
        return {"sources": list(self.sources), "test_dir": self.test_dir, "branch": self.branch}


def find_root(start: Path | None = None) -> Path:
    """The nearest folder up from ``start`` holding ``.quest/`` or ``pyproject.toml``."""
    here = Path(start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".quest").is_dir():
            return candidate
    for candidate in (here, *here.parents):
        if (candidate / "pyproject.toml").is_file() or (candidate / "setup.py").is_file():
            return candidate
    return here


def _clean_rel(value: str, root: Path) -> str:
    path = Path(value)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(root.resolve())
        except ValueError:
            raise ConfigError(f"source folder {value} is outside the project {root}") from None
    text = path.as_posix().strip("/")
    if text.startswith(".."):
        raise ConfigError(f"source folder {value} is outside the project {root}")
    return text or "."


def is_tooling(rel: str) -> bool:
    """A top-level folder or module of the project that is not its code.

    Docs, benchmarks, examples, packaging (``setup.py``), task runners
    (``noxfile.py``, ``tasks.py``) and benchmark scripts (``benchmark.py``,
    ``bench_parse.py``) run the project; their functions are not quests.
    Only the first part of ``rel`` is judged: ``pkg/tasks.py`` is code.
    """
    first, _, rest = rel.partition("/")
    if rest:
        return first in _NOT_SOURCES
    return first in _NOT_SOURCES or first in _NOT_SOURCE_MODULES or bool(_TOOLING.match(first))


def detect_sources(root: Path) -> tuple[str, ...]:
    """Guess the source folders: ``src/``'s packages, else top-level packages and modules."""
    src = root / "src"
    if src.is_dir() and (any(src.glob("*/__init__.py")) or any(src.glob("*.py"))):
        return ("src",)
    found = []
    for child in sorted(root.iterdir()):
        name = child.name
        if name.startswith(".") or name in IGNORED_DIRS or is_tooling(name):
            continue
        if (child.is_dir() and (child / "__init__.py").is_file()) or (
            child.suffix == ".py" and child.is_file()
        ):
            found.append(name)
    return tuple(found)


_TYPES = {f.name: f.type for f in fields(Settings)}


#: What ``scan`` records in the ledger and later commands reuse when pyproject is silent.
RECORDED = ("sources", "test_dir", "branch")


def load_settings(root: Path | None = None, recorded: dict[str, Any] | None = None) -> Settings:
    """Read ``[tool.pytest-quest]`` and fill in what it leaves out.

    ``recorded`` holds what the last scan used (the ledger's ``settings``): a
    ``scan --source lib --branch`` keeps applying to ``next``, ``submit`` and
    the ratchet without repeating the flags. ``pyproject.toml`` still wins.
    """
    return explain_settings(root, recorded)[0]


#: Where a setting's value came from, as ``pytest-quest config`` names it.
ORIGINS = ("default", "auto-detected", "pyproject", "recorded by scan", "flag")


def explain_settings(
    root: Path | None = None, recorded: dict[str, Any] | None = None, **flags: Any
) -> tuple[Settings, dict[str, str]]:
    """The settings and, per key, where its value came from (one of :data:`ORIGINS`).

    ``flags`` are command-line values (``None``: not given), applied as
    :meth:`Settings.with_overrides` does.
    """
    root = find_root(root)
    table: dict[str, Any] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{pyproject}: {exc}") from None
        table = data.get("tool", {}).get("pytest-quest", {}) or {}
    values: dict[str, Any] = {}
    origins = {name: "default" for name in _TYPES if name != "root"}
    for key, raw in table.items():
        name = key.replace("-", "_")
        if name not in _TYPES or name == "root":
            raise ConfigError(f"{pyproject}: unknown key [tool.pytest-quest] {key}")
        values[name] = _coerce(name, raw, pyproject)
        origins[name] = "pyproject"
    for name, raw in (recorded or {}).items():
        if name in RECORDED and name not in values:
            value = list(raw) if name == "sources" and isinstance(raw, list | tuple) else raw
            with contextlib.suppress(ConfigError):  # a hand-edited value: ignore it
                values[name] = _coerce(name, value, root / ".quest" / "ledger.json")
                origins[name] = "recorded by scan"
    if values.get("sources"):
        values["sources"] = tuple(_clean_rel(s, root) for s in values["sources"])
    else:
        values["sources"] = detect_sources(root)
        origins["sources"] = "auto-detected"
    if "test_dir" in values:
        values["test_dir"] = _clean_rel(values["test_dir"], root)
    if "exclude" in values:
        values["exclude"] = tuple(_clean_rel(e, root) for e in values["exclude"])
    if values.get("isolation", "auto") not in ISOLATION:
        raise ConfigError(f"{pyproject}: [tool.pytest-quest] isolation = "
                          f"{values['isolation']!r} is not one of {', '.join(ISOLATION)}")
    settings = Settings(root=root, **values)
    given = {k: v for k, v in flags.items() if v is not None}
    if given:
        settings = settings.with_overrides(**given)
        origins.update(dict.fromkeys(given, "flag"))
    return settings, origins


def _coerce(name: str, raw: Any, where: Path) -> Any:
    kind = _TYPES[name]
    ok = {
        "tuple[str, ...]": isinstance(raw, list) and all(isinstance(x, str) for x in raw),
        "str": isinstance(raw, str),
        "int": isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0,
        "float": isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0,
        "bool": isinstance(raw, bool),
    }.get(str(kind), False)
    if not ok:
        raise ConfigError(f"{where}: [tool.pytest-quest] {name} = {raw!r} is not a valid {kind}")
    return tuple(raw) if isinstance(raw, list) else raw
