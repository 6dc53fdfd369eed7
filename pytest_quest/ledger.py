"""The ledger: ``.quest/ledger.json`` and its append-only ``attempts.jsonl``.

Committed to git and diffed in review, so the JSON is deterministic (sorted
keys, stable order, two-space indent). Written by temp file + fsync +
``os.replace`` under a file lock, so parallel agents and killed processes can
never leave half a ledger. A file we cannot read is refused, never replaced.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_quest import schema
from pytest_quest.errors import CorruptLedger, LedgerBusy, NoLedger, UnknownQuest
from pytest_quest.facts import printable
from pytest_quest.quest import Quest
from pytest_quest.records import Attempt, json_lines
from pytest_quest.states import State

__all__ = [
    "LEDGER_DIR",
    "SCHEMA_VERSION",
    "Ledger",
    "append_attempt",
    "closest",
    "now_iso",
    "parse_time",
    "read_attempts",
    "read_document",
    "transaction",
    "unknown_message",
]

SCHEMA_VERSION = 1
LEDGER_DIR = ".quest"
LEDGER_NAME = "ledger.json"
ATTEMPTS_NAME = "attempts.jsonl"
LOCK_TIMEOUT = 60.0
_GITIGNORE = "# written by pytest-quest: local state, not for review\n*.lock\nruns/\nleases.json\n"


def now_iso() -> str:
    """UTC time with second precision: stable, sortable, readable in a diff."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class Ledger:
    """All quests of one project plus the scan snapshot of its protected files."""

    path: Path
    quests: dict[str, Quest] = field(default_factory=dict)
    #: Protected file -> sha256 at the last scan (sources, existing tests, configs).
    snapshot: dict[str, str] = field(default_factory=dict)
    #: One entry per scan: time, total, added, retired (the burn-down's steps).
    scans: list[dict[str, Any]] = field(default_factory=list)
    #: The settings the last scan used (sources, test_dir, branch).
    settings: dict[str, Any] = field(default_factory=dict)
    #: Functions the last scan found but offers no quest for: ``{"id", "reason"}``
    #: (cannot be covered here, or excluded by ``exclude_quests``).
    skipped: list[dict[str, str]] = field(default_factory=list)

    # ----------------------------------------------------------------- paths
    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def attempts_path(self) -> Path:
        return self.directory / ATTEMPTS_NAME

    @property
    def root(self) -> Path:
        """The project root: the folder that holds ``.quest/``."""
        return self.directory.parent

    # ------------------------------------------------------------------- i/o
    @classmethod
    def for_root(cls, root: Path) -> Ledger:
        return cls(path=Path(root) / LEDGER_DIR / LEDGER_NAME)

    @classmethod
    def load(cls, path: Path, missing_ok: bool = False) -> Ledger:
        """Read ``path``; refuse anything we cannot trust in full.

        No file is :class:`NoLedger` (the project was never scanned); a file
        that is not a valid ledger in every record (see :mod:`pytest_quest.schema`)
        is :class:`CorruptLedger`, and nothing ever rewrites it.
        """
        path = Path(path)
        data = read_document(path, missing_ok)
        if data is None:
            return cls(path=path)
        try:
            quests = {q["id"]: Quest.from_dict(q) for q in data["quests"]}
        except (ValueError, KeyError, TypeError) as exc:
            raise _corrupt(path, exc) from None
        return cls(
            path=path,
            quests=quests,
            snapshot=dict(data.get("snapshot", {})),
            scans=list(data.get("scans", [])),
            settings=dict(data.get("settings", {})),
            skipped=list(data.get("skipped", [])),
        )

    def to_json(self) -> str:
        data = {
            "schema": SCHEMA_VERSION,
            "tool": "pytest-quest",
            "settings": self.settings,
            "scans": self.scans,
            "snapshot": dict(sorted(self.snapshot.items())),
            "quests": [self.quests[k].to_dict() for k in self.ordered_ids()],
        }
        if self.skipped:
            data["skipped"] = sorted(self.skipped, key=lambda e: e["id"])
        return _storable(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)) + "\n"

    def save(self) -> None:
        """Atomically replace the ledger file (temp file, fsync, ``os.replace``)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        gitignore = self.directory / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(_GITIGNORE, encoding="utf-8")
        _atomic_write(self.path, self.to_json())

    # --------------------------------------------------------------- queries
    def ordered_ids(self) -> list[str]:
        """Quests in file order, then source order: stable across runs."""
        return sorted(self.quests, key=lambda k: (self.quests[k].path, self.quests[k].lines[0], k))

    def ordered(self) -> list[Quest]:
        return [self.quests[k] for k in self.ordered_ids()]

    def get(self, quest_id: str) -> Quest:
        try:
            return self.quests[quest_id]
        except KeyError:
            raise UnknownQuest(unknown_message(quest_id, self.quests)) from None

    def put(self, quest: Quest) -> None:
        self.quests[quest.id] = quest

    def counts(self) -> dict[str, int]:
        found = Counter(q.state.value for q in self.quests.values())
        return {s.value: found.get(s.value, 0) for s in State}

    @property
    def remaining(self) -> int:
        return sum(1 for q in self.quests.values() if q.state is State.TODO)

    @property
    def total(self) -> int:
        """Quests that count: everything but RETIRED."""
        return sum(1 for q in self.quests.values() if q.state is not State.RETIRED)


def read_document(path: Path, missing_ok: bool = False) -> dict[str, Any] | None:
    """The ledger file as parsed JSON, checked in full; ``None`` when missing and allowed.

    Commands that need one quest out of thousands (``next``) read this and
    build a :class:`Quest` only for the one they hand out. The whole document
    is validated (:mod:`pytest_quest.schema`) either way: every command refuses
    a damaged ledger with the same message, none crashes on one.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            data = schema.loads(handle.read())
    except FileNotFoundError:
        if missing_ok:
            return None
        raise NoLedger(
            f"no ledger at {path}: run `pytest-quest scan` in the project root first"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise CorruptLedger(f"cannot read ledger {path}: {reason}") from None
    except ValueError as exc:
        raise _corrupt(path, exc) from None
    if isinstance(data, dict) and data.get("schema") != SCHEMA_VERSION:
        raise _corrupt(path, f"schema {data.get('schema')!r}, this pytest-quest reads "
                             f"{SCHEMA_VERSION}")
    try:
        return schema.validate(data)
    except ValueError as exc:
        raise _corrupt(path, exc) from None


def _corrupt(path: Path, reason: object) -> CorruptLedger:
    return CorruptLedger(
        f"ledger {path} is corrupt ({reason}); it was left as it was: "
        "restore it from git (`git checkout -- .quest/ledger.json`) or fix that value"
    )


def closest(quest_id: str, ids: Iterable[str], n: int = 3) -> list[str]:
    """The ids nearest to a mistyped ``quest_id``: same function name first, then spelling."""
    import difflib

    known = sorted(ids)
    name = quest_id.rsplit("::", 1)[-1]
    same = [k for k in known if k.rsplit("::", 1)[-1] == name]
    near = difflib.get_close_matches(quest_id, known, n=n, cutoff=0.6)
    return list(dict.fromkeys([*same, *near]))[:n]


#: A lone surrogate (see :func:`pytest_quest.facts.printable`).
_SURROGATE = re.compile("[\ud800-\udfff]")


def unknown_message(quest_id: str, ids: Iterable[str]) -> str:
    """``unknown quest 'x': did you mean ...?``, or where to find every id."""
    close = closest(quest_id, ids)
    hint = (f"did you mean {' or '.join(close)}?" if close
            else "`pytest-quest status --all` lists every id")
    return f"unknown quest {quest_id!r}: {hint}"


def _atomic_write(path: Path, text: str) -> None:
    import tempfile  # only writers pay for it (and for shutil, random, lzma behind it)

    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _storable(text: str) -> str:
    """JSON text that UTF-8 can hold: a lone surrogate in a string becomes its escape as text.

    ``json.dumps(..., ensure_ascii=False)`` keeps a lone surrogate as is, and
    writing it as UTF-8 fails (red team 2, finding 06: after the verdict, so
    the try was lost). Each one is written as the JSON for a backslash plus
    ``udXXX``, so it reads back as the printable text ``\\udXXX``, never as a
    surrogate that would break the next reader (``show``) again.
    """
    return _SURROGATE.sub(lambda m: "\\" + printable(m.group()), text)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some filesystems refuse
        pass
    finally:
        os.close(fd)


@contextmanager
def transaction(path: Path, missing_ok: bool = False) -> Iterator[Ledger]:
    """Lock, load, yield, save: the only way the CLI changes a ledger.

    The ledger is saved only when the block ends without an exception, so a
    failed command leaves the file exactly as it was.
    """
    from filelock import FileLock, Timeout  # not at import: `next` reads without the lock

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT)
    try:
        lock.acquire()
    except Timeout:
        raise LedgerBusy(
            f"ledger {path} is locked by another pytest-quest process for over {LOCK_TIMEOUT:.0f} s"
        ) from None
    try:
        ledger = Ledger.load(path, missing_ok=missing_ok)
        before = ledger.to_json() if path.exists() else None
        yield ledger
        if ledger.to_json() != before:
            ledger.save()
    finally:
        lock.release()


def append_attempt(ledger: Ledger, record: Attempt) -> None:
    """Append one attempt (or review decision) to ``attempts.jsonl`` and fsync it."""
    ledger.directory.mkdir(parents=True, exist_ok=True)
    line = _storable(json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False))
    with open(ledger.attempts_path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_attempts(ledger: Ledger, quest_id: str | None = None) -> list[Attempt]:
    """Every attempt in order; a torn last line (a killed writer) is skipped."""
    try:
        lines = ledger.attempts_path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [Attempt.from_dict(record) for record in json_lines(lines)
            if quest_id is None or record.get("quest") == quest_id]
