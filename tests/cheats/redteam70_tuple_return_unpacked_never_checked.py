# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::try_book
# expect: mutation-return-unchecked|mutation-score
# verdict: REVIEW|FAIL
#
# RED TEAM 70 (side finding; the question "a tuple containing the real value"): try_book
#   returns `(ok, message)`; the test unpacks it and never looks at either, checking only the
#   list it appends to. Red team 69's "every value returned replaced by a zero" mutant is
#   `return ()`, which dies on the unpacking, so the value returned is never checked and the
#   score (3 of 5 classic, threshold 0.6) passes.
#   1. report.types == ["tuple"]: mutants._zero_returns makes "every value returned replaced
#      by `()`" and mutants._extreme_bodies `return None` / `return ()`: `ok, msg = ...`
#      raises on each (extreme_killed 3/3). No mutant keeps the arity and zeroes the
#      elements, so nothing asks whether `ok` or `msg` is right.
#   2. The classic mutants `(False, ...) -> (True, ...)` and `(True, ...) -> (False, ...)`
#      survive; the three on the loop/condition die by the list checks: 3/5 = 0.6 passes.
#   3. On a copy whose except branch returns `(True, str(exc))` (refused bookings say "ok"),
#      the same file PASSes (score 0.75); an honest test (`assert not ok`) FAILs there.
# Observed on d0525fa (Python 3.11.7): PASS 3 of 3 on proj; PASS 3 of 3 on a copy with
#   `return True, str(exc)` (same file; copy rescanned: scratch/bad_book); also PASS 1 of 1 at
#   the parent ec3b205
# Fix suggested: in mutants._zero_returns, for a `return` whose value is a tuple display (or
#   a recorded tuple type), also make "every element replaced by its zero, the arity kept"
#   (`return (False, '')`: zeros of the elements' recorded/constant types, else None), and
#   one mutant per element position; a survivor is mutation-pseudo-tested like the others.
from datetime import date

import pytest

from hotel.booking import Booking, try_book

TODAY = date(2030, 1, 1)


def b(room, d1, d2):
    return Booking("a@x.io", room, date(2030, 1, d1), date(2030, 1, d2))


def test_books_free_room():
    existing = []
    ok, msg = try_book(existing, b("101", 2, 4), TODAY)
    assert existing == [b("101", 2, 4)]


def test_refuses_taken_room():
    existing = [b("101", 2, 4)]
    ok, msg = try_book(existing, b("101", 3, 5), TODAY)
    assert existing == [b("101", 2, 4)]
    ok, msg = try_book(existing, b("102", 3, 5), TODAY)
    assert len(existing) == 2


def test_refuses_bad_dates():
    existing = []
    ok, msg = try_book(existing, b("101", 4, 2), TODAY)
    assert existing == []
    ok, msg = try_book(existing, Booking("a@x.io", "101", date(2029, 1, 1), date(2029, 1, 3)), TODAY)
    assert existing == []
