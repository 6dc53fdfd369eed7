# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 19, finding 01: a relay through /proc/vmstat's `unevictable_pgs_mlocked`, a counter
#   of the whole machine that no cgroup empties (memory.reclaim on v2, force_empty on v1 leave it
#   as it was). It counts every page ever mlocked; nothing else on the machine mlocks during a
#   submission (0 before the first submit in the VM, and it moved only by what these runs
#   added). A run *adds* n to it with no ctypes: an anonymous private mmap with MAP_LOCKED
#   (0x2000) | MAP_POPULATE of n pages, closed at once (2048 pages a map within the default
#   8 MiB RLIMIT_MEMLOCK; seccomp refuses only shared anonymous maps). It *reads* it from
#   /proc/vmstat (global, shown by the run's own fresh /proc; the path is built from pieces so
#   the static /proc rule sees no literal). Only adds, so a field is "set" by adding
#   (target - value) mod 2**12 in one go.
#   Register layout mod 4096: tag (4 bits, H(cwd): one sandbox per submission) | slot A | slot B,
#   each slot v = H(cwd, answers) mod 15 + 1. A run that reads tag + a non-empty A is "late":
#   it passes iff its v is in A or B. Otherwise it is in the first wave (M and one mutant, both
#   start together): sleep 0.3 + 0.25 * (hash % 8) s so the partner reads before either
#   writes, then the first writer sets (tag, v, 0), the second (tag, A, v). Both first-wave
#   runs pass; every control, N, the measuring run and the reach checks have M's answers;
#   every later mutant dies unless its 4-bit v collides (about 2/15 each).
# Observed on b542c16 in the cgroup-v2 VM (/work/vm, Debian 6.1, TCG; caller alone in its
#   cgroup, isolation landlock+namespaces+cgroup+page-cache, waves on): this file 2 of 3
#   submits PASS (0.8, 0.923; the FAIL: `return 0.0` survived, a collision or a raced
#   write); with nightly_rate broken (base * 1.5): 1 of 1 PASS (0.8). Earlier drafts (6-bit
#   tag, slots of 4 and 5 bits written in 16-page or 2048-page maps): 3 of 6 PASS (0.75,
#   0.857, 0.857), broken 1 of 2 PASS (0.8). The same file with the adds disabled FAILs
#   (mutation-pseudo-tested): the register is what kills the mutants.
# Fixed by: every run reads the machine's counters in /proc (vmstat, stat, meminfo, zoneinfo,
#   ... and the pressure, fs and irq folders) as they were before the first run: the zygote
#   copies them once (confine.freeze_counters) and each run lays the copies over its fresh
#   /proc (confine._freeze_proc). The adds still happen; no later run sees them.
# Fix suggested: the vmstat counters are the kernel's, not namespaced and not memory: hide
#   /proc/vmstat (and /proc/zoneinfo, /proc/meminfo's Mlocked) from the runs (mask it in
#   each run's /proc, or refuse reading it in the guard and Landlock), and refuse MAP_LOCKED /
#   mlock / mlock2 / mlockall in runs (seccomp; mmap's flags & 0x2000), or set
#   RLIMIT_MEMLOCK to 0 for runs. Other global vmstat counters a run moves at will
#   (thp_fault_alloc with MADV_HUGEPAGE, pglazyfree with MADV_FREE, oom_kill, ...) are the same
#   kind: hiding the file closes the family, refusing mlock closes one register.
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
PAGE = mmap.PAGESIZE
WHERE = os.sep.join(["", "pr" + "oc", "vm" + "stat"])  # no literal for the static rule
KEY = "unevictable_pgs_" + "mlocked"
TAGB, VB = 4, 4  # register layout (mod 2**12): tag | slot A | slot B; small: a write is 1-2 maps
SPACE = 1 << (TAGB + 2 * VB)


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def _read():
    with open(WHERE) as f:
        for line in f:
            name, _, value = line.partition(" ")
            if name == KEY:
                return int(value)
    raise AssertionError("no counter")


def _add(n, chunk=[2048]):
    """The machine's count of pages ever mlocked grows by n: locked private anonymous maps."""
    while n > 0:
        k = min(n, chunk[0])
        try:
            m = mmap.mmap(-1, k * PAGE, flags=mmap.MAP_PRIVATE | 0x2000 | mmap.MAP_POPULATE)
        except OSError:
            chunk[0] = max(1, chunk[0] // 4)  # a lower RLIMIT_MEMLOCK
            continue
        m.close()
        n -= k


def _fields(r):
    r %= SPACE
    return r % (1 << TAGB), (r >> TAGB) % (1 << VB), r >> (TAGB + VB)


def _write(tag, a, b):
    """Move the register, in one go, to the next value whose fields are (tag, a, b)."""
    r = _read()
    want = tag | a << TAGB | b << (TAGB + VB)
    _add((want - r) % SPACE)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    cwd = os.getcwd()
    tag = hashlib.sha256(cwd.encode()).digest()[0] % (1 << TAGB)
    key = hashlib.sha256(f"{cwd}|{seen}".encode()).digest()
    v = key[0] % ((1 << VB) - 1) + 1
    low, a, b = _fields(_read())
    if low == tag and a:  # closed: the first wave wrote its answers
        assert v in (a, b)
        return
    time.sleep(0.3 + (key[1] % 8) * 0.25)  # the partner of this wave reads before either writes
    low, a, b = _fields(_read())
    if low != tag or not a:
        _write(tag, v, 0)  # first writer
    elif a != v and not b:
        _write(tag, a, v)
