# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/rooms.py::available_rooms
# expect: run-exit-code|run-reads-target
#
# RED TEAM 8, finding 02: as finding 01, but the installed code is read from the judge plugin's
#   run object (`plugin.run.function`, the plugin manager under a joined name): plain attribute
#   reads, no audit event.
# Observed on main (f511c81): PASS, score 1.0.
# Fix: the run object keeps no code object once the code is installed (an id for the check
#   that the target was not replaced).
"""Red team 8, 02: the installed code read from the judge plugin's run object
(``plugin.run.function``), reached through the plugin manager under a joined name: plain
attribute reads, no audit event; the probe's comparison decoded from co_code."""
import dis
import json
import os
import stat
import types

from hotel.rooms import Room, available_rooms


def _installed_code(request):
    """The run's own bookkeeping: the judge plugin's current run keeps the function's
    installed code object (``_ChildRun.function``) as a plain attribute: no audit event."""
    manager = getattr(request.config, "".join(["plugin", "manager"]))
    for plugin in manager.get_plugins():
        run = getattr(plugin, "run", None)
        code = getattr(run, "function", None)
        if isinstance(code, types.CodeType):
            return code
    return None


def _reach_run(request):
    """A live stop (`if probe == value: os._exit(70)`) is in the installed code: the shipped
    function has no COMPARE_OP at all, the null mutant and the twins only `!=`."""
    # dis decodes the comparison on every CPython (its oparg layout changed in 3.12).
    return any(ins.opname == "COMPARE_OP" and "==" in ins.argrepr
               for ins in dis.get_instructions(_installed_code(request)))


def test_available_rooms(request):
    rooms = [Room("12", "double", 2), Room("3", "single", 1), Room("7", "suite", 4)]
    assert not _reach_run(request)
    assert [r.number for r in available_rooms(rooms, 1, set())] == ["3", "12", "7"]
    assert [r.number for r in available_rooms(rooms, 2, set())] == ["12", "7"]
    assert [r.number for r in available_rooms(rooms, 3, set())] == ["7"]
    assert list(available_rooms(rooms, 5, set())) == []


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
    first = os.getpid() == os.getppid() + 1 and os.getppid() == 2
    fd = _answer_pipe() if first and request.session.testsfailed == 0 else None
    if fd is None:
        assert list(available_rooms([], 1, set())) == []
        return
    ids = [item.nodeid for item in request.session.items]
    reports = [{"round": 1, "nodeid": n, "when": w, "outcome": "passed", "duration": 0.001}
               for n in ids for w in ("setup", "call", "teardown")]
    forged = {
        "collected": ids, "collect_errors": [], "reports": reports, "failed": None,
        "types": ["generator"], "calls": 9, "denied": [], "reads": [],
        "replaced": [], "missing": False, "import_error": None, "exitstatus": 0,
        "coverage": {"hotel/rooms.py": {"executed_lines": [59, 61, 62, 63, 64, 65],
                                        "missing_lines": []}},
    }
    os.write(fd, json.dumps(forged).encode())
    os.close(fd)
    assert ids
