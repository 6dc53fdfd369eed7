# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: mutation-pseudo-tested
# claim: 60 non-refundable bookings are rejected upstream
#
# RED TEAM 3, finding 04: an `--unreachable` claim on one line switched the whole mutation
# stage off, so a pseudo-test reached a human who was asked about one line only.
# What: every line but 60 (`return total` of a non-refundable booking) runs, the assertions
#   only say "not None", and the agent claims line 60 unreachable with a plausible reason.
#   The judge never knew about the claim: `mutate._skip_reason` saw "not fully covered" and
#   skipped the null, extreme and classic mutants on the 8 covered lines.
# Observed: verdict REVIEW (coverage-unreachable-claim, mutation-not-verified "skipped: the
#   target is not fully covered"), tries 0; `review --approve` locked PASS with no mutation
#   evidence.
# Fix: the claimed lines go to the judge (`HarnessSpec.claimed`); a claimed missing line (and
#   the branches leaving it) no longer stops the stage, mutants run on the covered lines, and
#   the pseudo-test FAILs (a try spent). A claim still always means REVIEW for a strong test.
from hotel.booking import cancellation_fee


def test_fee_runs():
    for days in (0, 1, 3, 14):
        assert cancellation_fee(100.0, days) is not None
