"""Stage 1, static: what can be judged from the test file's text alone (tier 0).

Cheap and precise: a false FAIL costs the agent a try, so every rule names
exactly what it saw and on which line.
"""

from __future__ import annotations

from collections.abc import Iterator

from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.submission import Submission

__all__ = ["PARSES", "check"]

PARSES = CATALOG.add(
    "test-file-parses", FAIL, "static",
    "The submitted test file is valid Python.",
    "Fix the syntax error on the line named in the fact.",
    supersedes=("coverage-lines", "coverage-branches"),
)


def check(sub: Submission) -> Iterator[Fact]:
    if sub.tree is None and sub.syntax_error is None:
        sub.parse()
    if sub.syntax_error is not None:
        err = sub.syntax_error
        yield PARSES.fact(
            f"{sub.test_rel}:{err.lineno or 1}",
            "a test file that parses",
            f"SyntaxError: {err.msg}",
        )
