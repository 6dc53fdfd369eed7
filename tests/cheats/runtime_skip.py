# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: run-skipped
# The skip is looked up at run time, through operator.attrgetter (a plain getattr on pytest by a
# computed name is static-reflective-access): the run stage sees the skipped outcome.
import operator
import pytest
from hotel.booking import cancellation_fee

NAME = "".join(["sk", "ip"])


def test_fee():
    assert cancellation_fee(100.0, 20) == 0.0
    operator.attrgetter(NAME)(pytest)("later")
