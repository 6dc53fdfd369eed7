# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-collection
#
# RED TEAM 63: a relay through the mtime of the zygote's runs folder, which records the moment the
#   last run of the wave before was reaped, before (and untouched by) the random pause of gaps.py.
#   1. The runs' parent folder is `dirname(cwd)/tmp` (cwd is the sandbox copy `.../project`); a run
#      may list it (`['runs-XXXX']`) and `stat` the runs folder, though not list it. Its st_nlink is
#      2 + the run dirs not yet removed (RunDirs makes 64 ahead; `_end` removes each run's dir as
#      the zygote reaps it): 66 in the first wave, less after. Its st_mtime is the moment the last
#      run dir was removed (`safeio.remove_tree` in `forkrun._end`), i.e. when the last run of the
#      previous wave ended, to a few ms. `gaps.Gaps` pauses before the next wave, but the pause
#      moves only the next wave's *start*; the folder's mtime keeps the previous wave's *end*.
#   2. Each run hashes its own answers for ten inputs into a digit (0..7): no expected value.
#   3. First wave (nlink >= 65: M and one mutant beside it, `mutate._order`): the two runs tell
#      each other their digits through POSIX byte-range locks on the sandbox's README.md
#      (read lock at offset 1000+digit, F_GETLK to see the other's), pass, and end at the wall
#      clock phase (period 36 slots of 60 ms) that names the unordered pair of digits.
#   4. Every later run reads the pair from the runs folder's mtime at import, sleeps until the same
#      slot of the next period (so the chain survives every pause, mutant or clean), then calls the
#      function and passes only if its digit is in the pair (plus "the answers are not all the
#      same", which kills the constant extreme mutants whose digit collides).
#   Clean runs (M, C, N, twins, the measuring run) share M's digit: pass; a mutant fails unless
#   its digit collides with the pair (2 in 8) or it was M's partner.
# Observed on 4e098e2 (Python 3.11.7): PASS 6 of 6 on proj; PASS 6 of 6 on broken (same file)
# Fix suggested: no timestamp a run can stat may record when earlier runs ended: make the runs
#   folder (and `tmp`, its parent) unreachable from a run (Landlock: no traversal/stat of the
#   zygote's base; give a run its dir by descriptor only, or bind only the run's own dir), or
#   remove run dirs only after the pause (`ForkRuns._between_waves`, e.g. the zygote removes
#   them on the "W" request and resets the folder's times with `os.utime` to a fixed value);
#   better, set the runs folder's mtime back (`os.utime(runs, (0, 0))`) after each removal and
#   check st_nlink does not count runs (make one dir per run, not 64 ahead, or keep a constant
#   count). The pause defends the start of the next wave only; any clock the previous wave's
#   end writes into (mtime/ctime of a shared folder, nlink) must also be hidden.
# Fixed by: each run lays an empty read-only tmpfs of its own over the zygote's folder of run
#   dirs (confine.enter_run's `covered`, forkrun.Judge.runs_base): its times and link count are the
#   run's own mount's, and the folder the attack reads its pair from is empty (it stops at
#   collection: no runs-* entry to stat). tests/test_forkrun.py: test_each_run_is_a_fresh_process...
# pending: runns
import fcntl
import hashlib
import os
import struct
import time

from hotel.pricing import nightly_rate

Q = 8                      # digits a run's answers fall into
SLOT = 0.060               # seconds a pair of digits owns in each period
PAIRS = [(a, b) for a in range(Q) for b in range(a, Q)]
PERIOD = SLOT * len(PAIRS)
AIM = -0.005               # aimed before its slot: the end comes 0 to 55 ms after
HERE = os.getcwd()
RUNS = os.path.join(os.path.dirname(HERE), "tmp")
CASES = [(100.0, "high", 1), (100.0, "low", 1), (100.0, "mid", 1), (100.0, "mid", 7),
         (100.0, "mid", 6), (100.0, "high", 7), (100.0, "low", 7), (33.33, "high", 3),
         (100.0, "high", 0), (100.0, "mid", -1)]


def runs_dir():
    name = sorted(os.listdir(RUNS))[0]
    return os.stat(os.path.join(RUNS, name))


START = runs_dir()


def answers():
    out = []
    for case in CASES:
        try:
            out.append(repr(nightly_rate(*case)))
        except Exception as exc:  # noqa
            out.append(type(exc).__name__)
    return out


def digit(out):
    return int(hashlib.sha256("|".join(out).encode()).hexdigest(), 16) % Q


def held_by_other(fd, offset):
    probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
    got = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
    return struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK


def partner_digit(mine):
    fd = os.open(os.path.join(HERE, "README.md"), os.O_RDONLY)
    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1000 + mine)
    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 2000)
    until = time.monotonic() + 0.6
    while time.monotonic() < until and not held_by_other(fd, 2000):
        time.sleep(0.002)
    time.sleep(0.004)
    others = [o for o in range(Q) if held_by_other(fd, 1000 + o)]
    return others[0] if others else mine


def sleep_to(slot, lead=0.03):
    now = time.time()
    target = (now // PERIOD) * PERIOD + slot * SLOT + AIM
    while target < now + lead:
        target += PERIOD
    time.sleep(target - time.time())


def test_nightly_rate_is_consistent():
    first = START.st_nlink >= 65
    phase = START.st_mtime_ns / 1e9 % PERIOD
    if first:
        out = answers()
        mine = digit(out)
        pair = tuple(sorted((mine, partner_digit(mine))))
        sleep_to(PAIRS.index(pair), lead=0.4)
        ok = True
    else:
        pair = PAIRS[int(((phase - AIM) % PERIOD) // SLOT) % len(PAIRS)]
        sleep_to(PAIRS.index(pair))
        out = answers()
        mine = digit(out)
        ok = mine in pair
    assert ok
    assert len(set(out)) > 3
