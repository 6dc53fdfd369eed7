"""The gate: a catalog of rules and the staged, deterministic evaluation.

Stages run cheapest first and the gate stops after the first stage that
FAILs, so an expensive run is never paid for a file that does not parse.
Each stage owns its preparation (what it pays for before its checks run) and
its checks; a preparation returns a new context, checks only read it.
Rules declare what they supersede: a collection error makes coverage facts
noise, so only the root cause is reported, with one line on how to flip it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pytest_quest.errors import QuestError
from pytest_quest.facts import FAIL, REVIEW, Fact, Verdict, aggregate
from pytest_quest.states import Outcome

__all__ = [
    "CATALOG",
    "RULE_ERROR",
    "STAGES",
    "Catalog",
    "Check",
    "Evaluation",
    "Rule",
    "Stage",
    "evaluate",
    "resolve",
    "stages",
]

#: The gate's stages in the order it runs them: the one list. A rule and a check name one
#: of these; :func:`stages` builds the runnable stages from it.
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
    #: Who added it: ``pytest-quest`` or the plugin's name.
    origin: str = "pytest-quest"

    def fact(self, where: str, expected: str, actual: str) -> Fact:
        return Fact(rule=self.id, level=self.level, where=where, expected=expected, actual=actual)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "stage": self.stage,
            "description": self.description,
            "supersedes": list(self.supersedes),
            "origin": self.origin,
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
        origin: str = "pytest-quest",
    ) -> Rule:
        rule = Rule(id, level, stage, description, hint, tuple(supersedes), origin)
        self._store(rule)
        return rule

    def include(self, rule: Rule) -> None:
        """Register a rule made elsewhere; the very same rule twice is a no-op."""
        if self._rules.get(rule.id) is not rule:
            self._store(rule)

    def _store(self, rule: Rule) -> None:
        if rule.level not in (FAIL, REVIEW):
            raise ValueError(f"rule {rule.id}: level must be {FAIL!r} or {REVIEW!r}")
        if rule.stage not in STAGES:
            raise ValueError(f"rule {rule.id}: unknown stage {rule.stage!r}")
        if rule.id in self._rules:
            raise ValueError(f"rule {rule.id} is defined twice")
        self._rules[rule.id] = rule

    def get(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id)

    def __iter__(self) -> Iterator[Rule]:
        order = {s: i for i, s in enumerate(STAGES)}
        return iter(sorted(self._rules.values(), key=lambda r: order[r.stage]))

    def __len__(self) -> int:
        return len(self._rules)


#: The catalog the rule modules register into (see :mod:`pytest_quest.rules`).
CATALOG = Catalog()
RULE_ERROR = CATALOG.add(
    "gate-rule-error", REVIEW, "static",
    "Every rule of the gate judged the file.",
    "A rule of pytest-quest failed on this file instead of judging it (a bug of ours, named "
    "in the fact); a maintainer judges the verdict. Please report it with the file.",
)


@dataclass(frozen=True)
class Check(Generic[C]):
    """A function of the context that yields facts, and the stage it runs in.

    Built-in rules and plugins declare their checks the same way (the
    ``pytest_quest_checks`` hook), so a plugin's check runs in the stage it names.
    """

    stage: str
    run: Callable[[C], Iterable[Fact]]

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"check {self.run!r}: unknown stage {self.stage!r}")


@dataclass(frozen=True)
class Stage(Generic[C]):
    """One step of the gate: its name, its preparation and its checks.

    ``prepare`` pays for the stage's inputs (the sandbox copy, the run) and
    returns the context the checks read; it runs only when the gate reaches
    the stage. Checks never change the context.
    """

    name: str
    checks: tuple[Callable[[C], Iterable[Fact]], ...] = ()
    prepare: Callable[[C], C] | None = None


@dataclass(frozen=True)
class Evaluation(Generic[C]):
    """The verdict and the context as the last stage that ran saw it (its run, its sandbox)."""

    verdict: Verdict
    context: C


def stages(checks: Iterable[Check[C]], prepare: Mapping[str, Callable[[C], C]] | None = None
           ) -> tuple[Stage[C], ...]:
    """The runnable stages, in :data:`STAGES` order, each with its checks in declaration order."""
    prepare = prepare or {}
    unknown = set(prepare) - set(STAGES)
    if unknown:
        raise ValueError(f"preparation for unknown stage(s): {', '.join(sorted(unknown))}")
    by_stage: dict[str, list[Callable[[C], Iterable[Fact]]]] = {name: [] for name in STAGES}
    for check in checks:
        by_stage[check.stage].append(check.run)
    return tuple(Stage(name, tuple(by_stage[name]), prepare.get(name)) for name in STAGES)


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


def _judged(stage: str, check: Callable[[C], Iterable[Fact]], context: C) -> list[Fact]:
    """``check``'s facts; a check that raises instead (a bug of ours on this file: red team 52
    had ``ast.unparse`` refuse an f-string, and ``submit`` answered with a traceback) is a
    REVIEW fact that names it. Our own errors (an environment fault: could not verify) go on."""
    try:
        return list(check(context))
    except QuestError:
        raise
    except Exception as exc:  # any other: the file goes to a person, never a traceback
        name = getattr(check, "__qualname__", None) or type(check).__name__
        return [RULE_ERROR.fact(f"{stage}: {name}", "every rule of the gate judges the file",
                                f"{type(exc).__name__}: {exc}"[:500])]


def evaluate(stages: Sequence[Stage[C]], context: C, catalog: Catalog = CATALOG
             ) -> Evaluation[C]:
    """Run ``stages`` in order, stop after the first that FAILs, aggregate by level.

    Each stage's preparation runs just before its checks, so the caller pays
    for expensive inputs (the sandbox run) only when the gate gets there.
    """
    facts: list[Fact] = []
    for stage in stages:
        if stage.prepare is not None:
            context = stage.prepare(context)
        found = [fact for check in stage.checks for fact in _judged(stage.name, check, context)]
        facts.extend(found)
        if aggregate(found) is Outcome.FAIL:
            break
    facts = resolve(facts, catalog)
    outcome = aggregate(facts)
    root = next((f for f in facts if f.level == FAIL), None) or next(
        (f for f in facts if f.level == REVIEW), None
    )
    rule = catalog.get(root.rule) if root else None
    verdict = Verdict(
        outcome=outcome,
        facts=tuple(facts),
        root_cause=root.rule if root else None,
        hint=rule.hint if rule else None,
    )
    return Evaluation(verdict, context)
