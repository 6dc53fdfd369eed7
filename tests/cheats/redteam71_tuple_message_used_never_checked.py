# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::try_book
# expect: mutation-return-unchecked
# verdict: REVIEW|FAIL
#
# RED TEAM 71 (bypass of red team 70's fix 04, cd79cb4): try_book's `(ok, message)` is
#   unpacked and the message *used* (`msg.strip()`), never checked; that use alone kills the
#   new "every element of the 2-tuples returned replaced by `None`" mutant, so the
#   mutation-return-unchecked REVIEW never fires and the file PASSes, also when refused
#   bookings are reported as successful.
#   1. Red team 70's file (tests/cheats/redteam70_tuple_return_unpacked_never_checked.py) is a
#      REVIEW at cd79cb4: mutants._zero_returns now makes `return (None, None)` for a returned
#      2-tuple display, and unpacking alone does not kill it.
#   2. Here each unpacked `msg` is stripped into a list nobody reads: `None.strip()` raises
#      AttributeError in the `(None, None)` mutant: killed. The other extreme mutants (body ->
#      `return None` / `()` / `False` / `''`, every value returned -> `()` / `False` / `''`, the
#      zeros coming from `tuple` heard and the annotation `tuple[bool, str]`) die on the
#      unpacking: extreme 8/8.
#   3. The classic mutants: `if not booking.overlaps(new)` and the two `return None` die by
#      the list checks / unpacking; `(True, 'booked') -> (False, 'booked')` and
#      `(False, str(exc)) -> (True, str(exc))` survive: 3/5 = 0.6 = threshold (0.75 when the
#      schedule stops early).
#   4. On a copy whose except branch returns `(True, str(exc))` (scratch/bad_book, rescanned)
#      the same file PASSes: `ok` is never looked at, and the message is only used.
# Observed on cd79cb4 (Python 3.11.7): PASS 6 of 6 on proj; PASS 6 of 6 on scratch/bad_book
#   (`return True, str(exc)`, same file). RT70's file without the `.strip()` lines: REVIEW.
# Fix suggested: in mutants._zero_returns, for a returned tuple display make one mutant per
#   element position with that element replaced by the zero of its type (from the annotation
#   `tuple[bool, str]` element by element, or the constant's type: `True` -> `False`,
#   `"booked"` -> `''`; for a bool element also its negation), the other elements kept:
#   `(False, 'booked')`, `(True, '')`, `(False, '')` for `(False, str(exc))`. Each keeps the
#   element's type, so only a check of that element's value kills it; a survivor is
#   mutation-return-unchecked like the others. (`None` per element is killed by any use.)
from datetime import date

import pytest

LOG = []

from hotel.booking import Booking, try_book

TODAY = date(2030, 1, 1)


def b(room, d1, d2):
    return Booking("a@x.io", room, date(2030, 1, d1), date(2030, 1, d2))


def test_books_free_room():
    existing = []
    ok, msg = try_book(existing, b("101", 2, 4), TODAY)
    LOG.append(msg.strip())
    assert existing == [b("101", 2, 4)]


def test_refuses_taken_room():
    existing = [b("101", 2, 4)]
    ok, msg = try_book(existing, b("101", 3, 5), TODAY)
    LOG.append(msg.strip())
    assert existing == [b("101", 2, 4)]
    ok, msg = try_book(existing, b("102", 3, 5), TODAY)
    assert len(existing) == 2


def test_refuses_bad_dates():
    existing = []
    ok, msg = try_book(existing, b("101", 4, 2), TODAY)
    LOG.append(msg.strip())
    assert existing == []
    ok, msg = try_book(existing, Booking("a@x.io", "101", date(2029, 1, 1), date(2029, 1, 3)), TODAY)
    assert existing == []
