# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: coverage-lines|run-report-tampered
# fixgate: the marker file (runs can no longer write the sandbox copy: finding 01) is
#   replaced by the pid switch the report names: the measured run is the zygote's first
#   child (pid == ppid + 1); the attack is otherwise unchanged.
#
# RED TEAM 2, finding 10: forged coverage of a line that never runs, with the reach check off.
# What: honest tests of nightly_rate that never pass nights <= 0, so line 7 (`raise
#   ValueError`) never runs. In the measured run (first; a marker file) the last test writes a
#   complete RunReport of its own to its answer pipe and closes it: every test passed, coverage of
#   hotel/pricing.py with line 7 executed, and `"swapped": true`. The judge takes the claim:
#   install="swap" disables mutate._reach_phase (the only check that covered blocks really run),
#   and mutants are made on the claimed lines.
# Observed: PASS locked, evidence covered_lines [6, 7, 8, 9, 10, 11, 13, 14, 15, 16], mutation
#   install "swap", score 0.9 (survivors: the two `nights <= 0` mutants), isolation
#   landlock+namespaces+cgroup. Line 7 was never executed by the test (coverage.py run on the
#   locked file says so).
# Why: the measured run's answer is the only source of coverage, and its `swapped` flag (a
#   claim by the process that ran test code) decides whether coverage gets verified at all.
# Fix: the judge knows whether it imported the target itself (sys.modules before the fork):
#   decide swap/import there, never from the answer; run the reach phase in both modes (or
#   FAIL in swap mode when covered blocks lack a killed mutant); better, take the measured
#   run's coverage out of the test's process (a tracer the test cannot reach, e.g. coverage
#   collected by the zygote via a pipe written by a separate thread started before test code,
#   or a second, measured control run whose coverage must agree).
import json
import os
import stat
from pathlib import Path

import pytest

from hotel.pricing import nightly_rate



@pytest.mark.parametrize(("base", "season", "nights", "want"), [
    (100.0, "high", 3, 125.0), (100.0, "low", 3, 80.0), (100.0, "mid", 3, 100.0),
    (100.0, "high", 7, 112.5), (100.0, "low", 6, 80.0), (100.0, "mid", 7, 90.0),
    (100.0, "high", 1, 125.0), (33.33, "high", 6, 41.66), (10.0, "low", 8, 7.2),
])
def test_rate(base, season, nights, want):
    # Never calls nightly_rate with nights <= 0: line 7 (`raise ValueError`) never runs.
    assert nightly_rate(base, season, nights) == want


def _answer_pipe():
    for fd in range(3, 256):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            os.write(fd, b"")
        except OSError:
            continue
        return fd
    return None


def test_zz_report(request):
    first = os.getpid() == os.getppid() + 1
    # a gate run child: its parent is the zygote, PID 2 of the run's PID namespace
    fd = _answer_pipe() if first and os.getppid() == 2 else None
    if fd is None:
        assert nightly_rate(100.0, "low", 7) == 72.0
        return
    ids = [item.nodeid for item in request.session.items]
    reports = [{"round": 1, "nodeid": n, "when": w, "outcome": "passed", "duration": 0.001}
               for n in ids for w in ("setup", "call", "teardown")]
    forged = {
        "collected": ids, "collect_errors": [], "reports": reports, "failed": None,
        "types": ["float"], "calls": 10, "denied": [], "denied_early": [], "reads": [],
        "replaced": [], "missing": False, "import_error": None, "exitstatus": 0,
        "swapped": True,  # "a conftest imported the module": the reach phase is skipped
        "coverage": {"hotel/pricing.py": {
            "executed_lines": [1, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16], "missing_lines": []}},
    }
    os.write(fd, json.dumps(forged).encode())
    os.close(fd)
    assert ids
