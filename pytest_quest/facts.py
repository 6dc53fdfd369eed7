"""Facts and verdicts: what the gate saw, where, what it expected.

A fact is the unit of feedback. Vague feedback is a bug, so every fact carries
``where``, ``expected`` and ``actual``; the verdict aggregates facts by level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pytest_quest.states import Outcome

__all__ = ["FAIL", "REVIEW", "Fact", "Verdict", "aggregate"]

FAIL = "fail"
REVIEW = "review"


@dataclass(frozen=True)
class Fact:
    """One observation of one rule."""

    rule: str
    level: str
    where: str
    expected: str
    actual: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Fact:
        keys = ("rule", "level", "where", "expected", "actual")
        return cls(**{k: str(data.get(k, "")) for k in keys})

    def line(self) -> str:
        """A one-line human rendering."""
        return f"[{self.rule}] {self.where}: expected {self.expected}; actual {self.actual}"


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one submission, with the root cause and how to flip it."""

    outcome: Outcome
    facts: tuple[Fact, ...] = ()
    root_cause: str | None = None
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.outcome.value,
            "facts": [f.to_dict() for f in self.facts],
            "root_cause": self.root_cause,
            "hint": self.hint,
        }


def aggregate(facts: list[Fact] | tuple[Fact, ...]) -> Outcome:
    """Any fail -> FAIL, else any review -> REVIEW, else PASS."""
    levels = {f.level for f in facts}
    if FAIL in levels:
        return Outcome.FAIL
    if REVIEW in levels:
        return Outcome.REVIEW
    return Outcome.PASS
