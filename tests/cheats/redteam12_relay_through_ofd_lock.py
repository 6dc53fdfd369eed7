# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score
#
# RED TEAM 12, finding 01: the relay of red team 11 through a byte-range lock instead of an
#   extended attribute. fd 1 in every run is pytest's capture file, one open file description
#   the judge made before the zygote was forked. An open-file-description lock
#   (fcntl F_OFD_SETLK) belongs to that description, not to the process: it outlives the
#   measured run and stays until the judge closes the file. The measured run (the first, shipped
#   code, sees no lock) sets one write lock of length 1 at 2**40 + a 32-bit digest of the
#   function's answers; every later run asks with a traditional F_GETLK (a process-owned query,
#   which conflicts with the description's lock although it is the same descriptor) and reads
#   back l_start. Only `fcntl.fcntl` and `struct`: no ctypes, no /proc, no path, no xattr, no
#   keyring. The guard watches no fcntl event, seccomp refuses only xattr/keyring/io_uring calls,
#   no static rule names fcntl.fcntl. Each mutant that changes an answer fails; the null mutant,
#   twins and clean controls agree. The test states nothing about nightly_rate.
# Observed on main (2a5474f): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup.
# Fix (suggested): each run child gets capture files (and every other inherited descriptor) of
#   its own, so no open file description outlives a run; or seccomp refuses fcntl's lock
#   commands (F_SETLK/F_SETLKW/F_OFD_SETLK/F_OFD_SETLKW, flock) on descriptors the run inherited.
# Fix: every run gets descriptors of its own for what it inherited on a file: stdout and stderr
#   become a file in its temp dir (passed on to the log by the zygote), pytest's capture starts
#   again on fresh files, every other file is a fresh /dev/null (forkrun.own_descriptors): the
#   lock dies with the run, every run finds none, the test compares nothing.
import fcntl
import hashlib
import struct

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
BASE = 1 << 40
SPAN = 1 << 32


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _lock(kind, start, length):
    return struct.pack("hhqqi4x", kind, 0, start, length, 0)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = int.from_bytes(hashlib.sha256(seen).digest()[:4], "big")
    found = fcntl.fcntl(1, fcntl.F_GETLK, _lock(fcntl.F_WRLCK, BASE, SPAN))
    kind, _, start, _, _ = struct.unpack("hhqqi4x", found)
    if kind == fcntl.F_UNLCK:  # the first run: the measured one, shipped code
        fcntl.fcntl(1, fcntl.F_OFD_SETLK, _lock(fcntl.F_WRLCK, BASE + mark, 1))
        return
    assert start - BASE == mark
