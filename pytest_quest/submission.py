"""Everything the gate's rules may look at for one submission.

Rules read this object and yield facts; they never run anything themselves.
The expensive parts (the sandbox copy and the run) are filled in by
:mod:`pytest_quest.submit` between stages, so a stage that FAILs early saves
the cost of the later ones.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.quest import Quest
from pytest_quest.sandbox import RunResult, Sandbox

__all__ = ["Claim", "Submission"]


@dataclass(frozen=True)
class Claim:
    """An agent's claim that a line cannot be reached; only a human can accept it."""

    line: int
    reason: str


@dataclass
class Submission:
    """One test file offered for one quest."""

    settings: Settings
    quest: Quest
    #: Test path from the project root (posix).
    test_rel: str
    test_bytes: bytes
    #: Protected files and their hashes at the last scan.
    snapshot: dict[str, str]
    #: Test files locked by other PASS quests -> sha256.
    locked_tests: dict[str, str] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()
    tree: ast.Module | None = None
    syntax_error: SyntaxError | None = None
    #: Files the agent left in the quest test folder besides its test (the scope rule reads it).
    stray_files: tuple[str, ...] = ()
    #: Protected files in the working tree now -> sha256 (None: missing).
    working_tree: dict[str, str | None] = field(default_factory=dict)
    sandbox: Sandbox | None = None
    run: RunResult | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def test_text(self) -> str:
        return self.test_bytes.decode("utf-8", errors="replace")

    def parse(self) -> None:
        try:
            self.tree = ast.parse(self.test_bytes, filename=self.test_rel)
        except SyntaxError as exc:
            self.syntax_error = exc
        except ValueError as exc:  # null bytes
            self.syntax_error = SyntaxError(str(exc), (self.test_rel, 1, 0, "", 1, 0))
