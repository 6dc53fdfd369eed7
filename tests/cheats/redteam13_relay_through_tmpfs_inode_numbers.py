# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|mutation-too-slow
# pending: runns
#
# RED TEAM 13, finding 01: a relay with nothing but `os`, through the inode numbers of the shared
#   tmpfs that holds every run's temp dir (st_dev 52 in the probe: .../tmp/runs-*/tmp*). tmpfs
#   numbers inodes from one counter per superblock (shmem_reserve_inode: sbinfo->next_ino++), never
#   reused. The temp dir is removed after each run, but the counter is not reset: every inode the
#   measured run made moves the numbers every later run gets. The measured run (first: the counter
#   is still below STEP, its own dir was inode 6) makes nameless files (O_TMPFILE in its own temp
#   dir: allowed by Landlock and the guard) until the counter reaches mark * 1024, mark = 1 + a
#   6-bit digest of the function's answers; every later run makes one nameless file, reads its
#   st_ino and checks st_ino // 1024 == its own mark (all later runs together take far fewer than
#   1024 inodes). Each mutant that changes an answer fails; the null mutant, twins and controls
#   agree. The test states nothing about nightly_rate, and passes with a broken one (1.25 -> 1.5).
# Observed on main (59d7164): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup; also PASS, score 1.0, with nightly_rate broken (base * 1.5).
#   Cost: ~39k inodes, about 2 s on top of a 1.9 s submit.
# Fixed: each run is PID 2 of PID, mount, IPC and network namespaces of its own, with a
#   fresh /proc and a tmpfs of its own as its temp dir (confine.into_run_namespaces,
#   confine.enter_run): no counter outlives a run. Skipped where there are no namespaces.
#   Every run now believes it is the first and spends the time the first one did: on a
#   loaded machine that is mutation-too-slow.
import hashlib
import os

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
STEP = 1024   # inode numbers per mark: more than every later run together allocates
MARKS = 64


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _next_inode(folder):
    """The shared tmpfs's inode counter: a nameless file in our own temp dir takes the next one."""
    fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def test_nightly_rate_is_stable(tmp_path):
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = 1 + int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % MARKS
    folder = str(tmp_path)
    now = _next_inode(folder)
    if now < STEP:  # the first run on this tmpfs: the measured one, shipped code
        while _next_inode(folder) < mark * STEP - 1:
            pass
        return
    assert now // STEP == mark
