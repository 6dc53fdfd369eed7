"""Where a quest's test file goes, and how user-given paths map into the project."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_quest.config import Settings
from pytest_quest.errors import UsageError
from pytest_quest.quest import Quest

__all__ = ["default_test_path", "import_roots", "module_name", "project_relative"]


def default_test_path(quest: Quest, settings: Settings) -> str:
    """``hotel/pricing.py::Room.rate`` -> ``tests/quest/test_hotel_pricing__Room_rate.py``.

    Underscores are kept as they are (``_double`` and ``double`` must not share a file).
    """
    module = quest.path.removesuffix(".py").replace("/", "_")
    name = re.sub(r"[^0-9A-Za-z_]+", "_", quest.qualname)
    return f"{settings.test_dir.rstrip('/')}/test_{module}__{name}.py"


def project_relative(path: str | Path, settings: Settings) -> str:
    """A user-given path as a posix path from the project root; outside it is a usage error.

    A relative path is read from the current folder when that folder is inside
    the project (as any command line does), else from the project root.
    """
    given = Path(path)
    root = settings.root.resolve()
    cwd = Path.cwd().resolve()
    base = cwd if cwd == root or root in cwd.parents else root
    absolute = (given if given.is_absolute() else base / given).resolve()
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the project {settings.root}") from None


def import_roots(settings: Settings) -> list[str]:
    """Folders to put on ``sys.path`` so the sandbox's sources shadow any installed copy."""
    roots: list[str] = ["."]
    for source in settings.sources:
        path = settings.root / source
        if source == "." or path.is_file():
            continue
        if source == "src" or not (path / "__init__.py").exists():
            roots.append(source)
    return roots


def module_name(rel: str, settings: Settings) -> str:
    """``src/hotel/pricing.py`` -> ``hotel.pricing`` given the import roots."""
    best = ""
    for root in import_roots(settings):
        prefix = "" if root == "." else root.rstrip("/") + "/"
        if rel.startswith(prefix) and len(prefix) >= len(best):
            best = prefix
    stem = rel[len(best):].removesuffix(".py")
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
