"""Stage 5, mutation: filled in by the mutation stage work (see mutate.py)."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_quest.facts import Fact
from pytest_quest.submission import Submission

__all__ = ["check"]


def check(sub: Submission) -> Iterator[Fact]:
    return iter(())
