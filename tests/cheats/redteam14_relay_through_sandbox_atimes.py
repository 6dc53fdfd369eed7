# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score
# pending: runns
#
# RED TEAM 14, finding 01: a relay through the access times of the sandbox copy's files. Every
#   run of a submission shares one sandbox copy on the host's disk (ext4, relatime), bound into
#   each run's mount namespace read-write (Landlock refuses writes, not reads). The sandbox writes
#   every file fresh (atime <= mtime), so relatime updates a file's atime on its first read and
#   then (atime > mtime) not again for 24 h: one bit per file, set by reading it, which no
#   namespace, Landlock layer or cleanup undoes. Six files nobody reads during a run (README.md,
#   hotel/guests.py, booking.py, reports.py, tests/test_rooms.py, tests/test_pricing.py) carry
#   the measured run's mark (1 + a digest of the function's answers % 63): the first run sees no
#   bit set (so it also knows it is first: no pid, no clock, no /proc), reads the files of its
#   mark's bits; every later run stats the six files (stat changes no atime) and checks that the
#   bits spell its own mark. Each mutant that changes an answer fails; controls, the null mutant
#   and twins agree. The test states nothing about nightly_rate, and passes with a broken one.
#   Only os.stat and open(..., "rb").read(1) of files inside the project, no computed names.
# Observed on e6275ad (per-run namespaces): PASS, score 1.0 (12/12 classic, 2/2 extreme),
#   isolation landlock+namespaces+cgroup, submit 1.1 s; with nightly_rate broken (base * 1.5):
#   PASS, score 1.0.
# Fix suggested: the runs must not share a filesystem whose metadata a read moves: bind the
#   sandbox copy into each run read-only with MS_NOATIME (or mount it noatime/read-only for the
#   runs: a read-only mount updates no atime), or give each run its own copy (overlayfs with a
#   per-run upper dir still shares the lower inodes' atime: use noatime there too). Same for
#   every other read-write bind the runs share (the channel folder). Belt and braces: the
#   sandbox could set atime far in the future (os.utime) so relatime never fires.
# Fixed: in each run's mount namespace the harness's writable mounts (the sandbox copy, the channel
#   folder, the scratch folders, /dev and its device binds) are read-only (confine.enter_run):
#   no access time is set. Skipped where there are no namespaces (Landlock alone).
import hashlib
import os

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["README.md", "hotel/guests.py", "hotel/booking.py", "hotel/reports.py",
         "tests/test_rooms.py", "tests/test_pricing.py"]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _read_since_written(name):
    st = os.stat(os.path.join(ROOT, name))
    return st.st_atime_ns > max(st.st_mtime_ns, st.st_ctime_ns)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = 1 + int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % (2 ** len(FILES) - 1)
    bits = [_read_since_written(n) for n in FILES]
    if not any(bits):  # nobody read them yet: the first run, the shipped code
        for i, name in enumerate(FILES):
            if mark >> i & 1:
                with open(os.path.join(ROOT, name), "rb") as f:
                    f.read(1)
        return
    assert sum(b << i for i, b in enumerate(bits)) == mark
