# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|run-exit-code
# pending: pipes
#
# RED TEAM 14, finding 04: a relay through a machine-wide kernel counter no namespace splits:
#   the inode numbers of pipes (pipefs takes them from get_next_ino(), one counter for the whole
#   machine, handed out to each CPU in batches of 1024). The measured run (told by the 3.11
#   proxy, as in finding 03) makes pipes until the counter sits at mark * STEP + 3000 within a
#   cycle of STEP * MARKS (STEP 12,000, MARKS 8: at most ~100k pipes, 2-3 s in a run); a later
#   run makes one pipe and checks st_ino // STEP % MARKS == its own mark. Other processes on the
#   machine move the counter too (a few hundred a second here, plus every run's own pipes), and
#   a CPU's batch can hand out numbers up to ~2k below the target: so it is a gamble, won often.
# Observed on e6275ad (2 CPUs, other work running): 7 submits: 5 PASS (scores 0.8, 0.857, 0.8;
#   with nightly_rate broken: 0.923, 0.923; survivors are digest collisions at 8 marks), 2 FAIL
#   run-flaky (5/6 clean runs: the counter drifted past a bucket). 3.6-6.3 s a submit. With STEP
#   50,000 and 32 marks: FAIL mutation-too-slow (a pipe costs ~27 us in a run: 21 s measured run).
# Fix suggested: no namespace can split this counter. Give the measured run no tell and not the
#   first place (finding 03; done: measuredlast), or refuse what moves it cheaply in large numbers (pipe2, socket,
#   eventfd, memfd ... all take get_next_ino or similar): not practical. A cap on the measured
#   run's duration relative to the others (it may already be 10x) would raise the cost.
# Stopped here only because the tell it used is gone (every run has the retrying threading._sys
#   on 3.11, none on 3.12+). Where no run takes the first branch, the file is a lottery: it
#   PASSes when the counter happens to sit in the bucket the shipped answers' digest names, 1 in
#   MARKS (CI on 3.12 and 3.13 once won it twice in a row). The channel is open: the measured run can still tell it is measured (coverage's tracer is
#   set), and no namespace splits the machine's inode counter (docs/security.md, residual risks).
import hashlib
import os
import threading

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]
STEP = 12_000  # inode numbers per mark: more than the machine takes during the later runs
MARKS = 8


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def _ino():
    r, w = os.pipe()
    try:
        return os.fstat(r).st_ino
    finally:
        os.close(r)
        os.close(w)


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    mark = int.from_bytes(hashlib.sha256(seen).digest()[:4], "big") % MARKS
    if type(threading._sys).__name__ != "module":  # 3.11: only the measured run has the proxy
        ino = _ino()
        cycle = STEP * MARKS
        target = (ino // cycle + 1) * cycle + mark * STEP + 3000
        while ino < target:
            for _ in range(min(target - ino, 20_000)):
                r, w = os.pipe()
                os.close(r)
                os.close(w)
            ino = _ino()
        return
    assert _ino() // STEP % MARKS == mark
