"""The judge's processes, seen from a test running inside one of its runs."""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from pytest_quest import confine, forkrun
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger
from pytest_quest.protocol import DENIED_RECORD, READ_RECORD, EventKind
from pytest_quest.sandbox import RunResult, Sandbox, harness_spec, run

pytestmark = pytest.mark.slow

QUEST = "hotel/pricing.py::nightly_rate"
#: Prints what a run can see of its own process to the run's log, past pytest's capture
#: (no run may leave a file behind: red team 2, finding 01).
PROBE = '''
import hashlib, json, os, tempfile
from hotel.pricing import nightly_rate

def _sysv_segments():
    """SysV shared memory segments in sight, after making one (they outlive processes)."""
    try:
        with open("/proc/sysvipc/shm") as handle:
            seen = len(handle.read().splitlines()) - 1
    except OSError:
        return None
    import ctypes
    ctypes.CDLL(None).shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    return seen


def _nested_user_namespace():
    import ctypes, platform
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    tried = []
    if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
        return "made by unshare"
    tried.append(os.strerror(ctypes.get_errno()))
    child = libc.syscall(56 if platform.machine() == "x86_64" else 220, 0x10000000 | 17, 0, 0, 0, 0)
    if child == 0:  # a child in a user namespace of its own
        os._exit(0)
    if child > 0:
        os.waitpid(child, 0)
        return "made by clone"
    return tried + [os.strerror(ctypes.get_errno())]


def _open_for_writing(path):  # through libc: the kernel's answer, not the guard's
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.open(path.encode(), os.O_RDWR)
    if fd >= 0:
        os.close(fd)
        return "opened"
    return os.strerror(ctypes.get_errno())


def _touch(path, seconds=None):  # through libc: the kernel's answer (a mount's), not the guard's
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if not os.path.exists(path):
        return "absent"
    times = None if seconds is None else (ctypes.c_long * 4)(seconds, 0, seconds, 0)
    if libc.utimensat(-100, path.encode(), times, 0) == 0:
        return "touched"
    return os.strerror(ctypes.get_errno())


def _inodes_in_use():  # where the run's regular-file descriptors lie, but its own temp dir
    import stat
    found = []
    own = os.stat(tempfile.gettempdir()).st_dev
    for fd in range(3, 64):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_dev != own:
            vfs = os.fstatvfs(fd)
            found.append(vfs.f_files - vfs.f_ffree)
    return found


def _listing(folder):
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return "unlisted"


def test_probe(capfd):
    status = open("/proc/self/status").read()
    caps = [line.split()[1] for line in status.splitlines() if line.startswith("CapEff")]
    try:
        open(f"/proc/{os.getppid()}/mem", "rb").close()
        parent_mem = "readable"
    except OSError as exc:
        parent_mem = type(exc).__name__
    try:
        open("leak.txt", "w").close()
        sandbox_write = "written"
    except OSError as exc:
        sandbox_write = type(exc).__name__
    seen = {"pid": os.getpid(), "tmp": tempfile.gettempdir(), "home": os.environ["HOME"],
            "caps": caps[0] if caps else None, "parent_mem": parent_mem,
            "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
            "sandbox_write": sandbox_write,
            "counters": [hashlib.sha256(open(f"/proc/{name}", "rb").read()).hexdigest()
                         for name in ("vmstat", "stat", "meminfo")],
            "pgfault": "pgfault" in open("/proc/vmstat").read(),
            "pressure": os.listdir("/proc/pressure") if os.path.isdir("/proc/pressure") else [],
            "procs": sorted(int(n) for n in os.listdir("/proc") if n.isdigit()),
            "tmp_dev": os.stat(tempfile.gettempdir()).st_dev,
            "runs_dev": os.stat(os.path.dirname(tempfile.gettempdir())).st_dev,
            "sysv": _sysv_segments(),
            "ports": open("/proc/sys/net/ipv4/ip_local_port_range").read().split(),
            "nested_userns": _nested_user_namespace(),
            "devices": [_open_for_writing("/dev/zero"), _open_for_writing("/dev/null")],
            "runs_dir": _listing(os.path.dirname(tempfile.gettempdir())),
            # the zygote's folder of run dirs, beside the sandbox copy (the run's cwd)
            "runs_base": _listing(os.path.join(os.path.dirname(os.getcwd()), "tmp")),
            "runs_base_links": os.stat(os.path.join(os.path.dirname(os.getcwd()), "tmp")).st_nlink,
            # red team 64: the host's /dev/null (a device, and the mask over /etc/shadow) and
            # the pseudo-terminals every run shared kept what a run set in their times
            "times": [_touch(p) for p in ("/dev/null", "/etc/shadow", "/dev/zero")],
            # the mark a run before it left on its pseudo-terminals' ptmx, then its own mark
            "pts_seen": os.stat("/dev/pts/ptmx").st_mtime if os.path.exists("/dev/pts/ptmx") else 0,
            "pts": _touch("/dev/pts/ptmx", 12345),
            "inodes": _inodes_in_use(),
            "marks": [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("mark-")]}
    open(os.path.join(tempfile.gettempdir(), f"mark-{os.getpid()}-{id(seen)}"), "w").close()
    with capfd.disabled():
        print("SEEN " + json.dumps(seen), flush=True)
    import mmap
    mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x2000).close()  # locked
    assert nightly_rate(100.0, "standard", 2) == 100.0
'''


def _judged(project: Path, name: str, source: str, **overrides: Any) -> RunResult:
    """The harness's answer for ``source`` submitted as ``tests/quest/NAME`` for QUEST."""
    settings = load_settings(project).with_overrides(**overrides)
    quest = Ledger.load(Ledger.for_root(project).path).get(QUEST)
    test = f"tests/quest/{name}"
    box = Sandbox.create(settings, {test: source.encode()})
    try:
        return run(box, settings, harness_spec(settings, quest, test), 60, 120)
    finally:
        box.cleanup()


def test_each_run_is_a_fresh_process_with_a_private_temp_dir(project: Path) -> None:
    settings = load_settings(project).with_overrides(mutation=False, reruns=3)
    quest = Ledger.load(Ledger.for_root(project).path).get(QUEST)
    test = "tests/quest/test_probe.py"
    box = Sandbox.create(settings, {test: PROBE.encode()})
    try:
        result = run(box, settings, harness_spec(settings, quest, test), 60, 120)
        assert result.tampered is None and result.finished, result.output
        seen = [json.loads(line.split("SEEN ", 1)[1]) for line in result.output.splitlines()
                if "SEEN " in line]  # after pytest's progress dots, maybe
        leftovers = [p for d in (box.base / "tmp").iterdir() for p in d.iterdir()]
        leaked = (box.path / "leak.txt").exists()
    finally:
        box.cleanup()
    assert len(seen) == 3, result.output[-3000:]  # the measured run and two clean controls
    assert not leaked and {s["sandbox_write"] for s in seen} == {"PermissionError"}
    assert all(s["marks"] == [] for s in seen)  # no run finds what an earlier one left in its tmp
    if confine.detect().namespaces:  # each run is PID 2 of a PID namespace of its own
        assert {s["pid"] for s in seen} == {2}
        assert all(s["procs"] == [1, 2] for s in seen)  # its own /proc: its init and itself
        # its temp dir is a tmpfs of its own (fresh inode numbers) at a short path (a socket in
        # tmp_path fits), not the folder the zygote made
        assert all(s["tmp_dev"] != s["runs_dev"] for s in seen)
        assert {s["tmp"] for s in seen} == {confine.RUN_TMP}
        assert {s["sysv"] for s in seen} <= {0, None}  # its own IPC namespace: none of before
        # Red team 63: the zygote's folder of run dirs is covered by an empty tmpfs of the
        # run's own: its times no longer say when the runs before ended, nor its links how many.
        assert all(s["runs_base"] == [] and s["runs_base_links"] == 2 for s in seen)
        # Red team 64: no mount but the run's own keeps a time or a mode it sets; its
        # pseudo-terminals are an instance of its own: no run finds the mark one before it left.
        # Red team 65: its output file lies among the run dirs the zygote makes ahead and
        # removes as it reaps; that tmpfs reports no inode count, which told each run its place.
        assert all(s["inodes"] and set(s["inodes"]) == {0} for s in seen), [
            s["inodes"] for s in seen]
        erofs = os.strerror(errno.EROFS)
        assert all(set(s["times"]) <= {erofs, "absent"} for s in seen), [s["times"] for s in seen]
        if all(s["pts_seen"] for s in seen):
            assert {s["pts"] for s in seen} == {"touched"}
            assert all(s["pts_seen"] != 12345 for s in seen)
        # The machine's counters as they were before the first run, whatever runs did since
        # (red team 19: a locked page moved vmstat for the runs after it; each run's start
        # moves /proc/stat's fork count).
        assert all(s["counters"] == seen[0]["counters"] for s in seen)
        assert all(s["pgfault"] for s in seen)  # a copy, not an empty file
        assert {tuple(s["pressure"]) for s in seen} == {()}
        # Red team 20: ephemeral ports in a range whose width is each run's own (drawn from
        # 5,924), within the usual window; and no user namespace where a network namespace
        # would have the usual range again.
        ranges = [(int(s["ports"][0]), int(s["ports"][1])) for s in seen]
        assert all(low >= 32768 and high <= 60999 and high + 1 - low >= 16384
                   and (high + 1 - low) % 2 == 0 for low, high in ranges)
        assert len({high - low for low, high in ranges}) >= 2  # all three alike: 1 in 35 million
        # unshare is not a call a run may make; clone may, and the kernel has no room left.
        assert all(s["nested_userns"] == [os.strerror(errno.ENOSYS), os.strerror(errno.ENOSPC)]
                   for s in seen)
    else:
        assert len({s["pid"] for s in seen}) == 3
        assert {str(s["runs_dir"]) for s in seen} == {"unlisted"}  # no run finds a sibling's dir
        assert len({s["tmp"] for s in seen}) == 3
        assert all(s["tmp"].startswith(str(box.base / "tmp")) for s in seen)
    assert all(s["tmp"] == s["home"] for s in seen)
    assert leftovers == []  # every run's temp dir is gone once it ended
    assert [r["round"] for r in result.of(EventKind.ROUND_DONE)] == [1, 2, 3]
    if os.geteuid() == 0:  # a root run gives up every capability
        assert {s["caps"] for s in seen} == {"0000000000000000"}
    if confine.landlock_abi():  # red team 23: a shared mapping of a writable /dev/zero is shmem
        assert all(s["devices"] == [os.strerror(errno.EACCES), "opened"] for s in seen)
    assert {s["parent_mem"] for s in seen} <= {"PermissionError", "FileNotFoundError"}


#: Looks for the installed code of the target where a test finds it with no audit event: the
#: locals of every frame above it and the judge plugin's run object (red team 8, findings 02
#: and 03: `plugin.run.function`, the run child's local `module`). The scan is shown to work
#: on an object that does hold the code.
HOLDERS = '''
import inspect, json, types
from hotel.pricing import nightly_rate

def _holds(obj, depth=0):
    if isinstance(obj, types.CodeType):
        return obj.co_name == "nightly_rate" or (depth < 3 and any(
            _holds(c, depth + 1) for c in obj.co_consts))
    return False

def _scan(obj, where, found, seen, depth=0):
    if id(obj) in seen or depth > 4:
        return
    seen.add(id(obj))
    if _holds(obj):
        found.append(where)
    elif isinstance(obj, dict):
        for key, value in list(obj.items()):
            _scan(value, f"{where}[{key!r}]", found, seen, depth + 1)
    elif isinstance(getattr(obj, "__dict__", None), dict) and not isinstance(
            obj, (type, types.ModuleType, types.FunctionType)):
        _scan(vars(obj), where, found, seen, depth + 1)

def test_holders(request, capfd):
    found = []
    frame, seen = inspect.currentframe(), set()
    while frame is not None:
        _scan(frame.f_locals, f"frame {frame.f_code.co_name}", found, seen)
        frame = frame.f_back
    for plugin in request.config.pluginmanager.get_plugins():
        _scan(getattr(plugin, "run", None), "plugin.run", found, seen)
    works = []
    _scan({"held": types.SimpleNamespace(code=nightly_rate.__code__)}, "probe", works, set())
    with capfd.disabled():
        print("HELD " + json.dumps({"found": found, "works": works}), flush=True)
    assert nightly_rate(100.0, "standard", 2) == 100.0
'''


def test_no_frame_or_plugin_of_a_run_holds_the_installed_code(project: Path) -> None:
    result = _judged(project, "test_holders.py", HOLDERS, mutation=False, reruns=3)
    held = [json.loads(line.split("HELD ", 1)[1]) for line in result.output.splitlines()
            if "HELD " in line]
    assert len(held) == 3, result.output
    assert all(h["works"] for h in held), held  # the scan finds a holder where there is one
    # The measured run's recorder holds the shipped code it counts calls of; nothing else does.
    assert [[w for w in h["found"] if "recorder" not in w] for h in held] == [[], [], []]


def test_drop_capabilities_and_dumpable_in_a_fork() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        ok = forkrun.set_dumpable(False) and forkrun.drop_capabilities()
        status = Path("/proc/self/status").read_text()
        caps = next(line.split()[1] for line in status.splitlines()
                    if line.startswith("CapEff"))
        os.write(write, json.dumps([ok, caps]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        ok, caps = json.loads(handle.read())
    os.waitpid(pid, 0)
    assert ok is True and caps == "0000000000000000"


def _pool_test(method: str) -> str:
    """A test that maps the target over a multiprocessing pool of the given start method.

    The pool is closed and joined, not terminated: its workers end as they would anywhere
    (under our own suite's coverage they save their data as they leave)."""
    return ("import multiprocessing\nfrom hotel.pricing import nightly_rate\n\n"
            "def _rate(args):\n    return nightly_rate(*args)\n\n"
            "def test_rates_in_a_pool():\n"
            f"    pool = multiprocessing.get_context({method!r}).Pool(2)\n"
            "    try:\n"
            "        assert pool.map(_rate, [(100.0, 'standard', 2)]) == [100.0]\n"
            "    finally:\n"
            "        pool.close()\n"
            "        pool.join()\n")


@pytest.mark.skipif(not confine.detect().namespaces,
                    reason="needs namespaces for each run (its own /dev/shm)")
def test_multiprocessing_works_in_every_run(project: Path) -> None:
    # Its locks and pools need a writable /dev/shm: each run has one of its own.
    import coverage

    if coverage.Coverage.current() is not None:
        # Measuring pytest-quest itself follows every forked pool worker, which saves its data
        # as it leaves: under the whole suite on two cores a control run then overstayed.
        pytest.skip("not under the measurement of pytest-quest's own coverage")
    result = _judged(project, "test_pool.py", _pool_test("fork"), mutation=False, reruns=2)
    assert [r["outcome"] for r in result.of(EventKind.REPORT) if r["when"] == "call"] == \
        ["passed"], result.output
    (control,) = [r for r in result.of(EventKind.ROUND_DONE) if r["round"] == 2]
    assert "problem" not in control, control


@pytest.mark.skipif(not confine.landlock_abi(), reason="needs Landlock (the target is hidden)")
def test_a_spawn_pool_is_refused_at_once(project: Path) -> None:
    # Its workers are new Pythons that cannot import the hidden target: the pool restarted
    # them until the run timed out (red team 14). Now the start fails at once and says why.
    result = _judged(project, "test_spawn.py", _pool_test("spawn"), mutation=False, reruns=1)
    assert result.seconds < 30
    (denied,) = [d["what"] for d in result.of(EventKind.DENIED)]
    assert "get_context('fork')" in denied


def test_a_run_that_hangs_is_killed_and_the_next_one_still_runs(project: Path) -> None:
    # Runs cannot tell each other apart by pids (each is PID 2 of its own namespaces): the
    # clean controls are the runs that do not measure the target's coverage.
    source = ("import time\nimport coverage\nfrom hotel.pricing import nightly_rate\n\n"
              "def test_rate():\n    assert nightly_rate(100.0, 'standard', 2) == 100.0\n"
              "    current = coverage.Coverage.current()\n"
              "    include = current.config.run_include or [] if current else []\n"
              "    if not any('pricing' in p for p in include):\n"
              "        time.sleep(30)\n")
    result = _judged(project, "test_hang.py", source, mutation=False, reruns=2)
    (control,) = [r for r in result.of(EventKind.ROUND_DONE) if r["round"] == 2]
    assert control["problem"].startswith("a clean control run timed out after")
    assert result.finished and result.seconds < 30


def test_zygote_children_listing_finds_only_direct_children() -> None:
    pid = os.fork()
    if pid == 0:
        os.read(os.open(os.devnull, os.O_RDONLY), 1)
        os._exit(0)
    try:
        assert pid in forkrun._children(os.getpid())
    finally:
        os.waitpid(pid, 0)
    assert os.getpid() not in forkrun._children(os.getpid())


def test_ending_a_run_removes_a_tree_deeper_than_the_recursion_limit(tmp_path: Path) -> None:
    """A run may leave a very deep or unreadable tree in its folder; the zygote must survive it."""
    import subprocess
    import sys

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    deep = os.open(run_dir, os.O_RDONLY)
    for _ in range(sys.getrecursionlimit() + 200):
        os.mkdir("d", dir_fd=deep)
        inner = os.open("d", os.O_RDONLY, dir_fd=deep)
        os.close(deep)
        deep = inner
    os.close(deep)
    (run_dir / "locked").mkdir()
    (run_dir / "locked" / "f").write_text("x")
    (run_dir / "locked").chmod(0)
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    forkrun._end(child.pid, str(run_dir))
    assert child.poll() is not None  # killed and reaped
    assert not run_dir.exists()


HEARD = '''
import unittest

import pytest

from hotel.pricing import nightly_rate

AT_IMPORT = nightly_rate(100.0, "standard", 1)


@pytest.fixture
def weekly():
    return nightly_rate(100.0, "standard", 7)


def test_rate(weekly):
    assert AT_IMPORT == 100.0 and weekly == 90.0
    assert nightly_rate(100.0, "high", 1) == 125.0
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)


class RateCase(unittest.TestCase):
    def test_low(self):
        self.assertEqual(nightly_rate(100.0, "low", 1), 80.0)
'''


def test_the_measured_run_hears_every_call_of_the_target_a_test_makes(project: Path) -> None:
    # At import, in a fixture, in a test and in a unittest case: five calls, all counted,
    # with the one builtin type returned (the raise says nothing) however the recorder
    # listens (sys.monitoring, or the profile hook within its windows on 3.11).
    result = _judged(project, "test_heard.py", HEARD, max_mutants=2, reruns=1)
    (mutation,) = result.of(EventKind.MUTATION)
    assert mutation["calls"] == 5, result.output
    assert mutation["zero_types"] == ["float"]


def test_shipped_files_are_the_target_and_every_copy_a_run_could_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 9, finding 02: what a run hides (the target's file, a copy installed in
    site-packages and its bytecode), and nothing else of the package."""
    sandbox, site = tmp_path / "sandbox", tmp_path / "site"
    for root in (sandbox, site):
        (root / "hotel" / "__pycache__").mkdir(parents=True)
        (root / "hotel" / "pricing.py").write_text("X = 1\n")
        (root / "hotel" / "rooms.py").write_text("Y = 1\n")
    for name in ("pricing.cpython-311.pyc", "pricing_extra.cpython-311.pyc",
                 "rooms.cpython-311.pyc"):
        (site / "hotel" / "__pycache__" / name).write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(sandbox), str(site), str(tmp_path / "gone")])
    found = forkrun.shipped_files("hotel.pricing", str(sandbox / "hotel" / "pricing.py"))
    assert found == tuple(sorted(str(p) for p in (
        sandbox / "hotel" / "pricing.py", site / "hotel" / "pricing.py",
        site / "hotel" / "__pycache__" / "pricing.cpython-311.pyc")))
    package = forkrun.shipped_files("hotel", str(sandbox / "hotel" / "__init__.py"))
    assert package == (str(sandbox / "hotel" / "__init__.py"),)


@pytest.mark.slow
def test_a_run_gets_descriptors_of_its_own_for_what_it_inherited(tmp_path: Path) -> None:
    """Red team 12: descriptors inherited from the judge share one open file description
    with every run (its locks, its offset; the log's size), so the measured run left its
    answers there for the runs after it. Red team 24: a descriptor of the harness's PID
    namespace translated a run's pids into it (a counter every run moves); an event fd is
    one counter for every run that holds it."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shared = os.open(tmp_path / "shared.txt", os.O_RDWR | os.O_CREAT)
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    namespace = os.open("/proc/self/ns/pid", os.O_RDONLY)
    counter = os.eventfd(0)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            forkrun.own_descriptors(forkrun.open_run_output(str(run_dir)))
            seen = {n: os.readlink(f"/proc/self/fd/{n}")
                    for n in (1, 2, shared, folder, namespace, counter)}
            seen["pipe"] = os.readlink(f"/proc/self/fd/{write}")[:6]
            os.write(1, b"to the run's own output\n")
            os.write(write, json.dumps(seen).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        seen = json.loads(handle.read())
    os.waitpid(pid, 0)
    for fd in (shared, folder, namespace, counter):
        os.close(fd)
    own = str(run_dir / forkrun.RUN_OUTPUT)
    assert seen == {"1": own, "2": own, str(shared): os.devnull, str(folder): str(tmp_path),
                    str(namespace): os.devnull, str(counter): os.devnull, "pipe": "pipe:["}
    assert (run_dir / forkrun.RUN_OUTPUT).read_text() == "to the run's own output\n"


def test_the_end_of_a_runs_output_goes_to_the_judge(tmp_path: Path) -> None:
    (tmp_path / forkrun.RUN_OUTPUT).write_bytes(b"x" * forkrun.MAX_RUN_OUTPUT + b"THE END\n")
    out = forkrun._run_output(str(tmp_path))
    assert out.endswith(b"THE END\n") and len(out) == forkrun.MAX_RUN_OUTPUT
    assert forkrun._run_output(str(tmp_path / "gone")) == b""  # a run that left no output


def test_the_judge_writes_a_runs_output_the_zygote_sent(capfd: pytest.CaptureFixture[str]
                                                        ) -> None:
    """The zygote sends a run's output (``O``, its length, the bytes) before the run's end; the
    judge writes it to its log on the way to the next message: a page of the log the zygote
    wrote was charged to the runs cgroup, dirty, and emptying that cgroup's page cache waited
    for its write-back before every wave (docs/mutation.md)."""
    ours, theirs = socket.socketpair()
    try:
        zygote = forkrun.Zygote(0, ours)
        said = b"E" * 70000 + b" the run said this\n"  # more than one read of the socket
        theirs.sendall(forkrun._MESSAGE.pack(b"O", len(said), 0.0) + said
                       + forkrun._MESSAGE.pack(b"E", 42, 1.5))
        assert zygote._message(5.0) == (b"E", 42, 1.5)
        assert capfd.readouterr().out == said.decode()
        assert zygote._message(0.01) == (b"", 0, 0.0)  # nothing more: no message
    finally:
        ours.close()
        theirs.close()


def test_the_zygote_sends_a_runs_output_and_writes_none(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The zygote reaps a run and sends the end of its output, then its end; it writes nothing
    to the log itself (the judge does, outside the runs cgroup)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / forkrun.RUN_OUTPUT).write_bytes(b"what the run printed\n")
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    ours, theirs = socket.socketpair()
    try:
        while True:  # until the child has ended (a zombie for _reap to collect)
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
        forkrun._reap({pid: str(run_dir)}, theirs)
        assert capfd.readouterr().out == ""  # the zygote wrote nothing
        zygote = forkrun.Zygote(0, ours)
        tag, number, _clock = zygote._message(5.0)
        assert (tag, number) == (b"E", pid)
        assert capfd.readouterr().out == "what the run printed\n"  # written by the judge side
        assert not run_dir.exists()
    finally:
        ours.close()
        theirs.close()


def test_ancestors_are_the_proc_folders_up_to_pid_1() -> None:
    """Red team 13, finding 02: a run read its reaper's counts of reaped children's faults; the
    hiding layer hides every ancestor's /proc folder (the zygote, the judge, PID 1)."""
    found = forkrun.ancestors()
    assert found[0] == f"/proc/{os.getppid()}"
    assert found[-1] == "/proc/1" or len(found) == 16
    assert f"/proc/{os.getpid()}" not in found


def test_thread_start_retries_a_refused_settrace() -> None:
    # CPython 3.11 refuses a settrace while another thread's is under way (the measured run's
    # audit hooks let threads switch there); a thread start must retry, not die.
    calls: list[Any] = []

    def install(function: Any) -> None:
        calls.append(function)
        if len(calls) < 3:
            raise RuntimeError("Cannot install a trace function while another trace function "
                               "is being installed")

    forkrun._retry(install, print)
    assert calls == [print, print, print]

    def broken(_function: Any) -> None:
        raise RuntimeError("something else")

    with pytest.raises(RuntimeError, match="something else"):
        forkrun._retry(broken, print)
    proxy = forkrun._RetryingSys(sys)
    assert proxy.maxsize == sys.maxsize  # everything else is the real module's
    proxy.setprofile(None)
    proxy.settrace(sys.gettrace())  # puts back what was there (our own suite's tracer, maybe)


def test_each_wave_waits_a_random_pause_as_wide_as_the_test_code(project: Path) -> None:
    from tests.test_cheat_corpus import runs_go_in_waves

    if not runs_go_in_waves():
        pytest.skip("needs a runs cgroup whose page cache can be emptied (runs in waves)")
    source = ("import time\nimport pytest\nfrom hotel.pricing import nightly_rate\n\n"
              "def test_rate():\n    time.sleep(0.2)\n"
              "    assert nightly_rate(100.0, 'standard', 2) == 100.0\n"
              "    assert nightly_rate(100.0, 'high', 2) == 125.0\n"
              "    assert nightly_rate(100.0, 'low', 7) == 72.0\n"
              "    with pytest.raises(ValueError):\n        nightly_rate(100.0, 'low', 0)\n")
    result = _judged(project, "test_slow.py", source)
    (mutation,) = result.of(EventKind.MUTATION)
    runs = len(mutation["order"]) + len(mutation.get("extreme", []))
    # Every pause after the first wave is uniform up to at least the 0.2 s every run slept
    # (about 10 of them here: their sum is below 0.3 s about once in 10,000), and at most as
    # wide as the slowest run's test code.
    assert 0.3 < mutation["paused"] < runs * 2.0, mutation


def test_what_the_hooks_wrote_before_a_cut_is_read_line_by_line() -> None:
    read = READ_RECORD + b"the target's __code__".hex().encode() + b"\n"
    denied = DENIED_RECORD + b"writing /etc".hex().encode() + b"\n"
    flight = types.SimpleNamespace(data=bytearray(read + denied + b'{"collec'))
    assert forkrun._found_before(flight, "run 1") == {  # type: ignore[arg-type]
        "reads": ("the target's __code__",), "denied": ("writing /etc",)}
    # A half-written record is left out; a line the hooks did not write leaves nothing.
    flight.data = bytearray(read + READ_RECORD + b"7468")
    assert forkrun._found_before(flight, "run 1") == {  # type: ignore[arg-type]
        "reads": ("the target's __code__",)}
    flight.data = bytearray(b"print from the test\n")
    assert forkrun._found_before(flight, "run 1") == {}  # type: ignore[arg-type]


def test_the_measured_files_read_ahead_make_the_same_report(tmp_path: Path) -> None:
    # The judge reads the measured files while the measuring run runs (one core is free then)
    # and the report after it only adds the run's lines: the reporters read ahead are the
    # ones used, and the report is what coverage.py would make.
    import io

    import coverage
    from coverage.jsonreport import JsonReporter

    source = tmp_path / "m.py"
    source.write_text("def f(a):\n    if a:\n        return 1\n    return 2\n", encoding="utf-8")
    name = str(source)

    def report(ready: bool, then: str | None = None) -> dict[str, Any]:
        cov = coverage.Coverage(data_file=None, config_file=False)
        cov.get_data()
        reporters = {name: cov._get_file_reporter(name)} if ready else {}
        for reporter in reporters.values():
            reporter.lines()
            # as Judge._prepare_report: the functions and classes kept too
            reporter.code_regions = forkrun._kept(tuple(reporter.code_regions()))
        if then is not None:  # the file changes once read
            source.write_text(then, encoding="utf-8")
        cov.get_data().add_lines({name: [1, 2, 3]})
        out = io.StringIO()
        with forkrun._reporters(cov, reporters):
            JsonReporter(cov).report([name], out)
        assert "_get_file_reporter" not in vars(cov)  # coverage.py's own again
        return dict(json.loads(out.getvalue())["files"][name])

    fresh = report(ready=False)
    assert fresh["executed_lines"] == [1, 2, 3] and fresh["missing_lines"] == [4]
    ahead = report(ready=True)
    assert ahead == fresh
    # read again at the report, the file would have no statements and no function
    assert report(ready=True, then="") == fresh
