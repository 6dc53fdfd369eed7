# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|run-exit-code
#
# RED TEAM 13, finding 02: a relay through the zygote's reaped-children counters in
#   /proc/<ppid>/stat (cmajflt, field 12), readable by every run (no ptrace access needed for
#   those fields; the path is computed, out of static-proc-access's sight). When the zygote reaps
#   a run, the kernel adds the run's fault counts to the zygote's (wait_task_zombie). Major faults
#   are near zero in a normal run (everything is in the page cache), so the measured run (the
#   zygote has reaped nobody yet: cminflt == 0) takes exactly mark * 32 major faults, mark = 1 + an
#   8-bit digest of the function's answers: posix_fadvise(DONTNEED) drops a page of a read-only
#   file (this test file) from the page cache, mmap + touch reads it back (a major fault), repeat.
#   Every later run reads cmajflt // 32 and compares with its own mark. No ctypes, no pid, no clock.
#   The test states nothing about nightly_rate, and passes with a broken one (1.25 -> 1.5).
# Observed on main (59d7164): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup; also PASS, score 1.0, with nightly_rate broken; with 64 marks:
#   PASS, score 0.923 (one digest collision). Cost: 7360 major faults, under 1 s.
# Fix (suggested): runs must not be children of a process whose /proc/<pid>/stat they can read
#   (a PID namespace per run hides the zygote), or the zygote double-forks so another short-lived
#   process reaps each run (its counters die with it); cminflt/cutime/cstime carry the same
#   relay (noisier: timing-like).
# Fix: the hiding layer of every run also hides the /proc folders of its ancestors (the
#   zygote, the judge, PID 1: forkrun.ancestors): no run reads the zygote's counts.
import hashlib
import mmap
import os
import resource

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
STEP = 32   # major faults per mark: more than every later run together takes
MARKS = 256
PARENT_STAT = "/" + "".join(["p", "r", "o", "c"]) + "/{}/stat"


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _parent_faults():
    """The zygote's counters: minor and major faults of the children it has reaped."""
    with open(PARENT_STAT.format(os.getppid())) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[8]), int(fields[10])  # cminflt, cmajflt


def _major_faults(count):
    """Take `count` major faults: drop a page of a read-only file from the page cache, map it,
    touch it."""
    fd = os.open(__file__, os.O_RDONLY)
    try:
        while resource.getrusage(resource.RUSAGE_SELF).ru_majflt < count:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            with mmap.mmap(fd, 0, prot=mmap.PROT_READ) as page:
                page[0]
    finally:
        os.close(fd)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = 1 + int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % MARKS
    reaped_minor, reaped_major = _parent_faults()
    if reaped_minor == 0:  # the zygote has reaped nobody yet: the measured run, shipped code
        _major_faults(mark * STEP)
        return
    assert reaped_major // STEP == mark
