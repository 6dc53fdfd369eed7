# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|mutation-too-slow
# pending: runns
#
# RED TEAM 13, finding 03 (documented open channel, measured for the record): the pid relay.
#   Pids count up in the harness's PID namespace; a run is the zygote's child, so
#   os.getpid() - os.getppid() - 1 is the number of pids taken since the zygote started. The
#   measured run (offset 0) takes mark * 32 pids (mark = 1 + a 6-bit digest of the function's
#   answers: posix_spawn of /bin/true, or threads, which take pids as well); each later run's
#   offset is (runs before it, < 32) + mark * 32, so offset // 32 is the measured run's mark.
#   os._exit / os.kill in a forked child are refused by static-process-exit (even under getattr),
#   so the forks are spawns; threads are cheaper.
# Observed on main (59d7164): PASS, score 1.0 (spawn and thread); one thread run: 0.923 (one
#   digest collision at 64 marks). Mark 38: 1216 pids; a submit took 3.5 s with spawns, 2.2-2.9 s
#   with threads, against 1.9 s for good_nightly_rate.
# Fixed: each run is PID 2 of PID, mount, IPC and network namespaces of its own, with a
#   fresh /proc and a tmpfs of its own as its temp dir (confine.into_run_namespaces,
#   confine.enter_run): no counter outlives a run. Skipped where there are no namespaces.
#   Every run now believes it is the first and spends the time the first one did: on a
#   loaded machine that is mutation-too-slow.
import hashlib
import os
import threading

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
STEP = 32   # pids per mark: more than the runs of a stage
MARKS = 64
HOW = "spawn"


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _use_pids(count):
    for _ in range(count):
        if HOW == "thread":
            t = threading.Thread(target=int)
            t.start()
            t.join()
        else:
            os.waitpid(os.posix_spawn("/bin/true", ["true"], {}), 0)  # leaves at once


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = 1 + int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % MARKS
    offset = os.getpid() - os.getppid() - 1   # runs and pids before this one
    if offset == 0:  # the zygote's first child: the measured run, shipped code
        _use_pids(mark * STEP)
        return
    assert offset // STEP == mark
