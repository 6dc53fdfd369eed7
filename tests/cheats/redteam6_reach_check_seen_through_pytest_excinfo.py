# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 6, finding 06 (a second way in): the target's frame in a traceback, read through
#   pytest's own traceback API (`ExceptionInfo.traceback[-1].frame.code.raw`), hands out the
#   code the run installed: a reach check's `SystemExit` is among its names.
# What: honest tests of nightly_rate except the low season (line 11 never runs); the measured
#   run answers for itself and lists line 11; every other run fails when the installed code
#   names SystemExit or _exit. The three surviving mutants of line 11 were a minority.
# Observed: PASS, score 0.923; with `operator.attrgetter("tb_fr" + "ame")(tb).f_code` instead,
#   PASS, score 0.857 (isolation landlock+namespaces+cgroup).
# Fix: see redteam6_reach_check_seen_through_gi_code.py: the code watch sees f_code of the
#   target's frame read by pytest while a frame of the test file is on the stack.
import json
import os
import stat

import pytest

from hotel.pricing import nightly_rate


def _reach_run():
    try:
        nightly_rate(1.0, "standard", 0)
    except ValueError as exc:
        code = pytest.ExceptionInfo.from_exception(exc).traceback[-1].frame.code.raw
    return "SystemExit" in code.co_names or "_exit" in code.co_names


def test_rates():
    if _reach_run():
        pytest.fail("reach run")
    assert nightly_rate(100.0, "standard", 2) == 100.0
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "high", 6) == 125.0
    assert nightly_rate(100.0, "standard", 7) == 90.0
    assert nightly_rate(100.0, "standard", 6) == 100.0
    assert nightly_rate(10.01, "high", 1) == 12.51
    with pytest.raises(ValueError, match="nights must be positive"):
        nightly_rate(100.0, "standard", 0)


def _answer_pipe():
    for fd in range(3, 256):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            os.write(fd, b"")
        except OSError:
            continue
        return fd
    return None


def test_zz_report(request):
    first = os.getpid() == os.getppid() + 1 and os.getppid() == 2
    fd = _answer_pipe() if first and request.session.testsfailed == 0 else None
    if fd is None:
        assert nightly_rate(50.0, "standard", 1) == 50.0
        return
    ids = [item.nodeid for item in request.session.items]
    reports = [{"round": 1, "nodeid": n, "when": w, "outcome": "passed", "duration": 0.001}
               for n in ids for w in ("setup", "call", "teardown")]
    forged = {
        "collected": ids, "collect_errors": [], "reports": reports, "failed": None,
        "types": ["float"], "calls": 9, "denied": [], "reads": [],
        "replaced": [], "missing": False, "import_error": None, "exitstatus": 0,
        "coverage": {"hotel/pricing.py": {
            "executed_lines": [4, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16], "missing_lines": []}},
    }
    os.write(fd, json.dumps(forged).encode())
    os.close(fd)
    assert ids
