# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|run-flaky|run-exit-code
# pending: pipes
#
# RED TEAM 15, finding 03: red team 14's relay through pipe inode numbers (one get_next_ino
#   counter for the machine) with a tell that works today: threading._profile_hook is set in
#   the measured run only (the 3.11 recorder's threading.setprofile); everything else is
#   redteam14_relay_through_pipe_inode_numbers.py unchanged.
# Observed on 9f2fd03: 5 of 5 submits PASS (scores 0.923, 0.8, 0.8, 0.75, 0.8; survivors are
#   digest collisions at 8 marks), 2.8-3.0 s; with nightly_rate broken 2 of 3 PASS (1.0), one
#   FAIL run-flaky (5/6 clean runs: the counter drifted). A gamble, as in round 14.
# Since the measuredlast defence (the measured run last, after every mutant) nothing relays the
#   answers, and where no run has the hook (3.12+: every run, 3.11: none) the file is a lottery
#   on the counter's position: 1 in MARKS (pending: pipes).
# Fix suggested: as finding 01 and 02: no tell (the measured run's profile hook shows as an
#   attribute and as a cost), and the measured run not first or not alone.
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
    if threading._profile_hook is not None:  # 3.11: only the measured run profiles
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
