"""The gate: a catalog of rules and the staged, deterministic evaluation.

Stages run cheapest first and the gate stops after the first stage that
FAILs, so an expensive run is never paid for a file that does not parse.
Rules declare what they supersede: a collection error makes coverage facts
noise, so only the root cause is reported, with one line on how to flip it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pytest_quest.facts import FAIL, REVIEW, Fact, Verdict, aggregate
from pytest_quest.states import Outcome

__all__ = ["CATALOG", "STAGES", "Catalog", "Rule", "evaluate", "resolve"]

#: Stage names in the order the gate runs them.
STAGES = ("static", "scope", "run", "coverage", "mutation", "review")

C = TypeVar("C")


@dataclass(frozen=True)
class Rule:
    """One thing the gate blocks: the audit list of ``pytest-quest rules`` is made of these."""

    id: str
    level: str
    stage: str
    description: str
    #: What the agent should change to flip the verdict.
    hint: str
    supersedes: tuple[str, ...] = ()

    def fact(self, where: str, expected: str, actual: str) -> Fact:
        return Fact(rule=self.id, level=self.level, where=where, expected=expected, actual=actual)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "stage": self.stage,
            "description": self.description,
            "supersedes": list(self.supersedes),
        }


class Catalog:
    """Every rule, by id, in registration order."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def add(
        self,
        id: str,
        level: str,
        stage: str,
        description: str,
        hint: str,
        supersedes: Iterable[str] = (),
    ) -> Rule:
        if level not in (FAIL, REVIEW):
            raise ValueError(f"rule {id}: level must be {FAIL!r} or {REVIEW!r}")
        if stage not in STAGES:
            raise ValueError(f"rule {id}: unknown stage {stage!r}")
        if id in self._rules:
            raise ValueError(f"rule {id} is defined twice")
        rule = Rule(id, level, stage, description, hint, tuple(supersedes))
        self._rules[id] = rule
        return rule

    def get(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id)

    def __iter__(self):  # type: ignore[no-untyped-def]
        order = {s: i for i, s in enumerate(STAGES)}
        return iter(sorted(self._rules.values(), key=lambda r: order[r.stage]))

    def __len__(self) -> int:
        return len(self._rules)


#: The catalog the rule modules register into (see :mod:`pytest_quest.rules`).
CATALOG = Catalog()


@dataclass(frozen=True)
class Stage(Generic[C]):
    """A named check over a context object; yields facts."""

    name: str
    check: Callable[[C], Iterable[Fact]]


def resolve(facts: Sequence[Fact], catalog: Catalog = CATALOG) -> list[Fact]:
    """Drop facts whose rule is superseded by a rule that fired too."""
    fired = {f.rule for f in facts}
    hidden: set[str] = set()
    for rule_id in fired:
        rule = catalog.get(rule_id)
        if rule is not None:
            hidden.update(rule.supersedes)
    return [f for f in facts if f.rule not in hidden or f.rule in _roots(fired, catalog)]


def _roots(fired: set[str], catalog: Catalog) -> set[str]:
    """Rules that fired and that no other fired rule supersedes."""
    superseded: set[str] = set()
    for rule_id in fired:
        rule = catalog.get(rule_id)
        if rule is not None:
            superseded.update(s for s in rule.supersedes if s != rule_id)
    return fired - superseded


def evaluate(
    stages: Sequence[Stage[C]],
    context: C,
    catalog: Catalog = CATALOG,
    prepare: Callable[[str, C], None] | None = None,
) -> Verdict:
    """Run ``stages`` in order, stop after the first that FAILs, aggregate by level.

    ``prepare(stage_name, context)`` runs before each stage: it is where the
    caller pays for expensive inputs (the sandbox run) only when needed.
    """
    facts: list[Fact] = []
    for stage in stages:
        if prepare is not None:
            prepare(stage.name, context)
        found = list(stage.check(context))
        facts.extend(found)
        if aggregate(found) is Outcome.FAIL:
            break
    facts = resolve(facts, catalog)
    outcome = aggregate(facts)
    root = next((f for f in facts if f.level == FAIL), None) or next(
        (f for f in facts if f.level == REVIEW), None
    )
    rule = catalog.get(root.rule) if root else None
    return Verdict(
        outcome=outcome,
        facts=tuple(facts),
        root_cause=root.rule if root else None,
        hint=rule.hint if rule else None,
    )
