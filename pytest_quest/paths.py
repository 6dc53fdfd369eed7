"""Where a quest's test file goes, and how user-given paths map into the project."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.errors import UsageError
from pytest_quest.quest import Quest
from pytest_quest.states import State

__all__ = ["MAX_STEM", "coverage_include", "default_test_path", "import_roots", "locked_by_others",
           "module_name", "open_default_paths", "project_relative", "quest_file_name",
           "same_file_key"]


#: Longest file stem before the tail is cut and the hash keeps names apart.
MAX_STEM = 60


def same_file_key(rel: str) -> str:
    """``rel`` as a case- and normalization-insensitive file system compares names.

    macOS compares ``TEST_a.py`` and ``test_a.py`` as one file, and also ``é`` written as
    one code point (NFC) or as ``e`` plus a combining accent (NFD): a path that differs from
    a lock only that way is the lock's file there (red team 5, finding 05). The canonical
    caseless key: NFD, case folded, NFD again.
    """
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", rel).casefold())


def default_test_path(quest: Quest, settings: Settings, quest_ids: Iterable[str],
                      locked: Collection[str] = ()) -> str:
    """``hotel/pricing.py::Room.rate`` -> ``tests/quest/test_hotel_pricing__Room_rate.py``.

    ``quest_ids``: every quest of the ledger (any state); see :func:`quest_file_name`.
    ``locked``: the test paths other quests locked (:func:`locked_by_others`). A quest
    may lock on any file of the quest folder (``submit --test``), so one can sit on the
    readable name of another quest; that quest's name then gets the hash, or ``next``
    would send its agent to write over the lock (red team 4, finding 02).
    """
    folder = settings.test_dir.rstrip("/")
    taken = {same_file_key(path) for path in locked}
    rel = f"{folder}/{quest_file_name(quest.id, quest_ids)}"
    if same_file_key(rel) not in taken:
        return rel
    # The hashed name can be taken too (a second lock placed there on purpose): count on.
    stem = quest_file_name(quest.id, quest_ids, hashed=True).removesuffix(".py")
    rel, number = f"{folder}/{stem}.py", 1
    while same_file_key(rel) in taken:
        number += 1
        rel = f"{folder}/{stem}_{number}.py"
    return rel


def open_default_paths(quests: Collection[Quest], settings: Settings) -> dict[str, str]:
    """Quest id -> the test path ``next`` gives it, for every TODO quest, in one pass.

    The same answer as :func:`default_test_path` per quest, without its scan of
    every other id per quest (quadratic on a large ledger): the readable stems
    are counted once, and only a quest whose name a lock already holds takes
    the slow way (rare: a lock placed on another quest's name on purpose).
    """
    folder = settings.test_dir.rstrip("/")
    ids = [quest.id for quest in quests]
    stems = {quest_id: _readable(quest_id) for quest_id in ids}
    clean = Counter(stem.casefold() for stem, lossy in stems.values() if not lossy)
    locked = locked_by_others(quests, "")
    taken = {same_file_key(path) for path in locked}
    out = {}
    for quest in quests:
        if quest.state is not State.TODO:
            continue
        stem, lossy = stems[quest.id]
        if lossy or clean[stem.casefold()] > 1:
            stem = _hashed(stem, quest.id)
        rel = f"{folder}/{stem}.py"
        out[quest.id] = (rel if same_file_key(rel) not in taken
                         else default_test_path(quest, settings, ids, locked))
    return out


def locked_by_others(quests: Iterable[Quest | Mapping[str, Any]], quest_id: str) -> set[str]:
    """The test paths PASS quests other than ``quest_id`` are locked on.

    ``quests``: the ledger's quests, loaded or as its raw records.
    """
    out = set()
    for quest in quests:
        other: object
        state: object
        test: object
        if isinstance(quest, Quest):
            other, state = quest.id, quest.state.value
            test = quest.evidence.test if quest.evidence is not None else None
        else:
            other, state = quest.get("id"), quest.get("state")
            evidence = quest.get("evidence")
            test = evidence.get("test") if isinstance(evidence, Mapping) else None
        if other != quest_id and state == "PASS" and isinstance(test, str) and test:
            out.add(test)
    return out


def quest_file_name(quest_id: str, quest_ids: Iterable[str] = (), hashed: bool = False) -> str:
    """The file name of :func:`default_test_path`: readable, and never another quest's.

    Short and readable: a leading ``src/`` and a trailing ``__init__`` are left
    out of the module part, module parts and qualname parts are joined with
    ``_``, and leading or trailing underscores of each name
    (``_CustomTextWrap.__len__``) are dropped. Whenever a name loses anything
    that way, six hex digits of the quest id's sha256 follow, so ``_double``
    and ``double`` never share a file.
    ``tabulate/__init__.py::_CustomTextWrap.__len__`` ->
    ``test_tabulate__CustomTextWrap_len_<hash>.py``.

    Joining with ``_`` is lossy too: ``a.py::b.c`` and ``a.py::b_c``,
    ``a/b.py::c`` and ``a_b.py::c``, ``src/a.py::f`` and ``a.py::f`` read the
    same (red team 3, finding 05). When another quest of ``quest_ids`` has
    the same readable name (compared case-insensitively, as macOS compares
    file names), each of them gets the hash as well. A project without such
    a pair keeps the readable names; a lock keeps the test path it recorded.
    ``hashed``: the hash in any case (the readable name is taken by a lock).
    """
    stem, lossy = _readable(quest_id)
    lossy = lossy or hashed
    if not lossy:
        key = stem.casefold()
        for other in quest_ids:
            if other == quest_id:
                continue
            theirs, hashed = _readable(other)
            if not hashed and theirs.casefold() == key:
                lossy = True
                break
    if lossy:
        stem = _hashed(stem, quest_id)
    return stem + ".py"


def _hashed(stem: str, quest_id: str) -> str:
    """``stem`` made the quest's own: six hex digits of its id's sha256 follow it."""
    return stem + "_" + hashlib.sha256(quest_id.encode("utf-8")).hexdigest()[:6]


def _readable(quest_id: str) -> tuple[str, bool]:
    """The readable stem of ``quest_id`` and whether it lost something on the way (a hash)."""
    path, _, qualname = quest_id.partition("::")
    module_parts = path.removesuffix(".py").split("/")
    if module_parts[0] == "src" and len(module_parts) > 1:
        module_parts = module_parts[1:]
    if module_parts[-1] == "__init__" and len(module_parts) > 1:
        module_parts = module_parts[:-1]
    lossy = "@" in qualname
    names = []
    for part in qualname.replace("@", ".at").split("."):
        clean = re.sub(r"[^0-9A-Za-z_]+", "_", part).strip("_")
        lossy = lossy or clean != part
        names.append(clean or "_")
    module = "_".join(module_parts)
    stem = f"test_{module}__{'_'.join(names)}"
    if len(stem) > MAX_STEM:
        stem, lossy = stem[:MAX_STEM].rstrip("_"), True
    return stem, lossy


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


def coverage_include(settings: Settings) -> list[str]:
    """coverage.py ``include`` patterns for the sources, relative to the root.

    coverage.py's ``source`` takes only folders and package names: a single
    module given as a source (a flat ``xmltodict.py`` project) would measure
    nothing, and the baseline would lock nothing. Patterns cover both. Only
    ``.py`` files: a compiled extension built with line tracing (yarl's Cython
    ``_quoting_c.pyx``) reports frames from a file coverage.py cannot parse,
    and one such file failed the whole report.
    """
    out = []
    for source in settings.sources:
        if source == ".":
            out.append("**/*.py")
        elif (settings.root / source).is_file():
            out.append(source)
        else:
            out.append(source.rstrip("/") + "/**/*.py")  # "*" stops at a "/"
    return out


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
