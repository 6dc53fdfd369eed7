"""The schedule's seed: secret from the test, the same for the same submission on the same files.

The order of clean controls and mutants (:mod:`pytest_quest.mutate`) is
shuffled by a seed. A seed the test can compute (red team 2, finding 12: it
was a hash of the test's own bytes and the pristine source) lets the test
recompute the whole schedule and fail exactly in the mutant runs. So the
seed is ``HMAC(key, digest of the sandbox copy)``:

- the **key** is per project, 32 random bytes in ``.quest/runs/schedule.key``
  (``runs/`` is gitignored by the ledger: the key is never committed). The
  confined run never sees the project root, only its copy, and ``.quest`` is
  never copied;
- the **digest** covers every file copied into the sandbox (the test
  included), so a data file written next to the test after a dry run also
  changes the schedule;
- the seed is computed in the gate and reaches the judge through a pipe the
  judge reads only after its zygote was forked: no run child ever holds it.

A dry run (``submit --dry-run``) draws its schedule with a seed of its own
(:func:`schedule_seed` with ``preview``): the same for the same files, but not
the recorded submission's. A relay that wins only on some schedules (red team
25: when ``M`` happened to be the second run of the first wave) could
otherwise shop for one with free dry runs, re-rolling by a comment line, and
then submit the file whose preview passed. An honest test's verdict does not
depend on the schedule, so its preview says what its submission will.

Limits: an agent that can read ``.quest/runs/`` (a shell in the project as
the same user) can read the key and compute the seed; keep agents to
``submit`` (MCP, ``loop``) or give them no read access to ``.quest`` where
that matters. Deleting the key only makes a new one (another schedule).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

__all__ = ["KEY_BYTES", "KEY_PATH", "project_key", "schedule_seed"]

KEY_PATH = ".quest/runs/schedule.key"
KEY_BYTES = 32


def project_key(root: Path) -> bytes:
    """The project's schedule key, made on first use (readable by its owner only)."""
    path = root / KEY_PATH
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    if len(data) == KEY_BYTES:
        return data
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = os.urandom(KEY_BYTES)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, fresh)
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)  # the first writer wins; a concurrent one reads its key
    except FileExistsError:
        if path.stat().st_size != KEY_BYTES:  # a broken key: replace it
            os.replace(temporary, path)
            return fresh
        return path.read_bytes()
    finally:
        temporary.unlink(missing_ok=True)
    return fresh


def schedule_seed(key: bytes, digest: str, preview: bool = False) -> str:
    """64 hex digits: the seed of one submission's schedule on one sandbox copy
    (``preview``: of a dry run's, which is another)."""
    message = ("preview:" if preview else "") + digest
    return hmac.new(key, message.encode("ascii"), hashlib.sha256).hexdigest()
