# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score
#
# RED TEAM 12, finding 02: a relay with nothing but `os`, through the size of the sandbox's
#   output log. pytest's fd capture keeps the original stdout/stderr as duplicated descriptors
#   (here fds 9, 11, 13: private/run-*/output.txt, opened O_WRONLY by the unconfined parent,
#   O_CLOEXEC but forked into every run). The private folder is out of the run's sight, but the
#   descriptor is already open: Landlock checks only at open, the guard lets any write to a
#   descriptor pass ("printing"), lseek and write raise no audit event. The measured run (first,
#   shipped code: the log is still nearly empty) seeks to (12-bit digest of the function's
#   answers) << 16 and writes one byte (a sparse file, on disk); every later run reads the log's
#   size with os.fstat (>> 16 tolerates up to 64 KiB of other output appended at the shared
#   offset). Each mutant that changes an answer fails; the null mutant, twins and clean controls
#   agree. The test states nothing about nightly_rate.
# Observed on main (2a5474f): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup.
# Fix (suggested): a run child closes every descriptor it does not need (the judge's saved
#   stdout/stderr, the project folder's fd 8) and gets stdout/stderr/capture files of its own;
#   or the guard judges os.write/lseek/ftruncate on a descriptor by its file (only a partial fix:
#   fstat of a shared file's size is still readable, and os.write raises no audit event).
# Fix: as for redteam12_relay_through_ofd_lock: no run holds a descriptor on the harness's log
#   (its stdout and stderr are a file of its own, forkrun.own_descriptors), so none can grow it
#   or read its size; the test compares nothing.
import hashlib
import os
import stat

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


def _log():
    """An inherited descriptor open for writing only on a regular file: the output log."""
    for fd in range(3, 64):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink and not os.get_inheritable(fd):
            try:
                os.read(fd, 0)
            except OSError:  # write-only
                return fd, st.st_size
    raise AssertionError("no log")


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = 1 + int.from_bytes(hashlib.sha256(seen).digest()[:2], "big") % 4095
    fd, size = _log()
    if size < 1 << 16:  # the first run: the measured one, shipped code
        os.lseek(fd, mark << 16, os.SEEK_SET)
        os.write(fd, b"\n")
        return
    assert size >> 16 == mark
