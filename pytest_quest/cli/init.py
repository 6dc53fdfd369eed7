"""``pytest-quest init``: make git merge ledgers with the ratchet's rules.

Two ledgers that each locked quests on their own branch conflict as text.
``init`` writes the ``.gitattributes`` lines that route ``.quest/ledger.json``
to ``pytest-quest merge-ledger`` and the append-only attempts log to git's
``union`` merge, and the (local, unversioned) git config that defines the
driver. It says what it changed; running it again changes nothing.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal
from pytest_quest.errors import UsageError

__all__ = ["ATTRIBUTES", "DRIVER", "command", "driver_command", "install"]

DRIVER = "pytest-quest-ledger"
ATTRIBUTES = (f".quest/ledger.json merge={DRIVER}", ".quest/attempts.jsonl merge=union")


def driver_command() -> str:
    """How git calls the driver: the console script when it is on PATH, else this Python."""
    program = "pytest-quest" if shutil.which("pytest-quest") else (
        f"{shlex.quote(sys.executable)} -m pytest_quest")
    return f"{program} merge-ledger %O %A %B %P"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          timeout=60, check=False)


def install(root: Path) -> dict[str, Any]:
    """Write ``.gitattributes`` and the git config; return what changed."""
    if _git(root, "rev-parse", "--git-dir").returncode != 0:
        raise UsageError(f"{root} is not inside a git repository: run `git init` first")
    attributes = root / ".gitattributes"
    text = attributes.read_text(encoding="utf-8") if attributes.is_file() else ""
    present = {line.strip() for line in text.splitlines()}
    added = [line for line in ATTRIBUTES if line not in present]
    if added:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        attributes.write_text(prefix + "".join(f"{line}\n" for line in added), encoding="utf-8")
    wanted = {f"merge.{DRIVER}.name": "pytest-quest ledger merge (a PASS is never lost)",
              f"merge.{DRIVER}.driver": driver_command()}
    configured = []
    for key, value in wanted.items():
        if _git(root, "config", "--local", "--get", key).stdout.strip() != value:
            done = _git(root, "config", "--local", key, value)
            if done.returncode != 0:
                raise UsageError(f"git config {key} failed: {done.stderr.strip()}")
            configured.append(f"{key} = {value}")
    return {"gitattributes": str(attributes), "added": added, "configured": configured}


@click.command("init")
@root_option
@json_option
def command(root: Path | None, as_json: bool) -> None:
    """Install the ledger's git merge driver (.gitattributes and git config)."""
    from pytest_quest.config import find_root

    term = Terminal()
    done = install(find_root(root))
    if as_json:
        term.json(done)
        return
    for line in done["added"]:
        term.data(f"wrote to {done['gitattributes']}: {line}")
    for line in done["configured"]:
        term.data(f"git config --local {line}")
    if not done["added"] and not done["configured"]:
        term.data("nothing to do: the ledger merge driver is already installed")
    term.info("Commit .gitattributes; each clone runs `pytest-quest init` once (git config is "
              "local).")
