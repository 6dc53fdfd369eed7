# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-too-slow|mutation-machinery-detected
#
# RED TEAM 24: a relay through the PID counter of the harness's PID namespace, read through a
#   descriptor of that namespace every run but the first inherits from the zygote.
#   - the leak: forkrun._zygote calls confine.own_pid_namespace_again() after its first fork,
#     which opens /proc/self/ns/pid (O_CLOEXEC: kept over fork, which is all a run gets) and
#     keeps it in confine._OWN_PID_NS. Every later run is forked with it (fd 21 here);
#     forkrun.own_descriptors keeps any descriptor whose link does not start with "/"
#     ("pid:[4026532419]"), and the run's init closes its own descriptors, not the run's;
#   - the read: ioctl(fd, NS_GET_PID_IN_PIDNS, pid) (nsfs, Linux 6.11+; seccomp allows every
#     ioctl) answers a pid of this run's namespace as the harness's namespace numbers it, so a
#     run reads its own pid there, or a fresh thread's: the counter every run's init, run and
#     threads take their pids from, for the whole submission;
#   - the write: every thread or process a run starts takes the next pid in each namespace
#     above it (cyclic, +1 each): a run moves the counter by n with n threads (cgroup pids.max
#     counts live tasks only). Nothing else moves it but the runs: 2 pids a run (init, run).
#   Relay (turns: flock on this test file's copy, which only this submission's runs see):
#   the first run forked (no descriptor) adds B1 + W1 d1 blind; the first wave's other run
#   (its own pid there < 64) reads the counter v: if v < B1 it sets it to B1 + S d2 and waits
#   for the blind one (M's time sets every run's time limit: M must not end before the blind
#   writer, or the writer is stopped mid-write), else it decodes d1 and sets it to
#   B + W1 d1 + S d2. Every later run reads its own pid there (no pid taken), decodes both
#   digits (its own drift: 2 pids a run, below S = 96) and passes iff its digest (one of 12,
#   of the answers on 28 inputs, salted with cwd) is one of them. The assert also refuses a
#   function whose 28 answers are not at least 3 distinct ones (kills constant mutants; by
#   itself, 1 of 20 classic mutants killed: FAIL mutation-score). No expected value anywhere.
# Observed on 82ff1cb (Linux 6.18.44 Firecracker guest, 2 CPUs, uid 0, cgroup v1,
#   landlock+namespaces+cgroup+page-cache, waves of 2, Python 3.11.7), this file (D = 12,
#   S = 96): PASS 14 of 14 submits (10 through submit_n.sh, 4 in fresh copies: scores 0.706-0.8);
#   with nightly_rate broken (high season base * 1.5): PASS 5 of 5 (0.857-0.923). The same
#   relay for tax_amount: PASS 3 of 3. Earlier versions included, 51 PASS of 56 submits, 14 of
#   18 broken (FINDINGS.md; the FAILs: a blind writer stopped by M's time limit, a too-slow
#   stage, digest collisions, a wait on os.py's lock, which another job's runs take too).
#   Control: the same file asserting only the 3 distinct answers FAILs mutation-score (1/20).
#   Once fixed (no descriptor), every run is "blind" and passes: mutation-pseudo-tested.
# Fix suggested: close every descriptor a run does not need before its code runs (a keep-list
#   in the run child, close_range over the rest; own_descriptors keeps unknown non-file
#   descriptors), and close confine._OWN_PID_NS in the run child right after the zygote's
#   fork (no child needs it). Defence in depth: refuse nsfs ioctls (type 0xB7, request &
#   0xFF00 == 0xB700) in seccomp._REFUSALS; a run needs none.
# Fixed by: the run's init closes the zygote's descriptor of the harness's namespace first
#   thing (confine.into_run_namespaces), a run keeps only pipes and sockets of what it
#   inherited (forkrun.own_descriptors: anything else becomes /dev/null), and seccomp refuses
#   every request of the namespace file system (ioctl type 0xB7, seccomp._REFUSALS): the
#   first read fails, and without it the test's own constancy check kills too few mutants
#   (mutation-score, 1 of 20 killed).
import fcntl
import hashlib
import os
import threading
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14), (100.0, "standard", 6), (100.0, "standard", 7),
         (100.0, "low", 7), (100.0, "high", 8), (-50.0, "high", 2), (1e-3, "high", 1),
         (0.015, "low", 1), (7.77, "HIGH", 3), (100.0, "", 1), (2.5, "high", 100)]
D, S = 12, 96  # digests; a digit's step (later runs take 2 pids each: init and run)
W1 = S * D  # the blind writer's digit
B1, B = 128, 256  # the blind writer's offset; where both digits start
NS_GET_PID_IN_PIDNS = 0x8004B708  # ioctl on a PID namespace's nsfs descriptor (Linux 6.11+)


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def _harness_ns():
    """A descriptor of the harness's PID namespace every run but the first inherits."""
    me = os.getpid()
    for fd in range(3, 256):
        try:
            return fd, fcntl.ioctl(fd, NS_GET_PID_IN_PIDNS, me)
        except OSError:
            continue
    return None, None


def _take(n):
    """Take n pids (in every PID namespace above this run: the harness's too)."""
    while n > 0:
        k = min(n, 100)
        ts = [threading.Thread(target=int) for _ in range(k)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        n -= k


def _now(fd):
    """The harness namespace's next pid, taken: a thread's pid there, read while it lives."""
    got, done = [], threading.Event()

    def hold():
        got.append(fcntl.ioctl(fd, NS_GET_PID_IN_PIDNS, threading.get_native_id()))
        done.wait()

    t = threading.Thread(target=hold)
    t.start()
    while not got and t.is_alive():
        pass
    done.set()
    t.join()
    return got[0]


def test_nightly_rate_is_stable():
    answers = [_observe(c) for c in CASES]
    seen = "|".join(answers)
    with open(__file__, "rb") as f:
        salt = hashlib.sha256(os.getcwd().encode() + f.read()).digest()
    d = hashlib.sha256(salt + seen.encode()).digest()[0] % D
    fd, own = _harness_ns()
    with open(__file__, "rb") as held:  # this copy of the test: its runs alone lock it
        fcntl.flock(held, fcntl.LOCK_EX)  # one run of a wave at a time
        if fd is None:  # the first run forked: blind, it adds its digit
            _take(B1 + W1 * d)
            ok = True
        elif own < 64:  # the first wave's other run
            v = _now(fd)
            if v < B1:  # the blind one has not written yet: it adds B1 + W1 * d1 later
                w = B1 + S * d
                _take(w - v - 1)
                # Wait for it, so this run (M, maybe) takes as long as it: M's time sets
                # every run's time limit, and the blind one must not be stopped mid-write.
                for _ in range(40):
                    fcntl.flock(held, fcntl.LOCK_UN)
                    time.sleep(0.2)
                    fcntl.flock(held, fcntl.LOCK_EX)
                    if _now(fd) > w + B1:
                        break
            else:
                d1 = (v - B1) // W1
                _take(B + W1 * d1 + S * d - v - 1)
            ok = True
        else:
            x = own - B  # this run's own pid there: no pid taken to read it
            ok = d in (x // W1, x % W1 // S)
    assert ok and len(set(answers)) > 2  # no expected value; a constant answer is refused
