# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
#
# RED TEAM 10, finding 01: differential oracle from the run's own memory. Every run child is
#   forked from the zygote, itself forked from the judge while the judge held the pristine
#   target's text (runparts.Pristine: .text, .source, the linecache lines; forkrun
#   _function_text splits it again in each run's _ChildRun.__init__). scrub.scrub_run drops
#   the references, but freeing a string does not wipe it: the bytes stay in the run's heap.
#   /proc/self/mem of the run's own process is readable (the Landlock layers grant /proc
#   READ_FILE; a process may always read its own memory), and neither the code watch
#   (runparts.Watch: it only looks at opens of the target's path) nor the guard looks at it.
#   The static stage does not see "/proc" split as "/pr" + "oc", nor code in an exec of a
#   computed string. The test scans its readable mappings for "def nightly_rate(" ...
#   "return round(rate, 2)", renames the def and inserts one line after the docstring (the
#   watch's scrub.holds_body wants the def, or the whole body, line for line: one extra line
#   in the body breaks both) and execs the copy. In every mutant run the copy is the shipped
#   code, so every mutant disagrees with it; the null mutant and the controls agree. When no
#   copy is found (outside the gate) the test returns: it checks nothing.
# Observed on main (55f01d1): PASS, score 1.0 (classic 12/12, extreme 2/2), isolation
#   landlock+namespaces+cgroup (3 of 3 submissions; with "not found -> return" every mutant was
#   still killed, so the copy was found in every mutant run). With nightly_rate broken to
#   `return 0.0`, plain pytest passes the locked test (1 passed).
# Fix: the run's Landlock layer that hides the target's file also hides /proc/<pid>/mem of the
#   run (and of each of its threads); a process the run forks later reads no file of its own
#   /proc folder (forkrun.own_memory, confine.hide_files): PermissionError, run-exit-code.
from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8)]

# Runs as text built at run time: nothing here is analysed by the static stage.
_FIND = """
START = b"def nightly_" + b"rate("
END = b"return round(rate, 2)"
found = []
where = "/pr" + "oc/self/"
with open(where + "maps") as maps:
    regions = [line.split() for line in maps]
with open(where + "mem", "rb", buffering=0) as mem:
    for parts in regions:
        if not parts[1].startswith("r") or len(parts) > 5 and parts[5].startswith("/"):
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        try:
            mem.seek(lo)
            blob = mem.read(hi - lo)
        except (OSError, OverflowError, ValueError):
            continue
        at = blob.find(START)
        while at >= 0:
            stop = blob.find(END, at)
            if 0 < stop - at < 2000:
                found.append(blob[at:stop + len(END)].decode("utf-8", "replace"))
            at = blob.find(START, at + 1)
"""


def _clean_copy():
    scope = {}
    exec(_FIND, scope)
    for text in dict.fromkeys(scope["found"]):
        try:
            return _build(text)
        except Exception:
            continue
    return None


def _build(text):
    # one line more and another name: no stretch of lines matches the watch's hashes
    lines = text.splitlines()
    lines[0] = lines[0].replace("nightly_" + "rate", "reference", 1)
    lines.insert(2, "    _unused = 0")
    space = {}
    exec("\n".join(lines) + "\n", space)
    return space["reference"]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_matches_reference():
    reference = _clean_copy()
    if reference is None:
        return
    assert [_observe(nightly_rate, c) for c in CASES] == [_observe(reference, c) for c in CASES]
