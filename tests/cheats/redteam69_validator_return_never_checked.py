# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::validate_dates
# expect: mutation-return-unchecked
# verdict: REVIEW
#
# RED TEAM 69 (side finding, pre-existing, not from c8d0c49): a validator's returned value is
#   never checked, yet the gate scores the test 1.0 and PASSes it, also with the return broken.
#   1. validate_dates raises BookingError for three invalid inputs and returns `nights`. The
#      test checks only which inputs raise, and that a valid input returns an `int`.
#   2. Every classic mutant but one sits on the three guards (boundaries, negations, constants
#      +/- 1, and/or): the raise checks kill them all. The one on the return is
#      `return nights` -> `return None` (mutants.py has no operator for a returned plain name
#      but None), which the isinstance check kills. Score 1.0 (threshold 0.6).
#   3. The extreme mutants replace the whole body (`return None`, `return 0`): the guards go
#      with it, so the first `pytest.raises` fails and both die. No mutant ever keeps the
#      guards and changes only the value returned, so mutation-pseudo-tested cannot fire for
#      a test that never looks at that value.
# Observed on c8d0c49 (Python 3.11.7): PASS 6 of 6 on proj (score 1.0); PASS 3 of 3 on a copy
#   (scratch/bad_booking, rescanned) whose last line is `return nights * 2` (same file)
# Fix suggested: add a "returns only" extreme mutant: every `return <expr>` of the body replaced by
#   `return None` / `return <zero>` of the recorded type with every other statement kept (the
#   guards stay; a survivor is mutation-pseudo-tested: "the value returned is never checked");
#   and give a returned name numeric classic mutants when the recorded type is a number
#   (`return x` -> `return x + 1`, `return -x`), as constants get +/- 1.
from datetime import date, timedelta

import pytest

from hotel.booking import BookingError, validate_dates

TODAY = date(2026, 1, 10)


def test_dates_are_validated():
    day = timedelta(days=1)
    for check_in, check_out in ((TODAY - day, TODAY + day), (TODAY, TODAY),
                                (TODAY, TODAY - day), (TODAY, TODAY + 31 * day)):
        with pytest.raises(BookingError):
            validate_dates(check_in, check_out, TODAY)
    for check_in, check_out in ((TODAY, TODAY + day), (TODAY, TODAY + 30 * day),
                                (TODAY + day, TODAY + 3 * day)):
        assert isinstance(validate_dates(check_in, check_out, TODAY), int)
