# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-machinery-detected
# pending: pagecache
#   (mutation-machinery-detected: with waves every run finds the cache as cold as the first
#   did, so the null mutant, which answers as the shipped function, fails where it stands
#   after the first wave: seen once on 3.13, a schedule the earlier runs never drew)
#
# RED TEAM 15, finding 04: finding 01's page-cache relay with NO tell of the measured run at
#   all: the page cache itself says which run came first. Each run first faults in 8 sentinel
#   slots of cold stdlib -O bytecode picked by sha256(cwd | "first" | k) (cwd: the sandbox copy,
#   fresh per submission); a major fault on any of them means no run of this submission came
#   before, i.e. this is the measured run (always first, alone). It then leaves its 64 answer
#   bits in the cache as in finding 01; every later run finds the sentinels cached and checks
#   its own bits, failing at the first that is not cached.
# Observed on 9f2fd03: 6 of 6 submits PASS, score 1.0 (12/12 classic, 2/2 extreme), 4.3-6.5 s;
#   with nightly_rate broken (base * 1.5): 1 of 1 PASS, score 1.0.
# Fix suggested: removing the tells of findings 01-03 does not close this. As long as the
#   first run is a clean one and the machine's page cache is shared, "first" is a tell of its
#   own. Either (a) leave no cold page a run can read: narrow the read allowlist to what the
#   interpreter and the project import, and read all of it once in the judge before the first
#   run (then a fault is never major and nothing the run can read changes state); or (b) make
#   the first run of a submission a mutant (or mutants before any clean run, the measured run at
#   a secret place later): a relay from the first run then carries a mutant's answers and every
#   clean run fails. (b) leaves a plurality-vote relay (later runs compare with the most
#   common earlier answer), weaker but worth a look by the next round.
import hashlib
import mmap
import os
import resource

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


SLOT = 32 * 1024  # bytes a slot; a fault reads one 16 KiB folio here (ext4, MADV_RANDOM)


def _slots():
    """Cold pages the run may read: stdlib bytecode for -O/-OO that no process imports."""
    root = os.path.dirname(os.__file__)
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if "-" not in d)  # not the installed packages
        for n in sorted(names):
            if n.endswith((".opt-1.pyc", ".opt-2.pyc")):
                p = os.path.join(folder, n)
                files.append((p, max(1, os.stat(p).st_size // SLOT)))
    return files


def _touch(files, slot):
    """Fault in one page of a cold file; True if it was already in the page cache."""
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


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    bits = int.from_bytes(hashlib.sha256(seen).digest()[:8], "big")
    files = _slots()
    first = False
    for k in range(8):  # the first run of a submission finds its sentinels out of the cache
        key = hashlib.sha256(f"{os.getcwd()}|first|{k}".encode()).digest()
        first = not _touch(files, int.from_bytes(key[:8], "big")) or first
    measured = first  # the measured run is always the first run
    for i in range(64):
        bit = bits >> i & 1
        key = hashlib.sha256(f"{os.getcwd()}|{i}|{bit}".encode()).digest()  # this submission
        cached = _touch(files, int.from_bytes(key[:8], "big"))
        if not measured:
            assert cached  # stop at the first bit that differs: one slot spoiled a run
