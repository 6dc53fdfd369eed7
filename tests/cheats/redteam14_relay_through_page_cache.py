# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score
#
# RED TEAM 14, finding 03: a relay through the host's page cache, told apart by a plain
#   attribute. (a) The tell: on CPython 3.11 only the measured run has threading._sys replaced
#   by the retrying proxy: type(threading._sys).__name__ == "_RetryingSys" there, "module" in
#   every other run (no /proc, no pid, no clock, no banned name). (b) The relay: the page cache
#   is one per machine; no namespace, mount flag or Landlock layer splits it. Ten stdlib files
#   nothing imports (turtledemo/*.py, on a read-only bind: no atime, no chmod needed) carry ten
#   bits: the measured run evicts the files of its mark's 1-bits
#   (os.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) on a read-only fd) and pulls in the others;
#   a later run maps each file, touches one byte and reads getrusage().ru_majflt: a major fault
#   means "was evicted" (then it evicts the file again, restoring the bit for the runs after
#   it). Two runs at once can race on one file (one pulls it in, the other sees it cached
#   before the first evicts it again): a reader whose bits disagree with its mark re-reads
#   twice, 50 ms apart (a mutant's real disagreement stays). Closing finding 01 and 02
#   (read-only, noatime binds) leaves this open.
# Observed on e6275ad: PASS, score 1.0 (12/12 classic, 2/2 extreme), landlock+namespaces+cgroup,
#   twice (2.4 s, 3.6 s); with nightly_rate broken (base * 1.5): PASS, score 1.0 (3.2 s). The
#   first version without the re-read: FAIL run-flaky (4/5 clean runs: the race).
# Fix suggested: (1) give the measured run no tell: the proxy must look like the module (or
#   be installed in every run), and more generally the measured run should not be first: it
#   is the one run whose code is known to be clean, so it should run at a secret place among
#   the others, or last (a relay then only flows into it, and it must pass anyway); (2) refuse
#   page-cache eviction in runs with the seccomp filter that already refuses relays:
#   fadvise64 with POSIX_FADV_DONTNEED/NOREUSE, madvise with MADV_PAGEOUT/MADV_COLD,
#   and probably readahead(2) and mincore(2) (ctypes reaches the latter two); timing a read
#   (cached vs not) stays as a noisier reader once eviction is refused.
# Fixed: every run has the retrying threading._sys on 3.11 (no tell), and seccomp refuses
#   posix_fadvise DONTNEED/NOREUSE and madvise COLD/PAGEOUT in runs (EPERM: the test fails).
#   The measured run can still tell it is measured in other ways (coverage's tracer is set).
import hashlib
import mmap
import os
import resource
import threading
import time

import turtledemo

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
HERE = os.path.dirname(turtledemo.__file__)
FILES = ["bytedesign.py", "chaos.py", "clock.py", "colormixer.py", "forest.py",
         "fractalcurves.py", "lindenmayer.py", "minimal_hanoi.py", "nim.py", "paint.py"]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_majflt


def _bit(name, keep=None):
    """Whether the file was out of the page cache; then out (keep True) or in (False) again."""
    fd = os.open(os.path.join(HERE, name), os.O_RDONLY)
    try:
        before = _faults()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as m:
            m[0]
        out = _faults() > before
        if (out if keep is None else keep):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return out
    finally:
        os.close(fd)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % 2 ** len(FILES)
    if type(threading._sys).__name__ != "module":  # 3.11: only the measured run has the proxy
        for i, name in enumerate(FILES):
            _bit(name, keep=bool(mark >> i & 1))
        return
    for _ in range(3):  # a run beside this one may have the page in, between its read and evict
        got = sum(_bit(name) << i for i, name in enumerate(FILES))
        if got == mark:
            break
        time.sleep(0.05)
    assert got == mark
