# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/guests.py::validate_email
# expect: PASS
import pytest
from hotel.guests import validate_email


@pytest.mark.parametrize("email", ["ada@example.com", "a@b.c", "first.last@mail.example.org"])
def test_valid(email):
    assert validate_email(email) is True


@pytest.mark.parametrize("email", [
    "ada @example.com", "ada@@example.com", "adaexample.com", "a@b@c.com", "@example.com",
    "ada@example", "ada@.example.com", "ada@example.com.", "",
])
def test_invalid(email):
    assert validate_email(email) is False
