"""Stage 4, coverage: the submitted test alone executes every line of the target.

With branch mode, every branch too. Facts name the missing lines as a reader
writes them (``6-8, 10``). An agent's claim that a line is unreachable never
passes: it sends the quest to REVIEW, for a human.
"""

from __future__ import annotations

from collections.abc import Iterator

from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.measure import format_branch, format_lines
from pytest_quest.submission import Submission
from pytest_quest.words import plural

__all__ = ["check"]

LINES = CATALOG.add(
    "coverage-lines", FAIL, "coverage",
    "Every executable line of the target function is executed by the submitted test alone.",
    "Add test cases whose inputs reach the lines named in the fact.",
)
BRANCHES = CATALOG.add(
    "coverage-branches", FAIL, "coverage",
    "With branch mode, every branch of the target function is taken by the submitted test.",
    "Add inputs that take each branch named in the fact (both sides of every condition).",
)
CLAIM = CATALOG.add(
    "coverage-unreachable-claim", REVIEW, "coverage",
    "The agent claims lines cannot be reached; a claim is never verified by the machine, so a "
    "human decides.",
    "Wait for a maintainer's `pytest-quest review`, or cover the line instead of claiming it.",
)
NO_DATA = CATALOG.add(
    "coverage-no-data", REVIEW, "coverage",
    "Coverage data for the target file exists after the run; without it nothing can be verified.",
    "A maintainer checks the environment (the target file was never imported).",
)


def check(sub: Submission) -> Iterator[Fact]:
    if sub.run is None:
        return
    result = sub.measured
    path = sub.quest.path
    if result is None:
        yield NO_DATA.fact(path, "coverage data for the target file", "none was recorded")
        return
    claimed = {c.line: c.reason for c in sub.claims}
    excused = result.excusing(claimed)
    missing = list(excused.missing)
    if missing:
        yield LINES.fact(
            f"{path}:{','.join(map(str, missing))}",
            "executed by the submitted test",
            f"not executed: {'line' if len(missing) == 1 else 'lines'} {format_lines(missing)} "
            f"({len(missing)} of {plural(len(result.statements), 'line')})",
        )
    lost = list(excused.missing_branches)
    if lost:
        arcs = ", ".join(format_branch(a, b) for a, b in lost)
        yield BRANCHES.fact(
            f"{path}:{arcs}", "every branch taken by the submitted test",
            f"not taken ({len(lost)} of {plural(result.branches, 'branch')})",
        )
    for line, reason in sorted(claimed.items()):
        yield CLAIM.fact(
            f"{path}:{line}", "a line the test executes", f"claimed unreachable: {reason}"
        )
