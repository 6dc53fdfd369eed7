"""The ledger at a base ref, read with git, judged against the checkout (``--quest-base``).

``git show REF:./.quest/ledger.json`` needs no checkout; the attempts log and
``pyproject.toml`` at REF are read the same way. The head side is the working
tree. The judging itself is :func:`pytest_quest.history.judge`; this module
only gathers its inputs and says plainly when the base cannot be read: a
shallow clone without the base ref is an error, never a silent pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_quest.errors import UsageError
from pytest_quest.history import HistoryReport, judge
from pytest_quest.scanner import ScanError, scan_file

__all__ = ["BaseRefError", "HistoryCheck", "auto_base", "check_history", "read_at", "verify_base"]


class BaseRefError(UsageError):
    """The base ref cannot be read: unknown, or missing from a shallow clone."""


@dataclass
class HistoryCheck:
    """What ``--quest-base`` found: the ref judged (or why none was) and the verdict."""

    base: str | None
    note: str
    report: HistoryReport = field(default_factory=HistoryReport)

    @property
    def ok(self) -> bool:
        return self.report.ok

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "checked": self.base is not None, "note": self.note,
                **self.report.to_dict()}


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BaseRefError(f"cannot run git to read the base ledger: {exc}") from None


def _has_commit(root: Path, ref: str) -> bool:
    return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode == 0


def verify_base(root: Path, ref: str) -> None:
    """Raise :class:`BaseRefError` unless ``ref`` names a commit this clone holds."""
    if _git(root, "rev-parse", "--git-dir").returncode != 0:
        raise BaseRefError(f"--quest-base {ref}: {root} is not inside a git repository")
    if _has_commit(root, ref):
        return
    shallow = _git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    if shallow:
        raise BaseRefError(
            f"--quest-base {ref}: this is a shallow clone without {ref}, so the ledger's "
            f"history cannot be checked; fetch it (actions/checkout with fetch-depth: 0, "
            f"or `git fetch --depth=1 origin {ref.removeprefix('origin/')}`)")
    raise BaseRefError(f"--quest-base {ref}: no such commit or branch in this repository")


def read_at(root: Path, ref: str, rel: str) -> str | None:
    """The text of ``rel`` (from ``root``) at ``ref``; None when the file did not exist there."""
    done = _git(root, "show", f"{ref}:./{rel}")
    return done.stdout if done.returncode == 0 else None


def auto_base(environ: Mapping[str, str] | None = None,
              root: Path | None = None) -> tuple[str | None, str]:
    """The base ref a CI exposes (GitHub Actions pull requests), and what to say about it."""
    env = os.environ if environ is None else environ
    target = env.get("GITHUB_BASE_REF", "").strip()
    if not target:
        return None, ("history not checked: no --quest-base given (a removed or reopened "
                      "PASS is caught only against a base ref)")
    ref = f"origin/{target}"
    if root is not None and _has_commit(root, ref):
        return ref, f"history checked against {ref} (GITHUB_BASE_REF)"
    return None, (f"history not checked: GITHUB_BASE_REF is {target} but {ref} is not in this "
                  "clone (fetch it: actions/checkout with fetch-depth: 0)")


def _table(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    table = data.get("tool", {}).get("pytest-quest", {})
    return table if isinstance(table, dict) else {}


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise BaseRefError(f"the ledger {path} is outside the project {root}: git cannot "
                           "read it at the base ref") from None


def check_history(root: Path, ledger_path: Path, ref: str, note: str | None = None
                  ) -> HistoryCheck:
    """Judge the ledger on disk against the one at ``ref`` (raises :class:`BaseRefError`)."""
    verify_base(root, ref)
    rel = _rel(ledger_path, root)
    base_text = read_at(root, ref, rel)
    if base_text is None:
        return HistoryCheck(ref, f"no ledger at {ref}: every quest is new")
    try:
        base = json.loads(base_text)
    except ValueError as exc:
        raise BaseRefError(f"the ledger at {ref} is not JSON ({exc})") from None
    head = json.loads(ledger_path.read_text(encoding="utf-8"))
    attempts = ledger_path.parent / "attempts.jsonl"
    base_log = (read_at(root, ref, _rel(attempts, root)) or "").splitlines()
    try:
        head_log = attempts.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        head_log = []
    pyproject = root / "pyproject.toml"
    head_table = _table(pyproject.read_text(encoding="utf-8") if pyproject.is_file() else None)
    base_table = _table(read_at(root, ref, "pyproject.toml"))
    cache: dict[str, set[str] | None] = {}

    def exists(path: str, qualname: str) -> bool:
        if path not in cache:
            found = scan_file(root, path) if (root / path).is_file() else []
            cache[path] = None if isinstance(found, ScanError) else {f.qualname for f in found}
        names = cache[path]
        return names is None or qualname in names  # an unparsable file still holds them

    report = judge(base, head, exists, base_log, head_log, base_table, head_table)
    return HistoryCheck(ref, note or f"history checked against {ref}", report)
