# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: redteam2
#
# RED TEAM 2, finding 13: 1500 nested folders in the sandbox copy crash submit, leak the
#   sandbox, and - one day later - crash every scan and submit of that user on the machine.
#   (Deliberately NOT in tests/cheats: running it leaves a tree in /tmp that poisons the
#   machine after 24 h. Reproduce with TMPDIR pointing at a private folder: 13_repro.sh.)
# What: the test (here a failing one: 125.0 != 1.0) makes d/d/d/... 1500 levels deep in its cwd
#   (the sandbox copy, writable to every run).
# Observed: the parent crashes twice: rules/static.check_after_run -> box.path.rglob("*") ->
#   RecursionError; then the ExitStack's box.cleanup -> shutil.rmtree (_rmtree_safe_fd is
#   recursive on 3.11/3.12) -> RecursionError. Traceback, exit 1, no verdict, tries 0, nothing in
#   attempts.jsonl (a free try, and the FAIL it would have been is never counted). The sandbox
#   (/tmp/pytest-quest-*) stays on disk. With its mtime set two days back (touch -d), the next
#   `pytest-quest scan` and `pytest-quest submit` both die in Sandbox.create -> remove_stale ->
#   _rmtree -> RecursionError, before doing anything: the whole tool is down for that uid on that
#   machine (shared /tmp: every agent, CI job) until someone deletes the folder by hand.
# Why: recursion over a tree the run controls, in the unconfined parent; no depth bound on the
#   sandbox; remove_stale lets one bad folder abort everything.
# Fix: walk run-controlled trees iteratively (os.walk/os.fwalk with topdown and a depth cap, or
#   `rm -rf` via subprocess), treat "too deep" as changed (run-sources-modified) rather than
#   crash; catch exceptions per folder in remove_stale and in cleanup; count the try before
#   cleanup (record first); consider a tmpfs with a nr_inodes cap for the sandbox copy.
import os

from hotel.pricing import nightly_rate


def test_rate():
    here = os.getcwd()
    try:
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)
    assert nightly_rate(100.0, "high", 3) == 1.0
