# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky
# pending: pagecache
#
# RED TEAM 16, finding 02: finding 01 with a non-destructive read, so twins of late mutants die
#   too. Only the runs in places 0-4 mark their answers (one of them is M: the shipped answers
#   are always marked); a run in place >= 5 does not fault its mark in but PEEKS with
#   os.preadv(..., os.RWF_NOWAIT) (preadv2: EAGAIN when the page is not cached, no fault, no
#   read of the disk, so no mark), allowed in the sandbox. New answers after place 4: fail.
#   The place counter is finding 01's (page-cache marks seq0..seq4, 3 slots each).
# Observed on df66073 (wip-blind): 3 of 3 submits PASS, scores 0.706, 0.706, 0.857 (12/17,
#   12/17, 12/14 classic; 2/2 extreme), 4.1-4.5 s; with nightly_rate broken (base * 1.5):
#   2 of 2 PASS, scores 0.8, 0.667. Survivors are the 1-4 mutants before M and their
#   answer-twins ('season == x' / 'not season == x'), nothing else.
# Fix suggested: as finding 01; also refuse preadv2 flags (RWF_NOWAIT) in seccomp, though
#   finding 01 works without any peek. A per-run private page cache for everything readable is
#   the only real close; a weaker one is an unbounded secret place for M (then "a clean run
#   was among the first k" holds for no k), at the cost of the first time limit.
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


def _peek(files, name):
    """Is the mark set? Read without waiting for the disk (preadv2 RWF_NOWAIT): no fault, no mark."""
    for w in range(WIDTH):
        key = hashlib.sha256(f"{os.getcwd()}|{name}|{w}".encode()).digest()
        slot = int.from_bytes(key[:8], "big") % sum(n for _, n in files)
        for path, n in files:
            if slot < n:
                break
            slot -= n
        fd = os.open(path, os.O_RDONLY)
        try:
            os.preadv(fd, [bytearray(1)], slot * SLOT, os.RWF_NOWAIT)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
    return True


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES)
    v = hashlib.sha256(seen.encode()).hexdigest()[:16]
    files = _slots()
    n = 0
    while n < LATE and _mark(files, f"seq{n}"):
        n += 1
    if n < LATE:
        _mark(files, f"v{v}")  # only the first runs vouch for answers (M is among them)
    else:
        assert _peek(files, f"v{v}")  # late with answers none of the first runs gave: a mutant
