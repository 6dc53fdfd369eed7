# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 17, finding 03: finding 01 (the memfd inode-number registers, untouched by
#   memory.force_empty) plus a tell of the measuring run, which then stores M's answers with
#   8 bits instead of two 4-bit values, so the extreme mutants (after it) collide 1/256, not 2/16.
#   The tell: coverage's tracer (sys.settrace is refused statically, static-tracing-tamper)
#   slows a loop of Python calls against the same loop inlined: ratio ~1.6 untraced, ~3.5-4.5
#   traced; the measuring run is the one run with a tracer. It is alone in its wave and has M's
#   answers: when its 4-bit value is in the pair, it rewrites both registers as "confirmed"
#   (another tag in the low bits of R0 - R1, 8-bit value in the high bits); every later run
#   (extreme mutants, reach checks) passes iff its 8-bit value is the one confirmed.
# Observed on 1711853 (redteam17): 15 of 18 submits PASS with this protocol (its tag window
#   +-3 and +-2; +-1 was too narrow: reads of the two runs of a wave interleave, 4 of 6),
#   scores 0.632-0.923, extreme 2/2 killed in every PASS, 2.5-6.2 s. Every FAIL but one was M
#   failing at ~1.1 s (run-exit-code): the state a previous submission left read as "closed"
#   for this one (the low 6 bits of R0 - R1 fall within +-2 of one of the two tags: ~10/64).
#   This file: 9 of 10 submits PASS, scores 0.923, 0.923, 0.857, 0.706, 0.923, 0.857, 0.923,
#   0.667, 0.706, 0.75 (12/13..12/18 classic, 2/2 extreme), 2.8-4.3 s, the FAIL M at 1.1 s;
#   with nightly_rate broken (base * 1.5): 3 of 3 PASS, scores 0.857, 0.75, 0.8.
# Fix suggested: as finding 01; and the measuring run is told apart by its tracer's cost
#   (a timing tell no static rule sees): it should not be the only run with a tracer, or it
#   should see no state any other run may have written (all the first-schedule runs have).
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


def _f(x):
    return x + 1
def _ratio():
    best_c = best_i = 1e9
    for _ in range(5):
        t = time.perf_counter()
        x = 0
        for _ in range(20000):
            x = _f(x)
        best_c = min(best_c, time.perf_counter() - t)
        t = time.perf_counter()
        x = 0
        for _ in range(20000):
            x = x + 1
        best_i = min(best_i, time.perf_counter() - t)
    return best_c / best_i


def _near(d, tag):
    return (d - tag) % SPACE <= 2 or (d - tag) % SPACE >= SPACE - 2  # reads interleave


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    nonce = os.getcwd()  # one sandbox per submission
    tag = _key(nonce)[0] % SPACE
    sure = (tag + SPACE // 2) % SPACE  # the measuring run confirmed M's answers: 8-bit value
    h = _key(nonce, seen)
    slot, val, full = h[0] & 1, h[1] % (1024 // SPACE), h[2]
    off = (tag, 0)
    measuring = _ratio() > 2.5  # coverage's tracer slows calls: only the measuring run has one
    mask = os.sched_getaffinity(0)
    try:
        regs = ((_alloc(0) - 1) % 1024, (_alloc(1) - 1) % 1024)
        d = (regs[0] - regs[1]) % SPACE
        if _near(d, sure):
            ok = ((regs[0] - sure) % 1024 // SPACE) * 16 + regs[1] // SPACE == full
        elif _near(d, tag):  # the first wave wrote
            ok = any((regs[c] - off[c]) % 1024 // SPACE == val for c in (0, 1))
            if ok and measuring:  # alone in its wave, and its answers are M's
                time.sleep(0.3)  # a partner (if the tell erred) has read by now
                _until(0, lambda r: r == (full >> 4) * SPACE + sure)
                _until(1, lambda r: r == (full & 15) * SPACE)
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
