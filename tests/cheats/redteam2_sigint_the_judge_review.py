# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-flaky|run-no-report|run-report-tampered|mutation-score|mutation-pseudo-tested
# fixgate: the marker file (runs can no longer write the sandbox copy: finding 01) is
#   replaced by the pid switch the report names: the measured run is the zygote's first
#   child (pid == ppid + 1); the attack is otherwise unchanged.
# Stopped (fixgate): each run's Landlock layer is signal-scoped (ABI 6), so os.kill(1, SIGINT)
#   raises PermissionError and the later runs fail: clean controls fail, run-flaky. The judge
#   also ignores SIGINT once its zygote is forked, and done without a mutation event is
#   run-report-tampered.
#
# RED TEAM 2, finding 08: SIGINT to the judge after the measured run -> REVIEW, tries 0.
# What: the measured run (always first; told apart by a marker file in the sandbox copy keyed on
#   the zygote's pid) covers every line and checks nothing. Every later run sends SIGINT to PID 1,
#   the judge. KeyboardInterrupt unwinds the judge's pytest_collection hook while it waits for the
#   stage; pytest ends "interrupted", harness.main returns judge.exitstatus (still 0 from the
#   measured run) and emits a well-formed `done`. The event stream is complete and valid, only the
#   mutation event is missing -> mutation-not-verified ("the harness reported none").
# Observed: verdict REVIEW, exit 3, isolation landlock+namespaces+cgroup; ledger REVIEW, tries 0.
#   docs/security.md promises "a run kills the zygote (or the judge) ... run-no-report, never a
#   REVIEW": a kill does, an interrupt does not.
# Why: (1) the run child can signal the judge and the zygote: its extra Landlock layer
#   (restrict_writes) has no LANDLOCK_SCOPE_SIGNAL, and the base domain it shares with them does
#   not stop signals inside itself (os.kill(1, 0) and os.kill(getppid(), 0) succeed in a run);
#   (2) the judge does not treat an interrupted stage as the run's doing; (3) os.kill is banned
#   only by name: exec of a computed string is not checked statically.
# Fix: scope signals (and abstract sockets) in the run child's own layer, or run each child in a
#   new PID namespace (it cannot name the judge); in the judge, block/ignore SIGINT/SIGTERM from
#   children (sigprocmask, or check si_pid in a signalfd) and treat any exception out of the
#   stage as "no report" (exitstatus None -> run-no-report, FAIL). A missing mutation event with a
#   `done` present should be run-report-tampered, not REVIEW.
import os
from pathlib import Path

from hotel.pricing import nightly_rate

# `os.kill(1, signal.SIGINT)`, spelled so no static rule reads it (exec of a computed string).
HIDDEN = ")TNIGIS.langis ,1(llik.so ;langis tropmi"[::-1]


def test_nightly_rate_runs():
    results = [nightly_rate(100.0, s, n) for s in ("high", "low", "mid") for n in (3, 7)]
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError as exc:
        results.append(str(exc))
    if os.getpid() != os.getppid() + 1:  # not the measured run (always first): interrupt the judge, PID 1
        exec(HIDDEN, {"os": os})
    assert len(results) == 7
