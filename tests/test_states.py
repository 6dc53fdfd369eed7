"""States and transitions: only TODO is open; what each outcome moves a quest to."""

from __future__ import annotations

import pytest

from pytest_quest.states import Outcome, State, is_terminal, next_state


@pytest.mark.parametrize("state", list(State))
def test_only_todo_is_open(state: State) -> None:
    assert is_terminal(state) is (state is not State.TODO)


@pytest.mark.parametrize(
    ("outcome", "tries", "expected"),
    [
        (Outcome.PASS, 0, State.PASS),
        (Outcome.REVIEW, 0, State.REVIEW),
        (Outcome.FAIL, 1, State.TODO),
        (Outcome.FAIL, 2, State.TODO),
        (Outcome.FAIL, 3, State.DONE),
        (Outcome.FAIL, 4, State.DONE),
    ],
)
def test_next_state(outcome: Outcome, tries: int, expected: State) -> None:
    assert next_state(outcome, tries, 3) is expected
