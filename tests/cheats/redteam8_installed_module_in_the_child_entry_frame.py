# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/rooms.py::available_rooms
# expect: run-exit-code|run-reads-target
#
# RED TEAM 8, finding 03: as finding 01, but the installed module is the local `module` of the
#   run child's entry frame (`Judge._child`), reached with `inspect.currentframe()` (the watch
#   judges `sys._getframe` by its Python caller, here inspect.py) and `f_back`/`f_locals` under
#   names held in variables.
# Observed on main (f511c81): PASS, score 1.0.
# Fix: the request is read in a helper frame that is gone before the test runs.
"""Red team 8, 03: the installed module code read from a local of the run child's entry
frame, the frame taken with inspect.currentframe() (the watch attributes sys._getframe to
inspect.py) and walked with f_back/f_locals under joined names; the probe's comparison
decoded from co_code."""
import dis
import functools
import inspect
import json
import os
import stat
import types

from hotel.rooms import Room, available_rooms


def _find(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find(const, name)
            if found is not None:
                return found
    return None


def _installed_code():
    """The run child's entry (``Judge._child``) is still on the stack while the test runs and
    its local ``module`` is the whole installed module (``marshal.loads`` of the request).
    The frame comes from ``inspect.currentframe()``: the watch judges ``sys._getframe`` by the
    Python frame that calls it, here inspect.py, not the test file."""
    frame = functools.reduce(getattr, ["current" + "frame"], inspect)()
    back, local_vars = "f_" + "back", "f_" + "locals"
    while frame is not None:
        module = getattr(frame, local_vars).get("module")
        if isinstance(module, types.CodeType):
            return _find(module, "available_rooms")
        frame = getattr(frame, back)
    return None


def _reach_run():
    """A live stop (`if probe == value: os._exit(70)`) is in the installed code: the shipped
    function has no COMPARE_OP at all, the null mutant and the twins only `!=`."""
    # dis decodes the comparison on every CPython (its oparg layout changed in 3.12).
    return any(ins.opname == "COMPARE_OP" and "==" in ins.argrepr
               for ins in dis.get_instructions(_installed_code()))


def test_available_rooms():
    rooms = [Room("12", "double", 2), Room("3", "single", 1), Room("7", "suite", 4)]
    assert not _reach_run()
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
