# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 17, finding 02: finding 01 (redteam17_relay_through_memfd_inode_counters.py) with no
#   memfd_create and no fstat: Python's mmap.mmap(-1, n) is MAP_SHARED | MAP_ANONYMOUS, which
#   the kernel backs with a file of shmem's internal mount (shmem_zero_setup), numbered from the
#   same per-CPU inode batch as memfds; /proc/self/maps shows the number of the new
#   "/dev/zero (deleted)" line. Refusing memfd_create alone leaves the channel open (SysV shmget
#   is a third way in). Same protocol as finding 01: the first wave (M and one mutant) writes
#   H(cwd, answers) mod 16 into the high bits of the two 10-bit per-CPU registers (residues mod
#   1024, set by allocating, pinned with sched_setaffinity), every later run passes iff its own
#   value is there; memory.force_empty between waves leaves inode numbers alone.
# Observed on 1711853 (redteam17): this file (PAUSE 1.0 s) 2 of 4 submits PASS, scores 0.632,
#   0.857 (FAILs: `return None` survived once, a control failed once: run-flaky 3/6);
#   5.9-9.5 s. With PAUSE 0.3 s: 4 of 7 PASS, scores 0.923, 0.923, 0.706, 0.667 (FAILs: a 4-bit
#   collision with `return 0.0`, M failed once, controls 3/6 once); with nightly_rate broken (base * 1.5): 2 of 2
#   PASS, scores 0.8, 0.923. Slower than finding 01 (an allocation reads /proc/self/maps,
#   ~150 us, so setting a register takes up to ~0.3 s) and so less reliable, but it needs no
#   memfd_create.
# Fix suggested: as finding 01 (scramble each CPU's shmem inode residue from the zygote before
#   every wave, or refuse memfd_create, shmget and shared anonymous mmap in runs).
# Fixed: seccomp refuses memfd_create, shmget and shared anonymous mmap in every run, and the
#   guard refuses mapping /dev/zero (seccomp.install, runparts.Guard): the relay's first
#   allocation fails, so every run fails (run-exit-code).
import hashlib
import mmap
import os
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
SPACE = 64  # a register's low 6 bits: the submission's tag (R0) plus the reads of later runs
PAUSE = 1.0  # an allocation reads /proc/self/maps (~150 us): a register takes up to ~0.3 s to set


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


MAPS = os.sep.join(("", "pr" + "oc", "self", "maps"))


def _zero_maps():
    with open(MAPS) as handle:
        return {line for line in handle if "/dev/zero" in line}


def _alloc(cpu):
    """One shared anonymous mapping on ``cpu`` (no memfd_create): its inode comes from the same
    per-CPU shmem batch; /proc/self/maps names it (``/dev/zero (deleted)``)."""
    os.sched_setaffinity(0, {cpu})
    before = _zero_maps()
    region = mmap.mmap(-1, 4096)  # MAP_SHARED | MAP_ANONYMOUS: shmem_zero_setup
    try:
        (line,) = _zero_maps() - before
        return int(line.split()[4]) % 1024
    finally:
        region.close()


def _until(cpu, good):
    for _ in range(5000):
        if good(_alloc(cpu)):
            return


def _key(*parts):
    return hashlib.sha256("|".join(parts).encode()).digest()


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    nonce = os.getcwd()  # one sandbox per submission
    tag = _key(nonce)[0] % SPACE
    h = _key(nonce, seen)
    slot, val = h[0] & 1, h[1] % (1024 // SPACE)
    off = (tag, 0)
    mask = os.sched_getaffinity(0)
    try:
        regs = ((_alloc(0) - 1) % 1024, (_alloc(1) - 1) % 1024)
        drift = ((regs[0] - regs[1]) - tag) % SPACE
        if drift <= 3 or drift >= SPACE - 3:  # closed: this submission's first wave wrote
            ok = any((regs[c] - off[c]) % 1024 // SPACE == val for c in (0, 1))
        else:  # open: the first wave (M and a mutant)
            time.sleep(PAUSE)  # the partner has read the old state by now
            for cpu in (0, 1):
                _until(cpu, lambda r, cpu=cpu: (r - off[cpu]) % SPACE == 0)
            time.sleep(PAUSE)
            target = val * SPACE + off[slot]
            _until(slot, lambda r: r == target)
            time.sleep(PAUSE)
            if (_alloc(slot) - 1 - off[slot]) % 1024 // SPACE != val:  # the partner took it
                target = val * SPACE + off[1 - slot]
                _until(1 - slot, lambda r: r == target)
            ok = True
    finally:
        os.sched_setaffinity(0, mask)
    assert ok
