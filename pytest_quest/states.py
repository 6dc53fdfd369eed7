"""Quest states and the only transitions allowed between them.

Kept free of pytest, coverage and rich so the core stays small and pure.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["TERMINAL", "Outcome", "State", "is_terminal", "next_state"]


class State(StrEnum):
    """Where a quest stands. Only TODO is open to agents."""

    TODO = "TODO"
    PASS = "PASS"
    REVIEW = "REVIEW"
    DONE = "DONE"
    RETIRED = "RETIRED"


class Outcome(StrEnum):
    """What the gate said about one submission."""

    PASS = "PASS"
    FAIL = "FAIL"
    REVIEW = "REVIEW"


#: States an agent can never leave by submitting (humans and rescans can).
TERMINAL = frozenset({State.PASS, State.REVIEW, State.DONE, State.RETIRED})


def is_terminal(state: State) -> bool:
    """True when no submission may change the quest any more."""
    return State(state) in TERMINAL


def next_state(outcome: Outcome, tries: int, max_tries: int) -> State:
    """The state a TODO quest moves to after ``outcome``; ``tries`` counts this one."""
    if outcome is Outcome.PASS:
        return State.PASS
    if outcome is Outcome.REVIEW:
        return State.REVIEW
    return State.DONE if tries >= max_tries else State.TODO
