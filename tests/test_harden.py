"""The unconfined parent and the walls around a run (red-team findings 02 03 09 10 13 15 17 18).

Each test reproduces the attack with real processes: a test file run by the
real harness in a real sandbox (``sandbox.run``), or a process confined by the
real launcher. Tests that need a kernel feature skip with its name where it is absent.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_quest import cgroups, confine, safeio, sandbox
from pytest_quest.config import Settings, load_settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.ledger import Ledger
from pytest_quest.protocol import EventKind
from pytest_quest.sandbox import RunResult, Sandbox, pytest_args
from pytest_quest.submission import _raise_env_fault

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"
ISOLATION = confine.detect()
needs_kernel = pytest.mark.skipif(
    not ISOLATION.kernel, reason="needs kernel confinement (Landlock or namespaces)")
needs_namespaces = pytest.mark.skipif(
    not ISOLATION.namespaces,
    reason=f"needs user+mount+PID+network namespaces ({ISOLATION.namespaces_error})")


def _suite(settings: Settings, test: str, box: Sandbox | None = None,
           timeout: float = 60.0) -> tuple[RunResult, Sandbox]:
    """Run ``test`` (as tests/test_attack.py) the way scan's baseline does: guard off."""
    box = box or Sandbox.create(settings, {"tests/test_attack.py": test.encode()})
    spec = replace(sandbox.harness_spec(settings),
                   pytest_args=tuple(pytest_args("-q", "--tb=short", "tests/test_attack.py")))
    return sandbox.run(box, settings, spec, timeout), box


@pytest.fixture
def settings(project: Path) -> Settings:
    return load_settings(project)


# ------------------------------------------------------------------- safeio
def test_safeio_refuses_symlinks_fifos_and_devices(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("SECRET")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    for name in ("link", "fifo", "zero"):
        with pytest.raises(safeio.UnsafeFileError):
            safeio.read_regular(tmp_path / name, 100)
        assert safeio.hash_regular(tmp_path / name, 100) is None
    with pytest.raises(safeio.UnsafeFileError):
        safeio.read_regular("/dev/null", 100)
    with pytest.raises(FileNotFoundError):
        safeio.read_regular(tmp_path / "missing", 100)


def test_safeio_reads_at_most_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"a" * 50 + b"b" * 50)
    assert safeio.read_regular(path, 100) == (b"a" * 50 + b"b" * 50, True)
    assert safeio.read_regular(path, 10) == (b"a" * 10, False)
    assert safeio.read_regular(path, 10, tail=True) == (b"b" * 10, False)
    assert safeio.hash_regular(path, 100) == sandbox.sha256(path.read_bytes())
    assert safeio.hash_regular(path, 99) is None  # too big to read: changed


def test_create_new_never_opens_what_was_planted(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    canary.write_text("sings")
    (tmp_path / "output.txt").symlink_to(canary)
    with pytest.raises(FileExistsError):
        safeio.create_new(tmp_path / "output.txt", b"pwned")
    assert canary.read_text() == "sings"
    os.close(safeio.create_new(tmp_path / "fresh", b"ok"))
    assert (tmp_path / "fresh").read_bytes() == b"ok"
    assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o600


# -------------------------------------------- 02, 18: the private dir is out of sight
PRIVATE = """
import json, os

def test_look_around():
    base = os.path.dirname(os.getcwd())
    try:
        seen = {{"listing": sorted(os.listdir(base))}}
    except OSError as exc:  # Landlock: the folder holding the sandbox is not readable
        seen = {{"listing": exc.strerror}}
    try:
        with open({spec!r}) as handle:
            seen["spec"] = handle.read()[:20]
    except OSError as exc:
        seen["spec"] = exc.strerror
    try:
        os.symlink({canary!r}, os.path.join({private!r}, "planted"))
        seen["planted"] = "yes"
    except OSError as exc:
        seen["planted"] = exc.strerror
    with open("seen.json", "w") as handle:
        json.dump(seen, handle)
"""


def _landlock_alone() -> confine.Isolation:
    return confine.Isolation(system="Linux", landlock_abi=confine.landlock_abi(),
                             namespaces=False, namespaces_error="switched off for this test")


@pytest.mark.slow
@needs_kernel
@pytest.mark.parametrize("layers", ["best", "landlock-alone"])
def test_the_run_neither_sees_nor_writes_its_private_dir(settings: Settings, tmp_path: Path,
                                                         layers: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    if layers == "landlock-alone":
        if confine.landlock_abi() < 1:
            pytest.skip("needs Landlock (Linux >= 5.13, landlock in the LSM list)")
        monkeypatch.setattr(confine, "detect", _landlock_alone)
    canary = tmp_path / "canary"
    canary.write_text("sings")
    box = Sandbox.create(settings)
    try:
        spec = box.private / "spec.json"  # where the spec used to be: the test guesses it
        source = PRIVATE.format(spec=str(spec), canary=str(canary), private=str(box.private))
        (box.path / "tests" / "test_attack.py").write_text(source)
        result, _ = _suite(settings, source, box)
        assert ("namespaces" in result.isolation) is (layers == "best" and ISOLATION.namespaces)
        assert result.first("done") is not None, result.output
        assert (box.path / "seen.json").exists(), result.output
        seen = json.loads((box.path / "seen.json").read_text())
        assert "private" not in seen["listing"]
        assert seen["spec"] in ("No such file or directory", "Permission denied")
        assert seen["planted"] != "yes"
        assert not os.path.lexists(box.private / "planted")
        # A second run in the same box (scan's baseline rerun) gets a fresh private dir.
        runs_before = set(box.private.iterdir())
        _suite(settings, source, box)
        assert len(set(box.private.iterdir()) - runs_before) == 1
        assert canary.read_text() == "sings"
    finally:
        box.cleanup()


# ---------------------------------------- 02, 03, 09: the events are read safely
#: The events come through a pipe the parent drains (see docs/security.md, "Evidence
#: channel"): there is no event file to replace; what a run writes into the descriptors it
#: holds is junk the protocol refuses, within the bound.
CHANNEL = """
import os

def _event_files():
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.endswith("events.jsonl"):
            found.append(target)
    return found

def test_flood_the_channel():
    assert _event_files() == []
    for fd in range(3, 64):
        try:
            {plant}
        except OSError:
            pass
"""


@pytest.mark.slow
@needs_kernel
def test_there_is_no_event_file_to_replace_and_junk_is_tampering(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "xyz_env_secret_777")
    started = time.monotonic()
    result, box = _suite(settings, CHANNEL.format(plant="os.write(fd, b'not an event\\n')"))
    box.cleanup()
    assert time.monotonic() - started < 50
    assert result.tampered is not None  # the junk line, not a crash, not a secret
    assert "xyz_env_secret_777" not in result.output


@pytest.mark.slow
@needs_kernel
def test_a_flood_of_events_stays_within_the_bound(settings: Settings,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """09: 30 MB of ``{}`` lines once took the parent to 4.5 GB."""
    monkeypatch.setattr(sandbox, "MAX_EVENT_BYTES", 1 << 20)
    flood = CHANNEL.format(plant="os.write(fd, b'{}\\n' * (3 << 20))")
    result, box = _suite(settings, flood)
    box.cleanup()
    assert result.tampered is not None
    assert result.first(EventKind.DONE) is None  # the report is refused, not read past


def test_a_run_that_never_started_echoes_nothing_into_the_fault() -> None:
    run = RunResult([], 1, False, 0.1, "Traceback...\nSECRET_TOKEN=xyz_env_secret_777", "x")
    with pytest.raises(EnvironmentFault) as caught:
        _raise_env_fault(SimpleNamespace(id="q"), run)  # type: ignore[arg-type]
    assert "xyz_env_secret_777" not in str(caught.value)
    assert "exited with code 1" in str(caught.value)


# ------------------------------------- 10: protected files swapped for devices or FIFOs
SWAP = """
import os

def test_swap():
    os.unlink("hotel/pricing.py")
    {plant}
"""


@pytest.mark.slow
@needs_kernel
@pytest.mark.parametrize("plant", ["os.symlink('/dev/zero', 'hotel/pricing.py')",
                                   "os.mkfifo('hotel/pricing.py')"])
def test_a_protected_file_swapped_for_a_device_is_changed_not_read(settings: Settings,
                                                                   plant: str) -> None:
    _, box = _suite(settings, SWAP.format(plant=plant))
    try:
        assert os.path.lexists(box.path / "hotel" / "pricing.py")
        started = time.monotonic()
        assert box.current_hash("hotel/pricing.py") is None  # changed, never opened
        assert time.monotonic() - started < 1
    finally:
        box.cleanup()


# --------------------------------------------------------- 13: disk and cleanup
FILL = """
import os, tempfile

def test_fill():
    sizes = {{}}
    for where in (tempfile.gettempdir(), os.environ["HOME"]):
        written = 0
        try:
            with open(os.path.join(where, "fill"), "wb") as handle:
                for _ in range({mb} + 2):
                    handle.write(b"x" * (1 << 20))
                    written += 1
        except OSError as exc:
            sizes[where] = (written, exc.strerror)
    with open("fill.txt", "w") as handle:
        handle.write(repr(sizes))
"""


@pytest.mark.slow
@needs_namespaces
def test_temp_and_home_are_size_limited_memory_that_leaves_nothing_on_disk(
        settings: Settings) -> None:
    small = Settings(**{**settings.__dict__, "disk_mb": 4})
    result, box = _suite(small, FILL.format(mb=4))
    try:
        assert result.returncode == 0, result.output
        sizes = (box.path / "fill.txt").read_text()
        assert sizes.count("No space left on device") == 2, sizes
        assert list((box.base / "tmp").iterdir()) == []  # all of it was in the namespace
        assert list((box.base / "home").iterdir()) == []
    finally:
        box.cleanup()


def test_stale_sandboxes_are_removed_fresh_ones_kept(tmp_path: Path) -> None:
    old, fresh, other = (tmp_path / n for n in ("pytest-quest-old", "pytest-quest-new", "mine"))
    for folder in (old, fresh, other):
        (folder / "locked").mkdir(parents=True)
    (old / "locked" / "file").write_text("x")
    (old / "locked").chmod(0o000)  # what a run may leave behind
    two_days = time.time() - 2 * 24 * 3600
    for folder in (old, other):
        os.utime(folder, (two_days, two_days))
    assert sandbox.remove_stale(str(tmp_path)) == [str(old)]
    assert not old.exists() and fresh.exists() and other.exists()


@pytest.fixture
def deep_tmp(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path``, emptied without recursion afterwards, pass or fail.

    pytest removes old temp folders with ``shutil.rmtree``, which recurses:
    a deep tree left there would crash a later session of anyone on the machine.
    """
    yield tmp_path
    for entry in tmp_path.iterdir():
        safeio.remove_tree(entry)


def _deep(base: Path, levels: int) -> Path:
    """``base/d/d/...`` ``levels`` deep, made the way a run does it (``chdir``, no long path)."""
    here = os.getcwd()
    base.mkdir(parents=True, exist_ok=True)
    os.chdir(base)
    try:
        for _ in range(levels):
            os.mkdir("d")
            os.chdir("d")
        Path("bottom.py").write_text("x = 1\n")
    finally:
        os.chdir(here)
    return base


def test_trees_of_any_depth_are_walked_and_removed_without_recursion(deep_tmp: Path) -> None:
    """Red team 2 finding 13: 1500 levels broke rglob and shutil.rmtree (RecursionError)."""
    outside = deep_tmp / "outside"
    outside.mkdir()
    (outside / "keep").write_text("mine")
    tree = _deep(deep_tmp / "tree", 3000)  # past PATH_MAX too: 3000 x "d/"
    (tree / "link").symlink_to(outside)
    (tree / "locked").mkdir()
    (tree / "locked" / "file").write_text("x")
    (tree / "locked").chmod(0o000)
    files, too_deep = safeio.walk_files(tree, 100)
    assert "link" in files and too_deep == "/".join(["d"] * 100)
    assert not any(f.startswith("d/") for f in files)  # nothing from past the cap
    assert safeio.remove_tree(tree) == []
    assert not tree.exists()
    assert (outside / "keep").read_text() == "mine"  # never followed


def test_ordinary_trees_are_walked_and_removed(tmp_path: Path) -> None:
    """Honest: a project tree lists every file and goes away whole."""
    for rel in ("a.py", "pkg/__init__.py", "pkg/sub/m.py", "data/x.csv"):
        (tmp_path / "p" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "p" / rel).write_text("1")
    files, too_deep = safeio.walk_files(tmp_path / "p", 100)
    assert files == ["a.py", "data/x.csv", "pkg/__init__.py", "pkg/sub/m.py"] and too_deep is None
    assert safeio.remove_tree(tmp_path / "p") == [] and not (tmp_path / "p").exists()
    assert safeio.remove_tree(tmp_path / "p") == []  # gone already: nothing to say


def test_walk_is_os_walk_without_recursion(deep_tmp: Path) -> None:
    """Honest: on an ordinary tree it yields what ``os.walk`` yields, in the same order."""
    shutil.copytree(EXAMPLE, deep_tmp / "p")
    (deep_tmp / "p" / "hotel_link").symlink_to(deep_tmp / "p" / "hotel")  # listed, not walked
    assert list(safeio.walk(deep_tmp / "p", 100)) == list(os.walk(deep_tmp / "p"))


def test_a_folder_nested_too_deep_in_the_project_is_a_usage_error(deep_tmp: Path) -> None:
    """Red team 2 finding 13's tree in the working tree: 3.11's ``os.walk`` recursed, so every
    scan and submit crashed; now a message names the folder, and ``exclude`` skips it."""
    from pytest_quest.scan import find_functions

    project = deep_tmp / "p"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".quest", "__pycache__"))
    _deep(project / "hotel" / "cache", 1500)
    settings = load_settings(project)
    with pytest.raises(safeio.TreeTooDeep, match=r"hotel/cache/d/.* nests folders more than 100"):
        list(sandbox.iter_project_files(project, settings.test_dir))
    with pytest.raises(safeio.TreeTooDeep):
        find_functions(settings)
    files = list(sandbox.iter_project_files(project, settings.test_dir, ("hotel/cache",)))
    assert "hotel/pricing.py" in files and not any(f.startswith("hotel/cache") for f in files)


def test_remove_tree_removes_a_link_or_a_file_given_as_the_root(tmp_path: Path) -> None:
    """A sandbox path the run swapped for a symlink is unlinked, its target left alone."""
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("mine")
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "file").write_text("x")
    assert safeio.remove_tree(tmp_path / "link") == []
    assert safeio.remove_tree(tmp_path / "file") == []
    assert not (tmp_path / "link").is_symlink() and not (tmp_path / "file").exists()
    assert (target / "keep").read_text() == "mine"


def test_a_deep_or_broken_stale_sandbox_stops_no_command(
        deep_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team 2 finding 13: one leftover 1500 deep made every later scan and submit crash."""
    deep = _deep(deep_tmp / "pytest-quest-deep", 1500)
    broken, fine = deep_tmp / "pytest-quest-broken", deep_tmp / "pytest-quest-fine"
    broken.mkdir()
    fine.mkdir()
    two_days = time.time() - 2 * 24 * 3600
    for folder in (deep, broken, fine):
        os.utime(folder, (two_days, two_days))
    real = safeio.remove_tree

    def remove_tree(path: Path | str) -> list[str]:
        if Path(path) == broken:
            raise RecursionError("what any one bad folder may raise")
        return real(path)

    monkeypatch.setattr(safeio, "remove_tree", remove_tree)
    removed = sandbox.remove_stale(str(deep_tmp))
    assert sorted(removed) == sorted([str(deep), str(fine)])
    assert broken.exists() and not deep.exists() and not fine.exists()
    assert f"could not remove {broken}: RecursionError" in capsys.readouterr().err


DEEP_TEST = """
import os
import tempfile

from hotel.pricing import nightly_rate


def test_rate():
    here = os.getcwd()
    os.chdir({where})
    try:
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)
    assert nightly_rate(100.0, "high", 3) == 125.0
"""


@pytest.mark.parametrize("where", ["here", "tempfile.gettempdir()"], ids=["copy", "temp"])
def test_a_test_building_a_deep_tree_gets_a_recorded_verdict_and_leaves_nothing(
        project: Path, submit_test: Any, deep_tmp: Path, monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    """Red team 2 finding 13 through the gate: a verdict, the try spent, no leftover.

    The sandbox copy is no longer writable by a run (red team 2, finding 01), so the tree
    is refused there; in the run's own temp dir it is built and must still leave nothing.
    """
    private = deep_tmp / "tmp"
    private.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(private))  # a leftover must not reach /tmp
    result = submit_test("hotel/pricing.py::nightly_rate", DEEP_TEST.format(where=where))
    assert result.quest.tries == 1, result.verdict.facts
    ledger = Ledger.load(Ledger.for_root(project).path)
    assert '"tries": 1' in ledger.attempts_path.read_text(encoding="utf-8")
    assert [p.name for p in private.iterdir() if p.name.startswith("pytest-quest-")] == []


HANG = """
def test_hang():
    import time
    time.sleep(300)
"""

SUBMITTER = """
import sys
from pathlib import Path
from pytest_quest import sandbox
from pytest_quest.config import load_settings
sys.path.insert(0, {tests!r})
from test_harden import _suite
print("running", flush=True)
_suite(load_settings(Path({root!r})), {hang!r}, timeout=300)
"""


@pytest.mark.slow
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
def test_a_killed_caller_removes_its_sandbox_and_its_run(project: Path, tmp_path: Path,
                                                         signal_number: int) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    # A marker of this test's own: under xdist the other signal's caller may still be running.
    hang = f"{HANG}# {tmp_path.name}-{signal_number}\n"
    code = SUBMITTER.format(tests=str(Path(__file__).parent), root=str(project), hang=hang)
    errors = tmp_path / "caller-stderr.txt"
    with errors.open("w") as stderr:  # faulthandler writes the caller's stack here on SIGABRT
        caller = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                  stderr=stderr, text=True,
                                  env={**os.environ, "TMPDIR": str(temp),
                                       "PYTHONFAULTHANDLER": "1"})
    try:
        assert caller.stdout is not None and caller.stdout.readline() == "running\n"
        deadline = time.monotonic() + 30
        # The run has started once a process carries the sandbox's spec path (under temp);
        # the same probe checks below that none is left.
        while not list(temp.glob("pytest-quest-*/channel-*")) or not _running(str(temp)):
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.1)
        caller.send_signal(signal_number)
        try:
            assert caller.wait(timeout=60) != 0
        except subprocess.TimeoutExpired:  # say where it hangs: its stack, then fail
            caller.send_signal(signal.SIGABRT)
            caller.wait(timeout=10)
            pytest.fail(f"the caller did not end after the signal:\n{errors.read_text()}")
    finally:
        caller.kill()
    assert list(temp.glob("pytest-quest-*")) == []
    deadline = time.monotonic() + 5  # SIGKILLed, perhaps not yet gone from /proc
    while _running(str(temp)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(str(temp)) == [] and _running(f"# {tmp_path.name}-{signal_number}") == []


def _running(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


# ------------------------------------------------------------------ 15: keyrings
KEYRING = """
import ctypes, json, os, platform, subprocess, sys
from pytest_quest import confine

NR = {"x86_64": (250, 248), "aarch64": (219, 217)}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)

def keyctl(*args):
    return libc.syscall(NR[0], *[ctypes.c_ulong(a) if isinstance(a, int) else a for a in args])

def add_key(description, payload):
    return libc.syscall(NR[1], b"user", description, payload, len(payload), ctypes.c_long(-3))

def search(description):  # KEYCTL_SEARCH in @s
    return keyctl(10, ctypes.c_long(-3), b"user", description, 0)

if sys.argv[1] == "caller":
    assert keyctl(1, b"pytest-quest-test-caller") > 0, ctypes.get_errno()  # JOIN_SESSION
    assert add_key(b"rt_secret", b"KEYRING_SECRET_9") > 0, ctypes.get_errno()
    policy = confine.Policy(writable=(os.getcwd(),))
    child = subprocess.run(confine.wrap([sys.executable, __file__, "run"], policy),
                           capture_output=True, text=True, timeout=60)
    print(json.dumps({"child": child.stdout.strip(), "stderr": child.stderr[-500:],
                      "own": search(b"rt_secret") > 0,
                      "planted": search(b"planted_by_test") > 0}))
else:
    found = search(b"rt_secret")
    planted = add_key(b"planted_by_test", b"EVIL")
    print(json.dumps({"found": found > 0, "planted": planted > 0}))
"""


def _keyrings() -> str | None:
    """Why keyrings cannot be tested here, or None."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"):
        return f"keyctl numbers not known on {sys.platform}/{platform.machine()}"
    libc = ctypes.CDLL(None, use_errno=True)
    nr = 250 if platform.machine() == "x86_64" else 219
    if libc.syscall(nr, ctypes.c_int(0), ctypes.c_long(-3), ctypes.c_int(0)) < 0:  # GET_KEYRING_ID
        return f"keyrings unavailable: {os.strerror(ctypes.get_errno())}"
    return None


@pytest.mark.slow
@needs_kernel
@pytest.mark.skipif(_keyrings() is not None, reason=str(_keyrings()))
def test_the_callers_session_keyring_is_out_of_reach(tmp_path: Path) -> None:
    script = tmp_path / "keyring.py"
    script.write_text(KEYRING)
    done = subprocess.run([sys.executable, str(script), "caller"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["own"] is True  # the caller's key is there for the caller
    child = json.loads(seen["child"])
    assert child["found"] is False  # not for the run
    assert seen["planted"] is False  # and what the run added did not reach the caller


# ---------------------------------------------------- 17: processes and memory
FORKS = """
import os, time
started = 0
for _ in range(60):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    started += 1
print(started, flush=True)
os._exit(0)
"""


@pytest.mark.slow
@needs_kernel
def test_a_run_cannot_start_more_processes_than_pids_max(tmp_path: Path) -> None:
    limits = cgroups.process_limits(20, 512)
    try:
        if limits.kind == "rlimit" and os.getuid() == 0:
            pytest.skip("no cgroup can be made here and RLIMIT_NPROC does not bind uid 0")
        assert limits.kind in ("cgroup", "rlimit")
        policy = confine.Policy(writable=(str(tmp_path),), pids_max=20, cgroups=limits.cgroups)
        done = subprocess.run(confine.wrap([sys.executable, "-c", FORKS], policy),
                              capture_output=True, text=True, timeout=60, check=False,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout) < 20
    finally:
        limits.close()
    assert limits.kind == "rlimit" or set(limits.cgroups) <= set(limits.made)
    for folder in limits.made:
        assert not os.path.exists(folder)  # removed with everything in it


def test_process_limits_fall_back_to_rlimit_without_cgroups(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_cgroup_mounts", lambda: {})
    assert cgroups.process_limits(10, 100).kind == ("rlimit" if sys.platform == "linux" else "")
    assert cgroups.process_limits(0, 100).kind == ""
    assert confine.run_isolation("landlock", "cgroup") == "landlock+cgroup"
    assert confine.run_isolation("landlock", "") == "landlock"


def test_doctor_names_the_process_limits(project: Path) -> None:
    from pytest_quest.cli.doctor import report

    data: dict[str, Any] = report(project)
    assert data["process_limits"] in ("cgroup+page-cache", "cgroup", "rlimit", "none")


NPROC = """
import json, os, resource
from pytest_quest import confine
mine = sum(1 for p in os.listdir("/proc")
           if p.isdigit() and os.stat("/proc/" + p).st_uid == os.getuid())
name = confine._apply_limits(confine.Policy(writable=(), pids_max=7))
print(json.dumps([name, mine, *resource.getrlimit(resource.RLIMIT_NPROC)]))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_NPROC counted from /proc: Linux")
def test_without_a_cgroup_the_run_sets_rlimit_nproc_above_the_current_count() -> None:
    done = subprocess.run([sys.executable, "-c", NPROC], capture_output=True, text=True,
                          timeout=60, check=True)
    name, mine, soft, hard = json.loads(done.stdout)
    assert soft == hard and abs(soft - 7 - mine) <= 3  # others may start or end
    # uid 0 of the initial namespace is exempt: the name does not claim a bound there.
    assert name == ("rlimit" if os.getuid() != 0 else "")


def test_cgroups_left_by_a_killed_caller_are_removed() -> None:
    limits = cgroups.process_limits(8, 64)
    limits.close()
    if limits.kind != "cgroup":
        pytest.skip("no cgroup can be made here")
    gone = os.path.join(os.path.dirname(limits.made[-1]), "pytest-quest-999999999-0")
    os.mkdir(gone)
    try:
        again = cgroups.process_limits(8, 64)
        again.close()
        assert not os.path.exists(gone)
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(gone)


def test_the_isolation_of_a_verdict_is_recorded_and_read_back() -> None:
    from pytest_quest.records import Attempt, Evidence

    attempt = Attempt.submitted("m.py::f", "t", None, "t.py", "ab", "FAIL", "TODO", 1, [], 3,
                                isolation="landlock+namespaces+cgroup")
    assert attempt.to_dict()["isolation"] == "landlock+namespaces+cgroup"
    assert Attempt.from_dict(attempt.to_dict()) == attempt
    old = Attempt.submitted("m.py::f", "t", None, "t.py", "ab", "FAIL", "TODO", 1, [], 3)
    assert old.isolation is None  # an older line names no isolation
    evidence = Evidence.baseline([1], "h", "t", isolation="landlock")
    assert evidence.to_dict()["isolation"] == "landlock"
    assert Evidence.from_dict(evidence.to_dict()) == evidence
