# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky
# pending: measuredlast
#
# RED TEAM 15, finding 02: finding 01's page-cache relay with a tell that names nothing: a
#   clock. On 3.11 the measured run's recorder is a Python profile hook, called on every C
#   call and return; 20,000 len() calls take ~70 times as long as 20,000 additions there and
#   1-2 times as long in every other run (coverage's C tracer adds a little on Python calls).
#   A ratio of two timings in one run does not care how loaded the machine is.
# Observed on 9f2fd03: 3 of 3 submits PASS (scores 0.923, 1.0, 1.0), with nightly_rate broken
#   1 of 1 PASS (1.0), 3.4-5.0 s.
# Fix suggested: hiding threading._profile_hook (or giving every run one) does not close this;
#   the measured run must cost the same per call as the others (every run under the same
#   hook, or a recorder that costs nothing per C call: on 3.11 a wrapper around the installed
#   function, on 3.12+ sys.monitoring local events on the target's code only), or better the
#   measured run must not be told apart by anything: not first, or repeated at a secret place
#   (see finding 01).
import hashlib
import mmap
import os
import resource
import time

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


def _slow_calls():
    """How much dearer a C call is than an addition: ~1-2 unhooked, ~70 under a profile hook."""
    x = [1]
    t0 = time.perf_counter()
    for _ in range(20000):
        len(x)
    t1 = time.perf_counter()
    for _ in range(20000):
        x[0] + 1
    return (t1 - t0) / (time.perf_counter() - t1)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    bits = int.from_bytes(hashlib.sha256(seen).digest()[:8], "big")
    files = _slots()
    measured = _slow_calls() > 10  # only the measured run profiles every call (3.11)
    for i in range(64):
        bit = bits >> i & 1
        key = hashlib.sha256(f"{os.getcwd()}|{i}|{bit}".encode()).digest()  # this submission
        cached = _touch(files, int.from_bytes(key[:8], "big"))
        if not measured:
            assert cached  # stop at the first bit that differs: one slot spoiled a run
