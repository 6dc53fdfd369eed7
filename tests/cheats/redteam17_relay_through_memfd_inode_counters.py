# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 17, finding 01: a relay through the memfd inode-number counters, which no
#   memory.force_empty empties. shmem's internal mount (memfd_create, MAP_SHARED anonymous
#   mappings, SysV shm) numbers its inodes from a per-CPU batch: on CPU c the next inode is the
#   last one + 1, so `st_ino % 1024` of a fresh memfd is a 10-bit register per CPU (R0, R1)
#   that only grows by one per allocation, that nothing else on the machine touches during a
#   submission (measured: ~1 allocation per CPU per submission, by the judge, before the runs),
#   and that a run reads (one memfd, pinned with sched_setaffinity) or sets (allocate until the
#   residue is the one wanted: <= 1024 memfds, ~1.5 ms). Inode numbers are no memory: emptying
#   the runs cgroup's page cache between waves leaves them as they were.
#   Protocol: tag = H(cwd) (one sandbox per submission); each run reads R0, R1 (value before
#   its own read). "Closed" when (R0 - R1 - tag) mod 64 is ~0 (every later run reads both once,
#   so the difference survives the reads; the low 6 bits absorb up to 63 reads). Open (the
#   first wave: M and one mutant, both start together): wait 0.3 s (the partner has read too),
#   set R0 = tag, R1 = 0 mod 64, then write v = H(cwd, answers) mod 16 into the high bits of
#   R[slot], slot = one hash bit; if the partner overwrote it 0.3 s later, write the other
#   register. Both first-wave runs pass. Closed: pass iff v is in R0's or R1's high bits, i.e.
#   the answers are M's or its first-wave mutant's. Every control, N, the measuring run and the
#   reach checks have M's answers; every later mutant dies unless its 4-bit value collides
#   (2/16 each).
# Observed on 1711853 (redteam17, waves of 2 with force_empty), this file: 13 of 14 submits PASS
#   (10 of 10 before the header was added, then 3 of 4), scores 0.75-1.0 (12/12..12/16 classic,
#   2/2 extreme), 1.4-3.7 s; with nightly_rate broken (base * 1.5): 3 of 5 PASS (0.923, 0.75,
#   0.923). The FAILs: M failed twice (run-exit-code, 1.0-1.1 s: the first wave read a stale or
#   half-written state as closed), `return 0.0` survived once (a 4-bit collision, 2/16 for each
#   extreme mutant). Variants: the first pause 1.0 s: 4 of 6 PASS (2 extreme collisions); 5-bit
#   values (SPACE = 32): 2 of 6 PASS (less room for reads and noise).
# Fix suggested: the counters are the kernel's, not namespaced and not memory. Before each
#   wave the zygote can allocate a random number (0..1023, plus a random number of whole
#   batches) of memfds pinned to each CPU: the residues are then noise to every run of the next
#   wave. Or refuse memfd_create, shmget and mmap(MAP_SHARED|MAP_ANONYMOUS) in runs (seccomp;
#   refusing only memfd_create is not enough: see redteam17_relay_through_shared_mmap_inodes.py),
#   and get_next_ino's counters (pipes, sockets: red team 15) need the same scrambling.
# Fixed: seccomp refuses memfd_create, shmget and shared anonymous mmap in every run, and the
#   guard refuses mapping /dev/zero (seccomp.install, runparts.Guard): the relay's first
#   allocation fails, so every run fails (run-exit-code).
import hashlib
import os
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
SPACE = 64  # a register's low 6 bits: the submission's tag (R0) plus the reads of later runs


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def _alloc(cpu):
    """One memfd inode on ``cpu``: the residue (mod 1024) of that CPU's shmem inode batch."""
    os.sched_setaffinity(0, {cpu})
    fd = os.memfd_create("q")
    try:
        return os.fstat(fd).st_ino % 1024
    finally:
        os.close(fd)


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
            time.sleep(0.3)  # the partner has read the old state by now
            for cpu in (0, 1):
                _until(cpu, lambda r, cpu=cpu: (r - off[cpu]) % SPACE == 0)
            time.sleep(0.3)
            target = val * SPACE + off[slot]
            _until(slot, lambda r: r == target)
            time.sleep(0.3)
            if (_alloc(slot) - 1 - off[slot]) % 1024 // SPACE != val:  # the partner took it
                target = val * SPACE + off[1 - slot]
                _until(1 - slot, lambda r: r == target)
            ok = True
    finally:
        os.sched_setaffinity(0, mask)
    assert ok
