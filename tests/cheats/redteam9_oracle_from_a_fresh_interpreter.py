# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
#
# RED TEAM 9, finding 02: differential oracle from a fresh interpreter. Under kernel
#   confinement a run may start processes (docs/security.md, red team 14: real plugins do), and
#   a child Python started from the sandbox copy imports the target from the file on disk, which
#   is pristine in every run: mutants are installed from memory in the run process only
#   (forkrun._ChildRun.execute, scrub.RunLoader). The child's reads raise no audit event in the
#   run, so the code watch (runparts.Watch) sees nothing; no compile, no open, no linecache in
#   the test's process; no static rule names subprocess or sys.executable. Every mutant
#   disagrees with the child's answers, the null mutant and the controls agree.
# Observed on main (4596d0f): PASS, score 1.0 (classic 12/12, extreme 2/2), isolation
#   landlock+namespaces+cgroup; with nightly_rate broken to `return 0.0` afterwards, the locked
#   test still passes (`pytest tests/quest`: 1 passed).
# Fix: every run adds a Landlock layer that hides the target's file (and any copy of its module
#   on sys.path) from the run and its children (confine.hide_files): the child's import fails
#   with PermissionError in every run, the measured one included (run-exit-code).
import json
import subprocess
import sys

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8)]

_PROGRAM = """
import json, sys
from hotel.pricing import nightly_rate
out = []
for case in json.loads(sys.argv[1]):
    try:
        out.append(repr(nightly_rate(*case)))
    except Exception as exc:
        out.append(type(exc).__name__)
print(json.dumps(out))
"""


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_matches_a_fresh_interpreter():
    done = subprocess.run([sys.executable, "-c", _PROGRAM, json.dumps(CASES)],
                          capture_output=True, text=True, check=True)
    expected = json.loads(done.stdout)
    assert [_observe(case) for case in CASES] == expected
