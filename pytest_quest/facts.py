"""Facts and verdicts: what the gate saw, where, what it expected.

A fact is the unit of feedback. Vague feedback is a bug, so every fact carries
``where``, ``expected`` and ``actual``; the verdict aggregates facts by level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from pytest_quest.states import Outcome

__all__ = ["FAIL", "REVIEW", "Fact", "Verdict", "aggregate", "printable"]

FAIL = "fail"
REVIEW = "review"
#: Lone surrogates: a ``str`` may hold them (JSON's ``"\\ud800"`` decodes to one), UTF-8 cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with every lone surrogate written as its ``\\udXXX`` escape.

    Text from a run (an assertion message, a node id, the output tail) may
    hold a lone surrogate; written as UTF-8 (the ledger, the attempts log, a
    terminal) it raises ``UnicodeEncodeError`` after the verdict, which lost
    the try (red team 2, finding 06). Everything else is kept as it was.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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

    def printable(self) -> Fact:
        """This fact with lone surrogates escaped (see :func:`printable`)."""
        return Fact(*(printable(v) for v in (self.rule, self.level, self.where, self.expected,
                                               self.actual)))

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

    def printable(self) -> Verdict:
        """This verdict with lone surrogates escaped in every text (see :func:`printable`)."""
        return replace(self, facts=tuple(f.printable() for f in self.facts),
                       root_cause=None if self.root_cause is None else printable(self.root_cause),
                       hint=None if self.hint is None else printable(self.hint))

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
