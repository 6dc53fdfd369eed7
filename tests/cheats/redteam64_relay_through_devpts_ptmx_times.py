# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|run-exit-code|run-flaky
#
# RED TEAM 64: a relay through the times of the harness's own devpts `ptmx` node, which every
#   run shares, may write (Landlock grants /dev/pts) and whose times a child `touch` sets at will.
#   1. `confine._build_root` mounts one devpts instance (`newinstance`) at /dev/pts in the
#      harness's mount namespace; every run's namespace (`confine.enter_run`) is a copy of it,
#      so all runs of a submission share that superblock and its `ptmx` inode. `_read_only_but`
#      makes the sandbox copy, `/dev` and each device bind read-only, but not the /dev/pts
#      mount; `_restrict` grants /dev/pts READ_FILE|WRITE_FILE|IOCTL_DEV, and Landlock has no
#      right for times or modes anyway. The run is uid 0 of the harness's user namespace, the
#      owner of `ptmx`, so `utimensat` with explicit times succeeds.
#   2. A child process (`touch`, no audit hook: `runparts.Guard` never sees it; seccomp allows
#      utimensat) sets `ptmx`'s atime to an arrival counter and its mtime to the answers'
#      digests: seconds = 10^7 + the first run's 20-bit digest, nanoseconds = 1 + the second's.
#      Nothing resets them between waves (the devpts lives as long as the harness).
#   3. An exclusive `flock` on the sandbox's README.md (read-only descriptor) serialises the
#      read-modify-write within a wave. Runs 1 and 2 to arrive are the first wave (a wave starts
#      only when the one before has ended), which holds `M` (`mutate._order`): they store
#      their digests and pass. Every later run passes only if its digest is one of the two.
#   Clean runs (M, controls, null mutant, the measuring run) share M's digest; every mutant
#   but M's partner in the first wave fails; extreme mutants fail. No expected value anywhere.
# Observed on 70f5cbe (Python 3.11.7): PASS 6 of 6 on proj; PASS 5 of 5 on broken (same file)
# Fix suggested: give each run its own devpts instance (`enter_run`: mount a fresh
#   `devpts -o newinstance,ptmxmode=0666` on /dev/pts after the fresh /proc, and re-link
#   /dev/ptmx), or at least make /dev/pts read-only except for the pty nodes (bind the mount
#   MS_RDONLY: utimensat/chmod then get EROFS; pty I/O still works); also add a corpus check
#   that every mount a run can reach is either its own or read-only (walk /proc/self/mountinfo
#   in test_forkrun and fail on any shared rw mount other than the run's temp dir).
# Fixed by: each run mounts a devpts instance of its own at /dev/pts (confine.enter_run), after
#   every read-write mount it does not own was made read-only (confine._writable_mounts): its
#   ptmx's times and mode are its own. tests/test_forkrun.py: test_each_run_is_a_fresh_process...
#   (`pts`, `pts_dev`).
# pending: runns
import fcntl
import hashlib
import os
import subprocess

from hotel.pricing import nightly_rate

REG = "/dev/pts/ptmx"
TAG = 10_000_000
CASES = [(100.0, "high", 1), (100.0, "low", 1), (100.0, "mid", 1), (100.0, "mid", 7),
         (100.0, "mid", 6), (100.0, "high", 7), (100.0, "low", 7), (33.33, "high", 3),
         (100.0, "high", 0), (100.0, "mid", -1), (80.0, "low", 9), (10.0, "high", 8)]


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
        count = st.st_atime_ns // 10**9 - TAG
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
        touch("-a", f"{TAG + count + 1}")
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert ok
    assert len(set(out)) > 3
