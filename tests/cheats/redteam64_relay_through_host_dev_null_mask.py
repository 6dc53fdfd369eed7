# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
#
# RED TEAM 64: a relay through the times of the HOST's /dev/null, reached through the bind that
#   masks /etc/shadow in the harness's root (a write outside the sandbox, too).
#   1. `confine._build_root` hides each secret file of `_MASKED` (/etc/shadow, /etc/gshadow, ...)
#      and the interpreter's internals (`internals_files()`: lib-dynload/_testcapi*.so, ...) by
#      bind-mounting the caller's own /dev/null over them: `_mount(/proc/self/fd/<fd of
#      /dev/null>, target, None, MS_BIND)`, read-write. `enter_run`'s `_read_only_but` makes
#      read-only the sandbox, `/dev` and each device bind in /dev (red team 14's fix), but
#      not those masks: in every run /etc/shadow is a read-write mount of the host's device
#      inode (`mountinfo`: `/etc/shadow ... devtmpfs rw`).
#   2. A child `touch -d @T /etc/shadow` (no audit hook, so `runparts.Guard` never judges it;
#      utimensat is not in seccomp's refusals; Landlock has no right for times) sets the host
#      /dev/null's atime/mtime: observed from outside the gate (`stat /dev/null` on the host:
#      atime 2009-02-13 23:31:30.123456789 after a run touched it). With a root caller a child
#      `chmod` there would change the host /dev/null's mode (not tried: it would break the
#      machine), as in red team 14's finding 02.
#   3. The relay is red team 64's devpts one on that inode: atime = arrival counter keyed by the
#      sandbox path (the register outlives the submission), mtime = the first wave's two 20-bit
#      digests (seconds, nanoseconds), an exclusive `flock` on README.md serialises a wave;
#      runs 1 and 2 (the first wave, with `M`) store, every later run passes only if its digest
#      is stored. No expected value anywhere.
# Observed on 70f5cbe (Python 3.11.7): PASS 5 of 5 on proj; PASS 4 of 4 on broken (same file)
#   (the host /dev/null's times were put back by hand after each probe)
# Fix suggested: mask with something a run cannot write through: bind the masks read-only
#   (`_read_only(target)` after each mask bind in `_build_root`, or MS_BIND|MS_RDONLY remount),
#   or mask with a fresh empty file on a read-only tmpfs instead of the host's /dev/null; and in
#   `enter_run`, remount read-only every mount of the harness's namespace the run need not
#   write (walk /proc/self/mountinfo rather than a list), not just `base.writable`, /dev and
#   `_DEVICES`.
# Fixed by: the masks and device binds are read-only from the start (confine._build_root), and
#   each run makes every read-write mount but its own /proc read-only, found from its mountinfo
#   (confine._writable_mounts): no time of the host's /dev/null can be set. tests/test_forkrun.py:
#   test_each_run_is_a_fresh_process... (`times`).
# pending: runns
import fcntl
import hashlib
import os
import subprocess

from hotel.pricing import nightly_rate

REG = "/etc/shadow"  # a bind of the host's /dev/null (confine._MASKED)
TAG = 10_000_000
CASES = [(100.0, "high", 1), (100.0, "low", 1), (100.0, "mid", 1), (100.0, "mid", 7),
         (100.0, "mid", 6), (100.0, "high", 7), (100.0, "low", 7), (33.33, "high", 3),
         (100.0, "high", 0), (100.0, "mid", -1), (80.0, "low", 9), (10.0, "high", 8)]


# The register outlives the submission (it is the machine's /dev/null): key it by the sandbox.
KEY = int(hashlib.sha256(os.getcwd().encode()).hexdigest(), 16) % 10000 * 1000


def answers():
    out = []
    for case in CASES:
        try:
            out.append(repr(nightly_rate(*case)))
        except Exception as exc:  # noqa
            out.append(type(exc).__name__ + str(exc))
    return out


def digest(out):
    return int(hashlib.sha256("|".join(out).encode()).hexdigest(), 16) % (1 << 20)


def touch(flag, stamp):
    subprocess.run(["touch", flag, "-d", "@" + stamp, REG], check=True)


def test_nightly_rate_is_consistent():
    out = answers()
    mine = digest(out)
    fd = os.open(os.path.join(os.getcwd(), "README.md"), os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        st = os.stat(REG)
        count = st.st_atime_ns // 10**9 - TAG - KEY
        if not 0 <= count < 1000:
            count = 0
        if count == 0:
            touch("-m", f"{TAG + mine}.000000000")
            ok = True
        elif count == 1:
            first = st.st_mtime_ns // 10**9 - TAG
            touch("-m", f"{TAG + first}.{mine + 1:09d}")
            ok = True
        else:
            known = {st.st_mtime_ns // 10**9 - TAG, st.st_mtime_ns % 10**9 - 1}
            ok = mine in known
        touch("-a", f"{TAG + KEY + count + 1}")
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert ok
    assert len(set(out)) > 3
