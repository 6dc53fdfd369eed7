"""The coverage-domain rule catalog, one module per gate stage.

Importing this package registers every rule in :data:`pytest_quest.gate.CATALOG`
and exposes the stages in the order the gate runs them.
"""

from __future__ import annotations

from collections.abc import Iterator

from pytest_quest.facts import Fact
from pytest_quest.gate import Stage
from pytest_quest.hookspecs import check_facts, review_facts
from pytest_quest.rules import coverage, mutation, run, scope, static
from pytest_quest.submission import Submission

__all__ = ["STAGES"]

#: The gate's stages for a submission, cheapest first.
STAGES: tuple[Stage[Submission], ...] = (
    Stage("static", static.check),
    Stage("scope", scope.check),
    Stage("run", run.check),
    Stage("sources", static.sources_check),  # after run; "run" would re-run _prepare
    Stage("coverage", coverage.check),
    Stage("mutation", mutation.check),
    Stage("plugins", lambda sub: _plugins(sub)),
)


def _plugins(sub: Submission) -> Iterator[Fact]:
    """Installed plugins' checks, then reviewers (which can only say REVIEW)."""
    yield from check_facts(sub)
    yield from review_facts(sub)
