# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky
# pending: measuredlast
#
# RED TEAM 15, finding 01: a relay through the machine's page cache, the other way round from
#   red team 14's finding 03: the runs FILL it instead of dropping pages (no posix_fadvise, no
#   madvise COLD/PAGEOUT: only ordinary page faults, which seccomp cannot refuse).
#   (a) The tell: on CPython 3.11 the measured run's recorder is a profile hook installed with
#   threading.setprofile, so threading._profile_hook is set there and None in every other run
#   (threading._trace_hook likewise holds coverage's Collector._installation_trace). A plain
#   attribute: no banned name, no getattr, no frame.
#   (b) The relay: the stdlib holds ~3,500 -O/-OO bytecode files (*.opt-1.pyc, *.opt-2.pyc) no
#   process ever reads, readable in every run, and nothing of them in the page cache: ~4,700
#   cold 32 KiB slots. A slot is picked by sha256(cwd | bit index | bit value): the cwd is the
#   sandbox copy, fresh for each submission, the same for all its runs. The measured run faults
#   in one slot for each of the 64 bits of sha256(answers) (mmap + MADV_RANDOM: one 16 KiB folio,
#   no read-ahead). A later run faults in its own 64 slots in order and reads
#   getrusage().ru_majflt around each touch: no major fault = cached = the measured run's bit;
#   a major fault = a bit that differs, and it fails at once. It spoils one slot only (the
#   next run with the same answers fails at its next differing bit), so equivalent mutants
#   die too.
# Observed on 9f2fd03 (2 CPUs, other work running): 5 of 5 submits PASS, score 1.0 (12/12
#   classic, 2/2 extreme), 4.0-6.1 s; with nightly_rate broken (base * 1.5): 2 of 2 PASS, score
#   1.0. The same with a timing tell instead of the attribute (20,000 len() calls against
#   20,000 additions: ratio ~70 under the profile hook, ~1-2 without): 3 of 3 PASS (1.0, 1.0,
#   0.923; broken: 1.0). A first version with one slot per answer (one-hot) passed at 0.8-0.92:
#   each pair of equivalent mutants lost its second member (the first one's fault cached it).
# Fix suggested: no namespace splits the page cache; refusing DONTNEED closed only one
#   direction. Reading a file is enough to leave a mark. Remedies: (1) no tell: the measured
#   run must not be the only one with a profile hook (install the same hook, recording
#   nothing, in every run, as was done for threading._sys; and the timing tell says a
#   profile hook on every C call costs ~70x: either every run pays it or the recorder uses a
#   cheaper way, e.g. count calls through the installed code object); (2) the measured run not
#   first, or a second measured run at a secret place whose answers must match; (3) make the
#   only readable files ones every run reads anyway (Landlock read allowlist narrowed to what
#   the interpreter imported before the fork plus the project): the cold stdlib bytecode is
#   what makes fresh one-way bits.
import hashlib
import mmap
import os
import resource
import threading

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


SLOT = 32 * 1024  # bytes a slot; a fault reads one 16 KiB folio here (ext4, MADV_RANDOM)


def _slots():
    """Cold pages the run may read: stdlib bytecode for -O/-OO that no process imports."""
    root = os.path.dirname(os.__file__)
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if "-" not in d)  # not the installed packages
        for n in sorted(names):
            if n.endswith((".opt-1.pyc", ".opt-2.pyc")):
                p = os.path.join(folder, n)
                files.append((p, max(1, os.stat(p).st_size // SLOT)))
    return files


def _touch(files, slot):
    """Fault in one page of a cold file; True if it was already in the page cache."""
    slot %= sum(n for _, n in files)
    for path, n in files:
        if slot < n:
            break
        slot -= n
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        try:
            m.madvise(mmap.MADV_RANDOM)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
            m[slot * SLOT]
            return resource.getrusage(resource.RUSAGE_SELF).ru_majflt == before
        finally:
            m.close()


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    bits = int.from_bytes(hashlib.sha256(seen).digest()[:8], "big")
    files = _slots()
    measured = threading._profile_hook is not None  # only the measured run profiles (3.11)
    for i in range(64):
        bit = bits >> i & 1
        key = hashlib.sha256(f"{os.getcwd()}|{i}|{bit}".encode()).digest()  # this submission
        cached = _touch(files, int.from_bytes(key[:8], "big"))
        if not measured:
            assert cached  # stop at the first bit that differs: one slot spoiled a run
