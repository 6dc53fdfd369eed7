# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky
# pending: pagecache
#
# RED TEAM 16, finding 01: a "novelty" relay through the page cache that needs NO tell of the
#   measured run and no knowledge of where it stands. The blind first schedule puts the first
#   judged clean run M in places 1-4, so by place 4 at least one run with the shipped answers has
#   run. Each run counts how many runs came before it (a unary counter of page-cache marks
#   seq0..seq4 in cold stdlib *.opt-1/-2.pyc slots, as red team 15: mmap + MADV_RANDOM, a
#   ru_majflt read around each touch; a mark is 3 slots, set only when all are cached, against
#   stray cached slots) and marks sha256(its answers). A run in place >= 5 whose answers no
#   earlier run gave fails: every clean run there finds the shipped answers marked (M did it),
#   every mutant with answers of its own dies. Only the mutants in places 0-3 and their
#   answer-twins survive (N, the twins T, the measuring run: shipped answers, all pass; the
#   extreme mutants come late with new answers: they die).
# Observed on df66073 (wip-blind): 3 of 3 submits PASS, scores 0.667, 0.8, 0.632 (12/18,
#   12/15, 12/19 classic; 2/2 extreme), 3.0-4.2 s; with nightly_rate broken (base * 1.5):
#   1 of 1 PASS, score 0.667.
# Fix suggested: the place of M is bounded (1-4) and that bound is all a relay needs; any
#   schedule where a clean run is guaranteed among the first k runs lets "new answers after
#   place k" be a kill rule. Close the channel itself: a read allowlist with no cold pages
#   (everything a run may read is read once by the judge before the first run), or a private
#   copy of the readable tree per run (a tmpfs/overlay per run has its own page cache pages).
import hashlib
import mmap
import os
import resource

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
LATE = int(os.environ.get("RT16_LATE", "5"))  # M is in places 1-4: a pristine run was seen by place 4
SLOT = 32 * 1024
WIDTH = 3  # slots per mark: a mark reads as set only when all are cached (stray cached slots)


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _slots():
    root = os.path.dirname(os.__file__)
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if "-" not in d)
        for n in sorted(names):
            if n.endswith((".opt-1.pyc", ".opt-2.pyc")):
                p = os.path.join(folder, n)
                files.append((p, max(1, os.stat(p).st_size // SLOT)))
    return files


def _touch(files, slot):
    slot %= sum(n for _, n in files)
    for path, n in files:
        if slot < n:
            break
        slot -= n
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        try:
            m.madvise(mmap.MADV_RANDOM)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
            m[slot * SLOT]
            return resource.getrusage(resource.RUSAGE_SELF).ru_majflt == before
        finally:
            m.close()


def _mark(files, name):
    """Set the mark; True if it was set before (every one of its slots cached)."""
    was = True
    for w in range(WIDTH):
        key = hashlib.sha256(f"{os.getcwd()}|{name}|{w}".encode()).digest()
        was = _touch(files, int.from_bytes(key[:8], "big")) and was
    return was


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES)
    v = hashlib.sha256(seen.encode()).hexdigest()[:16]
    files = _slots()
    n = 0
    while n < LATE and _mark(files, f"seq{n}"):
        n += 1
    known = _mark(files, f"v{v}")
    if n >= LATE:
        assert known  # late and answers no earlier run gave: a mutant
