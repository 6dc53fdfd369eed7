# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|mutation-pseudo-tested
# Since each run is PID 2 of namespaces of its own (red team 13's fix), every run looks
#   the same to the pid test below, which found the measured run where pids counted up
#   across runs; there it fails on mutation-pseudo-tested (every run passes the pid test, so none reads the target).
# fixgate: the marker file (runs can no longer write the sandbox copy: finding 01) is
#   replaced by the pid switch the report names: the measured run is the zygote's first
#   child (pid == ppid + 1); the attack is otherwise unchanged.
#
# RED TEAM 2, finding 09: the Watch's findings are read only from the measured run.
# What: the measured run is always run 1 (a marker file in the sandbox copy, keyed on the
#   zygote's pid, tells it apart); it only covers. Every later run reads nightly_rate.__code__,
#   opens hotel/pricing.py (pristine on disk: mutants live in memory), compiles the whole text and
#   uses that copy as a differential oracle. The code-reading is hidden from the static rules in an
#   exec of a computed string.
# Observed: PASS locked, score 1.0, isolation landlock+namespaces+cgroup. The Watch did record
#   "read the target's __code__", "opened the target's source file", "compiled code ..." in every
#   later run, but those runs' `reads` (and `denied`, `replaced`) are never looked at:
#   mutate._entry/_control only use failed/collect_errors; _skip_reason checks the measured run.
# Why: docs/security.md says reading the code "is seen by the audit hook and is the FAIL
#   run-reads-target", true for run 1 only.
# Fix: treat reads/denied/replaced/missing of *every* run (controls, mutants, reach) like the
#   measured run's: any non-empty one is run-reads-target / run-sandbox-violation /
#   run-target-replaced; and make the measured run indistinguishable (finding 01: fresh sandbox
#   view per run).
import os
from pathlib import Path

import hotel.pricing as pricing
from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (33.33, "high", 6)]
# `nightly_rate.__code__` read and the source file opened: the Watch sees both (run-reads-target
# in the measured run); in every later run it sees them too, and nobody looks.
HIDDEN = "\n".join([
    "code = target.__code__",
    "text = open(module.__file__).read()",
    "space = {}",
    "exec(compile(text, '<copy>', 'exec'), space)",
    "reference = space[target.__name__]",
])


def observe(func, args):
    try:
        return repr(func(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate():
    first = os.getpid() == os.getppid() + 1
    if first:  # the measured run: cover, read nothing
        for case in CASES:
            observe(nightly_rate, case)
        return
    space = {"target": nightly_rate, "module": pricing}
    exec(HIDDEN, space)
    for case in CASES:
        assert observe(nightly_rate, case) == observe(space["reference"], case)
