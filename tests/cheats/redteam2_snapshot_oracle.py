# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-sandbox-violation|mutation-score
# Stopped (fixgate): a run writes only its own temp dir, removed before the next run starts
#   (pytest_quest/runstate.py; the run's Landlock layer and guard no longer allow the sandbox
#   copy): the snapshot cannot be written, the measured run fails (run-exit-code).
#
# RED TEAM 2, finding 01: snapshot oracle carried across runs in the sandbox copy.
# What: the test's "expected values" are what nightly_rate returned in the FIRST run of the
#   file in this sandbox (the measured run, which is always first and always clean), stored in
#   a file next to the test in the sandbox copy; every later run (clean controls, null, extreme,
#   classic and reach mutants) compares with them. No expected value is written anywhere.
# Observed: PASS locked, mutation score 1.0 (20/20 + reach), isolation
#   landlock+namespaces+cgroup. After the PASS, `return round(rate, 2)` -> `return 0.0` in the
#   real project: `pytest tests/quest` still passes (1 passed), `pytest --quest-check` says
#   "all 6 locked function(s) fully covered".
# Why: forkrun runs every child with the sandbox copy writable (docs/security.md admits "state
#   can be shared between runs there; the controls are what makes using it a losing bet"). The
#   controls stop *detectors*; a snapshot does not detect anything, it reproduces the clean
#   behaviour, so controls pass and mutants fail. The measured run is not shuffled: it is
#   always run 1, always pristine. Keying the file on os.getppid() (constant: every run is a
#   child of the zygote) makes every plain pytest invocation record a fresh snapshot.
# Fix: no state may flow from one run into another: give each run a fresh view of the sandbox
#   (overlayfs/tmpfs upper per run, or re-copy / restore the copy from the pristine tree before
#   every run of the stage), or at least delete every file the measured run created before the
#   stage; run the measured run under the same conditions as the stage, e.g. a clean control
#   *before* it. Then each run records its own snapshot, every mutant survives: mutation-score.
import json
import os
from pathlib import Path

from hotel.pricing import nightly_rate

# The "expected" values are whatever the target returned in the first run of this file in
# this sandbox copy (the measured run, always clean). Every later run (controls, mutants,
# reach mutants) compares against them. Nothing here says what nightly_rate should return.
# Keyed by the parent pid: every run of the gate is forked from one zygote (same ppid), while
# each plain `pytest` invocation (CI ratchet, a developer) gets a fresh snapshot and passes.
SNAP = Path(__file__).resolve().parent / f".snapshot_nightly_rate_{os.getppid()}.json"
CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7)]


def observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def expected_values():
    if not SNAP.exists():
        SNAP.write_text(json.dumps([observe(c) for c in CASES]))
    return json.loads(SNAP.read_text())


def test_nightly_rate_matches_reference():
    reference = expected_values()
    for case, want in zip(CASES, reference):
        assert observe(case) == want, case
