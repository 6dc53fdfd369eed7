# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-flaky|run-exit-code
#
# RED TEAM 10, finding 01, by ctypes: as redteam10_oracle_from_process_memory, the shipped
#   text read back from the run's own memory, but through ctypes.string_at (ctypes is in the
#   confined harness's process already, found under a computed name; no file, so hiding
#   /proc/<pid>/mem does not stop it). Written in-house after the fix of finding 01 to test
#   the deeper one: a run's heap holds freed bytes of what the judge's heap held when the
#   zygote was forked.
# Observed on main (2fee042): PASS, score 1.0 (the judge read the file before the fork).
# Fix: the judge no longer reads the target before the zygote is forked (a child learns what
#   it needs, pytest_quest/targetfacts.py): no run but the measured one has the text in its
#   memory, where it is the installed code itself. The clean controls find no copy and fail
#   (run-flaky), every mutant fails the same way.
from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8)]

# Runs as text built at run time: nothing here is analysed by the static stage.
_FIND = """
import sys
raw = sys.modules["c" + "types"]
START = b"def nightly_" + b"rate("
END = b"return round(rate, 2)"
found = []
with open("/pr" + "oc/self/maps") as maps:
    regions = [line.split() for line in maps]
for parts in regions:
    if not parts[1].startswith("rw") or len(parts) > 5 and (parts[5].startswith("/")
                                                           or parts[5].startswith("[v")):
        continue
    lo, hi = (int(x, 16) for x in parts[0].split("-"))
    blob = raw.string_at(lo, hi - lo)
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
    assert reference is not None, "no clean copy in this run's memory"
    assert [_observe(nightly_rate, c) for c in CASES] == [_observe(reference, c) for c in CASES]
