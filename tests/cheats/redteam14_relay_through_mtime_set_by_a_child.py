# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score
# pending: runns
#
# RED TEAM 14, finding 02: a relay (and a write outside the run's temp dir) through a file's
#   times set by a child process. Landlock has no right for utimes, chmod or chown: a process
#   under it may change the metadata of any file it can reach on a read-write mount. The sandbox
#   copy is bound read-write into every run's mount namespace (only Landlock stops writes), and
#   the guard's os.utime check is an audit hook, which a child process does not have. Since
#   processes are allowed once the kernel confines the run, `touch -m -d @<time> README.md` in
#   the measured run sets the sandbox copy's README.md mtime to EPOCH + a 28-bit digest of the
#   function's answers; every later run reads os.stat(README.md).st_mtime (the first run knows
#   it is first: the mtime is still the copy's, years after EPOCH). 28 bits: no collisions.
#   The same child can chmod and chown (to its own uid) any file in the sandbox copy or the
#   channel folder, and, with a root caller, the host's own device nodes bound into /dev
#   (devtmpfs, read-write): `chmod 666 /dev/null` in a run succeeded and moved the host's
#   /dev/null ctime (a no-op mode on purpose; `chmod 000 /dev/null` would break the machine for
#   every non-root user). chmod 000 of the project or channel folder only made the submit FAIL
#   (run-flaky: a control run could not start), no traceback.
# Observed on e6275ad: PASS, score 1.0 (12/12 classic, 2/2 extreme), landlock+namespaces+cgroup,
#   submit 2.4 s; with nightly_rate broken (base * 1.5): PASS, score 1.0.
# Fix suggested: in enter_run (it still holds CAP_SYS_ADMIN), remount every read-write bind the
#   runs do not need to write read-only for the run: the sandbox copy, the channel folder, and
#   the device nodes (/dev/null etc.: a read-only bind still lets a char device be written, but
#   refuses chmod/chown/utime with EROFS); MS_NOATIME on them as well (finding 01). The run's
#   tmpfs and /dev/shm stay writable. The guard's path events are no wall (children skip them).
# Fixed: in each run's mount namespace the harness's writable mounts are read-only
#   (confine.enter_run): `touch` and `chmod` get EROFS, the host's /dev/null included, and the
#   test fails in the measured run (check=True). Skipped where there are no namespaces.
import hashlib
import os
import subprocess

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTE = os.path.join(ROOT, "README.md")
EPOCH = 1000000000  # 2001: no file the sandbox writes has an mtime before that


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % 2 ** 28  # 28 bits
    written = int(os.stat(NOTE).st_mtime)
    if written > EPOCH + 2 ** 28:  # as the sandbox wrote it: the first run, the shipped code
        subprocess.run(["touch", "-m", "-d", f"@{EPOCH + mark}", NOTE], check=True)
        assert int(os.stat(NOTE).st_mtime) == EPOCH + mark
        return
    assert written - EPOCH == mark
