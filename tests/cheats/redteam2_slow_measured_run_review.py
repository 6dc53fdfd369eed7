# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-too-slow|mutation-pseudo-tested|mutation-score|run-timeout
# Stopped (fixgate): runs that do not fit in the budget are the test's doing: mutation-too-slow,
#   a FAIL with the numbers (pytest_quest/rules/mutation.py), tries spent; no REVIEW.
#
# RED TEAM 2, finding 04: a slow measured run starves the mutation stage -> REVIEW, no try spent.
# What: the test covers every line, asserts nothing about the results (`len(results) == 7`)
#   and sleeps 9.5 s. mutate.run_stage gives every later run timeout = max(2, 10 x the
#   measured run's seconds) ~ 100 s; ForkRuns.run starts no request whose timeout would pass the
#   budget (1.5 x timeout = 90 s), so *no* run of the stage starts: not the null mutant, not a
#   control, not one mutant. _event: "the null mutant did not run within the time budget" ->
#   mutation-not-verified (REVIEW).
# Observed: verdict REVIEW (exit 3), root cause mutation-not-verified, isolation
#   landlock+namespaces+cgroup; ledger state REVIEW, tries 0. The quest leaves the agent's queue
#   and lands on a human's desk with "the machinery could not run" - the test's own doing. 20 s.
# Why: the stage treats "not run within the budget" as the machinery's fault (REVIEW, "our fault
#   must not burn a try"), but the time each run gets is set by the untrusted measured run.
# Fix: cap the per-run timeout at a fixed bound (e.g. min(10 x measured, budget / 4)) and treat a
#   slow test as the test's fault: if the null mutant or the extreme mutants cannot run because
#   the measured run was slow, FAIL (run-timeout / "test too slow to verify") instead of
#   REVIEW; keep REVIEW only for failures that happen before test code ran.
import time

from hotel.pricing import nightly_rate


def test_nightly_rate_runs():
    results = [nightly_rate(100.0, s, n) for s in ("high", "low", "mid") for n in (3, 7)]
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError as exc:
        results.append(str(exc))
    time.sleep(9.5)  # measured run >= 9 s: every later run gets a 10x timeout > the budget
    assert len(results) == 7
