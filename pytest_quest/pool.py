"""The pool of open quests: shards, leases that expire, and which quest an agent gets.

``next``, ``loop`` and the MCP server all hand out quests through here, so they
agree on three rules:

- **Order**: the ledger's order (file, first line, id); the first free quest wins.
- **Shards**: ``--shard K/N`` keeps the quests whose id hashes to K (CRC-32 of
  the UTF-8 id, modulo N, plus one). The hash depends on the id alone, never on
  a position, so a rescan that adds or retires functions moves no other quest
  between shards, and N machines that never talk share the work disjointly.
- **Leases**: an agent that names itself (``--agent``) holds its quest for
  ``lease_seconds``. Its own ``next`` or ``submit`` renews the lease; once it
  expires, the quest is free again, so a killed agent strands nothing. An
  agent holds one quest at a time and gets its live one back first, which is
  how a restarted loop resumes.

Leases are local and short-lived, so they live in ``.quest/leases.json``
(gitignored), not in the committed ledger: taking a lease rewrites a few
hundred bytes instead of the whole ledger, and two branches never conflict
over who was working on what.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Container, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pytest_quest.errors import UsageError

__all__ = [
    "LEASES_NAME", "Leases", "Shard", "Survey", "open_leases", "pick", "release", "settle",
    "shard_of",
]

LEASES_NAME = "leases.json"
_TODO = "TODO"


class Shard:
    """Shard ``index`` of ``count`` (1-based, as CI matrices count).

    A plain class, not a dataclass: ``next --json`` pays for every class it creates.
    """

    __slots__ = ("count", "index")

    def __init__(self, index: int, count: int) -> None:
        self.index, self.count = index, count

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shard) and (self.index, self.count) == (other.index, other.count)

    def __hash__(self) -> int:
        return hash((self.index, self.count))

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``; anything else is a usage error."""
        index, sep, count = text.partition("/")
        try:
            shard = cls(int(index), int(count)) if sep else None
        except ValueError:
            shard = None
        if shard is None or not 1 <= shard.index <= shard.count:
            raise UsageError(f"--shard takes K/N with 1 <= K <= N (like 2/4), got {text!r}")
        return shard

    def __contains__(self, quest_id: object) -> bool:
        return isinstance(quest_id, str) and shard_of(quest_id, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(quest_id: str, count: int) -> int:
    """The shard (1..count) that owns ``quest_id``: stable across runs, machines and Pythons."""
    return zlib.crc32(quest_id.encode("utf-8")) % count + 1


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _live(table: dict[str, dict[str, str]], now: datetime) -> dict[str, dict[str, str]]:
    out = {}
    for quest_id, lease in table.items():
        try:
            if _moment(lease["until"]) > now:
                out[quest_id] = lease
        except (KeyError, TypeError, ValueError):
            continue  # a hand-edited entry holds nothing
    return out


class Leases:
    """``.quest/leases.json``: quest id -> ``{"agent", "since", "until"}``."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LEASES_NAME

    def read(self) -> dict[str, dict[str, str]]:
        """Every recorded lease, live or expired; an unreadable file holds none.

        Leases are a convenience between agents, not a record: a damaged file
        must not stop work, and the next lease taken rewrites it whole.
        """
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        table = data.get("leases") if isinstance(data, dict) else None
        return {k: v for k, v in table.items() if isinstance(v, dict)} if isinstance(
            table, dict) else {}

    def live(self, now: datetime | None = None) -> dict[str, dict[str, str]]:
        """The leases that have not expired at ``now``."""
        return _live(self.read(), now or datetime.now(UTC))

    @contextmanager
    def edit(self, now: datetime | None = None) -> Iterator[dict[str, dict[str, str]]]:
        """Lock, yield the live leases for changing, write them back (expired ones dropped)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with _locked(self.directory / (LEASES_NAME + ".lock")):
            table = _live(self.read(), now or datetime.now(UTC))
            before = json.dumps(table, sort_keys=True)
            yield table
            if json.dumps(table, sort_keys=True) != before or not self.path.exists():
                self._write(table)

    def grant(self, table: dict[str, dict[str, str]], agent: str, quest_id: str,
              seconds: int, now: datetime | None = None) -> dict[str, str]:
        """Lease ``quest_id`` to ``agent`` in ``table`` (inside :meth:`edit`).

        An agent holds one quest at a time: its other leases end here.
        """
        moment = now or datetime.now(UTC)
        for other in [k for k, v in table.items() if v.get("agent") == agent and k != quest_id]:
            del table[other]
        held = table.get(quest_id)
        kept = held is not None and held.get("agent") == agent and "since" in held
        since = held["since"] if held is not None and kept else _stamp(moment)
        until = _stamp(moment + timedelta(seconds=seconds))
        lease = {"agent": agent, "since": since, "until": until}
        table[quest_id] = lease
        return lease

    def _write(self, table: dict[str, dict[str, str]]) -> None:
        """Replace the file atomically; called under the lease lock, so one temp name serves.

        No ``tempfile`` (it drags shutil, bz2 and lzma into every ``next --agent``),
        and no directory fsync: a lease lost to a power cut only frees its quest early.
        """
        text = json.dumps({"leases": table}, indent=2, sort_keys=True) + "\n"
        tmp = self.directory / "runs" / (LEASES_NAME + ".tmp")  # runs/ is gitignored
        tmp.parent.mkdir(exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        _ignore_in_git(self.directory)


def _ignore_in_git(directory: Path) -> None:
    """Keep leases out of git in ledgers whose ``.gitignore`` predates them."""
    gitignore = directory / ".gitignore"
    try:
        text = gitignore.read_text(encoding="utf-8")
    except OSError:
        return  # the ledger writes a complete one when it first saves
    if LEASES_NAME not in text.split():
        gitignore.write_text(text.rstrip("\n") + f"\n{LEASES_NAME}\n", encoding="utf-8")


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock held by this process (and thread) until the block ends.

    ``fcntl.flock`` costs nothing to import; ``filelock`` (which does the same
    on POSIX) is the fallback where there is no ``fcntl``.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock

        with FileLock(str(path)):
            yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class Survey:
    """One pass over the ledger's raw records: the quest to hand out and the counts around it."""

    __slots__ = ("chosen", "counts", "leased")

    def __init__(self, chosen: dict[str, Any] | None, counts: dict[str, int], leased: int) -> None:
        self.chosen = chosen
        #: state -> number of quests.
        self.counts = counts
        #: TODO quests under a live lease, other than the one handed out.
        self.leased = leased


def pick(quests: Iterable[dict[str, Any]], held: dict[str, dict[str, str]], agent: str | None,
         shard: Shard | None = None, exclude: Iterable[str] = ()) -> Survey:
    """The quest ``agent`` should work on next (as the ledger's raw record), and the counts.

    ``quests`` are the ledger's raw records and ``held`` the live leases. The
    agent's own live lease comes first; else the first TODO quest in the
    ledger's order (file, first line, id; deferred quests last) that is in ``shard``, not in
    ``exclude`` and not leased to someone else. One pass, no sorting: ``next``
    on 14,000 quests pays for reading the file, not for choosing.
    """
    skip = set(exclude)
    counts: dict[str, int] = {}
    leased = 0
    own: dict[str, Any] | None = None
    best: dict[str, Any] | None = None
    best_key: tuple[str, str, int, str] | None = None
    for raw in quests:
        state = raw.get("state", _TODO)
        counts[state] = counts.get(state, 0) + 1
        if state != _TODO:
            continue
        quest_id = raw["id"]
        lease = held.get(quest_id)
        if lease is not None:
            if agent is not None and lease.get("agent") == agent:
                own = raw
            else:
                leased += 1
            continue
        if quest_id in skip or (shard is not None and quest_id not in shard):
            continue
        # Quests put off with `pytest-quest skip` go last, longest deferred first.
        deferred = str((raw.get("extra") or {}).get("deferred") or "")
        key = (deferred, raw.get("path", ""), (raw.get("lines") or (0,))[0], quest_id)
        if best_key is None or key < best_key:
            best, best_key = raw, key
    if own is not None and own["id"] not in skip and (shard is None or own["id"] in shard):
        best = own
    elif own is not None:
        leased += 1  # held by this agent but outside what it asked for now
    return Survey(best, counts, leased)


def open_leases(directory: Path, open_ids: Container[str]) -> dict[str, dict[str, str]]:
    """Live leases on quests still open (``open_ids``): who is working on what right now.

    A lease can outlive its quest when the holder submitted without ``--agent``; it
    holds nothing then and is not shown.
    """
    return {q: lease for q, lease in Leases(directory).live().items() if q in open_ids}


def settle(directory: Path, quest_id: str, agent: str | None, state: str, seconds: int) -> None:
    """After ``agent`` submitted ``quest_id``: renew its lease while TODO, else free it.

    A submit without ``--agent`` changes no lease; one by an agent that does
    not hold the quest never takes it from the holder.
    """
    if agent is None:
        return
    leases = Leases(directory)
    with leases.edit() as table:
        holder = table.get(quest_id, {}).get("agent")
        if holder not in (None, agent):
            return
        if state == _TODO:
            leases.grant(table, agent, quest_id, seconds)
        else:
            table.pop(quest_id, None)


def release(directory: Path, quest_id: str, agent: str) -> None:
    """Give ``quest_id`` back to the pool if ``agent`` holds it (an agent that gave up)."""
    with Leases(directory).edit() as table:
        if table.get(quest_id, {}).get("agent") == agent:
            del table[quest_id]
