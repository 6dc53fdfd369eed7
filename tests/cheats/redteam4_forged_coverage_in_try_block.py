# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/guests.py::parse_guest
# expect: run-report-tampered|coverage-lines
# Since each run is PID 2 of namespaces of its own (red team 13's fix), every run looks
#   the same to the pid test below, which found the measured run where pids counted up
#   across runs; there it fails on coverage-lines (no run forges: none is the measured one by pids).
#
# RED TEAM 4, finding 06: forged coverage of lines in a try/except block was never checked.
# What: honest tests of parse_guest that never pass a non-numeric "stays", so lines 56-57
#   (`except ValueError: stays = 0`) never run. In the measured run (the zygote's first child)
#   the last test writes its own answer listing lines 48-59 executed, every test passed; in
#   every other run it answers honestly. The reach check (`mutants.reach_mutants`) left out
#   every block inside `try`/`with` ("the code may catch SystemExit") and stopped only before
#   a block's *first* statement, so nothing proved that 56-57 ran; their classic mutants
#   survived but were a minority (7/9 killed, threshold 0.6).
# Observed: PASS, evidence covering 56-57, mutation score 0.778, isolation
#   landlock+namespaces+cgroup.
# Fix: blocks inside try/except/with are reach-checked with a stop nothing catches
#   (`os._exit`: the run crashes, which counts as killed), and each stop goes before the
#   block's *last* covered statement, so a statement that always raises cannot vouch for the
#   lines after it. The forged line 57 survives its stop: run-report-tampered.
import json
import os
import stat

import pytest

from hotel.guests import Guest, parse_guest


def test_parse():
    g = parse_guest({"name": " Ann ", "email": " ANN@X.ORG ", "stays": "3", "vip": "Yes"})
    assert (g.name, g.email, g.stays, g.vip) == ("Ann", "ann@x.org", 3, True)
    g = parse_guest({"name": "Bo", "email": "bo@x.org", "stays": "-2", "vip": "no"})
    assert (g.stays, g.vip) == (0, False)
    g = parse_guest({"name": "Cy", "email": "cy@x.org"})
    assert (g.stays, g.vip) == (0, False)
    g = parse_guest({"name": "Di", "email": "di@x.org", "stays": "", "vip": "1"})
    assert (g.stays, g.vip) == (0, True)
    assert isinstance(g, Guest)


def test_rejects():
    with pytest.raises(ValueError, match="without a name"):
        parse_guest({"name": "  ", "email": "a@b.org"})
    with pytest.raises(ValueError, match="invalid email"):
        parse_guest({"name": "Ann", "email": "nope"})


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
    # The measured run is the zygote's first child (PID 2 of the run's namespace).
    first = os.getpid() == os.getppid() + 1 and os.getppid() in (2, 3)  # the zygote (3: the judge forks a reader first)
    fd = _answer_pipe() if first and request.session.testsfailed == 0 else None
    if fd is None:
        assert parse_guest({"name": "Ed", "email": "ed@x.org", "stays": "7"}).stays == 7
        return
    ids = [item.nodeid for item in request.session.items]
    reports = [{"round": 1, "nodeid": n, "when": w, "outcome": "passed", "duration": 0.001}
               for n in ids for w in ("setup", "call", "teardown")]
    forged = {
        "collected": ids, "collect_errors": [], "reports": reports, "failed": None,
        "types": ["?"], "calls": 7, "denied": [], "reads": [],
        "replaced": [], "missing": False, "import_error": None, "exitstatus": 0,
        "coverage": {"hotel/guests.py": {
            "executed_lines": list(range(48, 60)), "missing_lines": []}},
    }
    os.write(fd, json.dumps(forged).encode())
    os.close(fd)
    assert ids
