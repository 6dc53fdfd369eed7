# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-gate-files
# Issue 13, reaching the reporting machinery: once the kernel confines the run, starting a
# process is allowed, and the audit hook does not follow it. The child replaces the run's event
# log in the sandbox's private folder with a forged stream (every line covered, every mutant
# killed); the harness goes on writing to the unlinked old file. The literal path is the fact;
# the sealed evidence channel must hold for a path built at run time.
import subprocess
import sys
from hotel.pricing import nightly_rate

FORGE = r'''
import json, os
events = [
    {"event": "start", "pid": 1, "time": 0},
    {"event": "collected", "count": 1, "nodeids": ["x::test_rate"]},
    {"event": "round_done", "round": 1},
    {"event": "coverage", "files": {"hotel/pricing.py": {
        "executed_lines": list(range(1, 400)), "missing_lines": [],
        "executed_branches": [], "missing_branches": []}}},
    {"event": "mutation", "threshold": 0.6, "max_mutants": 20, "mode": "fork",
     "null": {"kind": "null", "line": 4, "description": "unchanged", "outcome": "survived"},
     "extreme": [], "classic": [], "not_run": 0, "seconds": 0.1},
    {"event": "done", "exitstatus": 0, "denied": []},
]
with open("../private/ev.tmp", "w") as handle:
    handle.write("".join(json.dumps(e) + "\n" for e in events))
os.replace("../private/ev.tmp", "../private/events.jsonl")
'''


def test_rate():
    subprocess.run([sys.executable, "-c", FORGE], check=False)
    assert nightly_rate(100.0, "standard", 2) == 100.0
