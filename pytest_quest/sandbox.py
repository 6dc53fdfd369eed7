"""The throwaway copy of the project and the subprocess that runs tests in it.

The submitted test is untrusted code. It runs in a fresh temporary copy of
the project (never the working tree), in its own process group, with a
timeout, resource limits and a scrubbed environment, confined by the kernel
where it can be (:mod:`pytest_quest.confine`); the harness inside adds an
audit hook that refuses writes outside the copy. Protected files are
hashed while they are copied, so the scope rule judges exactly the bytes the
test will run against.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_quest import cgroups, confine, safeio
from pytest_quest.config import IGNORED_DIRS, Settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.paths import coverage_include, import_roots, module_name
from pytest_quest.protocol import (
    MAX_EVENT_BYTES,
    EventKind,
    HarnessSpec,
    Limits,
    MutationSpec,
    Tampering,
    TargetSpec,
    parse_events,
)
from pytest_quest.quest import Quest
from pytest_quest.schedule import project_key, schedule_seed

__all__ = [
    "RunResult",
    "Sandbox",
    "file_sha256",
    "harness_spec",
    "is_native",
    "is_protected",
    "iter_project_files",
    "pytest_args",
    "remove_stale",
    "run",
    "sha256",
    "snapshot",
    "target_spec",
]

_CONFIG_NAMES = frozenset({
    "pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", ".pytest.ini",
    "pytest.toml", ".pytest.toml", ".coveragerc", "conftest.py", "noxfile.py",
    "requirements.txt",
})
#: Variables a test run may see; everything else (tokens, COVERAGE_*, PYTEST_*) is dropped.
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TERM")
#: Bounds on what the parent reads back from a run (run-controlled files).
MAX_OUTPUT_BYTES = 80_000
#: Protected files larger than this are "changed" without being read (check_after_run).
MAX_HASH_BYTES = 256 * 1024 * 1024
#: Passed only when PYTEST_QUEST_MEASURE_SELF is set (our own test suite).
_SELF_COVERAGE_ENV = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START", "COVERAGE_FILE")


def iter_project_files(root: Path, test_dir: str, exclude: tuple[str, ...] = ()
                       ) -> Iterator[str]:
    """Every file worth copying, as posix paths; skips VCS, caches, venvs and quest tests.

    ``exclude`` names further folders (from the root) that tests never need,
    such as large data sets: they are neither copied nor protected.
    """
    quest_dir = (root / test_dir).resolve()
    skipped = {(root / e).resolve() for e in exclude}
    for dirpath, dirnames, filenames in safeio.walk(root, safeio.PROJECT_DEPTH):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in IGNORED_DIRS
            and not d.lower().endswith(_METADATA_DIRS)
            and not (here / d / "pyvenv.cfg").exists()
            and (here / d).resolve() != quest_dir
            and (here / d).resolve() not in skipped
        )
        rel_dir = here.relative_to(root).as_posix()
        for name in sorted(filenames):
            if name.lower().endswith((".pyc", ".pyo", *_METADATA_DIRS, ".egg-link")) or \
                    name in (".coverage",):
                continue
            yield name if rel_dir == "." else f"{rel_dir}/{name}"


#: Installed distributions' metadata (folders, or an ``.egg-info`` file): never copied. The
#: sandbox's root is on the import path, and pytest loads every ``pytest11`` entry point
#: ``importlib.metadata`` finds there, into the judge, before the runs and the watch (red
#: team 73 planted a ``dist-info`` naming its test module a plugin: two data files), in any
#: case (``importlib.metadata`` lowers it: red team 74's ``.DIST-INFO``).
_METADATA_DIRS = (".dist-info", ".egg-info")
#: How files the dynamic loader loads begin (ELF; Mach-O in both byte orders, 32 and 64 bits,
#: and fat): native code, whatever its name, which no audit hook sees once loaded.
_NATIVE_MAGIC = (b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf",
                 b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")


def is_native(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is native code: protected like a source, so an
    agent cannot leave a C extension in the project for its test to load (red team 53)."""
    return head.startswith(_NATIVE_MAGIC)


def _head(path: Path) -> bytes:
    """The first bytes of a regular file reached without a link; nothing for anything else
    (a FIFO planted in the project hung ``scan``: red team 74)."""
    try:
        return safeio.read_regular(path, 4)[0]
    except OSError:
        return b""


#: What a copied symlink's own text is hashed and folded with (never the bytes it leads to).
_LINK = b"\0symlink\0"
#: More than any project file: read whole.
_WHOLE = 1 << 40


def project_entry(path: Path, info: os.stat_result | None = None
                  ) -> tuple[bool, bytes] | None:
    """What the sandbox copies of one project file (is it a link, and its bytes), and what its
    hash covers (:func:`entry_bytes`): a regular file's bytes, or a symlink's own text (the
    copy is a link again), never what a link leads to; None for anything else. Red team 74
    planted links at the root: to the target's file (copied as text no Landlock layer hides)
    and to ``/proc/self/environ`` (read by the caller's process: its environment in the
    facts); and a FIFO, which hung the copy. ``info``: its ``lstat``, when taken already."""
    if info is None:
        try:
            info = os.lstat(path)
        except OSError:
            return None
    if stat.S_ISLNK(info.st_mode):
        try:
            return True, os.fsencode(os.readlink(path))
        except OSError:
            return None
    if not stat.S_ISREG(info.st_mode):
        return None
    try:
        return False, safeio.read_regular(path, _WHOLE)[0]
    except OSError:
        return None


def _without_second_names(root: Path, files: list[str]) -> dict[str, os.stat_result]:
    """``files`` (each with its ``lstat``) without the data names of a file that a name of code
    names too (a hard link): red team 75 linked ``rt_notes.txt`` to the target's source at the
    root, copied as a data file no Landlock layer hides, always the source's current text
    (anywhere: a new data file under ``tests/`` is no new protected file)."""
    found: dict[str, os.stat_result] = {}
    names: dict[tuple[int, int], list[str]] = {}
    for rel in files:
        try:
            info = found[rel] = os.lstat(root / rel)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            names.setdefault((info.st_dev, info.st_ino), []).append(rel)
    for group in names.values():
        if len(group) > 1 and any(runs_code(rel, b"") for rel in group):
            for rel in group:
                if not runs_code(rel, b""):
                    del found[rel]
    return found


def entry_bytes(entry: tuple[bool, bytes]) -> bytes:
    """What an entry's hash covers: a link's text marked as one, a file's bytes."""
    link, data = entry
    return _LINK + data if link else data


def entry_sha256(path: Path) -> str | None:
    """The digest the scan's snapshot records for a project file (a link's own text), or None
    when there is none to copy."""
    entry = project_entry(path)
    return None if entry is None else sha256(entry_bytes(entry))


def is_protected(rel: str, settings: Settings) -> bool:
    """Sources, tests, conftests and configs: what no submission may change."""
    name = rel.rsplit("/", 1)[-1]
    if rel.endswith(".py") or name in _CONFIG_NAMES or name.endswith(".pth"):
        return True
    first = rel.split("/", 1)[0]
    if first in ("tests", "test"):
        return True
    folders = [s.rstrip("/") for s in settings.sources if s != "."]
    return any(rel == s or rel.startswith(s + "/") for s in folders)


def runs_code(rel: str, head: bytes) -> bool:
    """Whether a file can change how the tests run: Python, a configuration pytest or a
    plugin reads, a path file, native code. A new file of any other kind under a protected
    folder is data (a fixture's text; what the project's own suite writes there and leaves:
    a submission after a plain ``pytest`` was told it added it, calibration of aiofiles)."""
    name = rel.rsplit("/", 1)[-1]
    return name in _CONFIG_NAMES or name.endswith(_CODE_ENDINGS) or is_native(head)


#: File endings of code Python loads or a tool reads as configuration.
_CODE_ENDINGS = (".py", ".pyw", ".pyx", ".pxd", ".pth", ".ini", ".cfg", ".toml", ".so", ".pyd",
                 ".dll", ".dylib")


def _fold(digest: Any, rel: str, data: bytes) -> None:
    """Add one copied file to the sandbox digest (name and length first: no ambiguity)."""
    name = rel.encode("utf-8", "surrogateescape")
    digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big"))
    digest.update(data)


def sha256(data: bytes) -> str:
    """The digest every protected file, locked test and submission is recorded by."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    """``path``'s digest, or None when it is no regular file reached without a link (deleted,
    a folder, a link, a FIFO: opened, it would hang the command)."""
    entry = project_entry(path)
    return None if entry is None or entry[0] else sha256(entry[1])


def snapshot(settings: Settings) -> dict[str, str]:
    """Hashes of the protected files now, native code among them: what ``scan`` records in
    the ledger."""
    root = settings.root
    out = {}
    for rel in iter_project_files(root, settings.test_dir, settings.exclude):
        if is_protected(rel, settings) or is_native(_head(root / rel)):
            digest = entry_sha256(root / rel)
            if digest is not None:
                out[rel] = digest
    return out


@dataclass
class Sandbox:
    """A private copy of the project; removed by :meth:`cleanup`."""

    path: Path
    private: Path
    #: Protected files as copied, with their hashes.
    hashes: dict[str, str] = field(default_factory=dict)
    #: Those of them that are data, not code (:func:`runs_code`).
    data: set[str] = field(default_factory=set)
    #: sha256 over every file copied in (names and bytes): what the schedule's seed covers.
    digest: str = ""

    @classmethod
    def create(
        cls,
        settings: Settings,
        extra: dict[str, bytes] | None = None,
    ) -> Sandbox:
        """Copy the project (without the quest test folder) plus ``extra`` files."""
        remove_stale()
        _cleanup_on_signals()
        base = Path(tempfile.mkdtemp(prefix="pytest-quest-"))
        _LIVE.add(base)
        box = cls(path=base / "project", private=base / "private")
        box.path.mkdir()
        box.private.mkdir()
        (base / "tmp").mkdir()
        (base / "home").mkdir()
        root = settings.root
        made: set[str] = set()
        copied = hashlib.sha256()
        files = _without_second_names(
            root, list(iter_project_files(root, settings.test_dir, settings.exclude)))
        for rel, info in files.items():
            entry = project_entry(root / rel, info)
            if entry is None:
                continue
            if entry[0]:  # a link again: followed in the run, as the kernel finds it
                box._link(rel, entry[1], made)
            else:
                box._write(rel, entry[1], made)
            data = entry_bytes(entry)
            _fold(copied, rel, data)
            if is_protected(rel, settings) or (not entry[0] and is_native(data)):
                box.hashes[rel] = sha256(data)
                if not runs_code(rel, data[:4]):
                    box.data.add(rel)
        for rel, data in (extra or {}).items():
            box._write(rel, data, made)
            _fold(copied, rel, data)
        box.digest = copied.hexdigest()
        return box

    def _write(self, rel: str, data: bytes, made: set[str]) -> None:
        self._place(rel, made).write_bytes(data)

    def _link(self, rel: str, text: bytes, made: set[str]) -> None:
        os.symlink(os.fsdecode(text), self._place(rel, made))

    def _place(self, rel: str, made: set[str]) -> Path:
        """Where ``rel`` goes in the copy, its folder made (once: ``made``)."""
        target = self.path / rel
        parent = target.parent.as_posix()
        if parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(parent)
        return target

    @property
    def base(self) -> Path:
        return self.path.parent

    def current_hash(self, rel: str) -> str | None:
        """A protected file's digest after a run; None (changed) for anything but a plain file.

        The run controls the copy: a symlink to ``/dev/zero``, a FIFO or a huge file
        is never followed, opened or read whole by this unconfined process.
        """
        return safeio.hash_regular(self.path / rel, MAX_HASH_BYTES)

    def cleanup(self) -> None:
        _rmtree(self.base)
        _LIVE.discard(self.base)


#: Sandbox folders of this process not yet removed (atexit and SIGTERM remove them).
_LIVE: set[Path] = set()
#: Sandbox folders older than this are left over by a process that died (SIGKILL, power loss).
STALE_SECONDS = 24 * 3600


def _rmtree(path: Path) -> bool:
    """Remove ``path``, whatever the run left there; never raises. True when it is gone.

    The run controls the tree: folders without permissions (chmod 000),
    symlinks, nesting thousands deep (red team 2, finding 13: recursive
    ``shutil.rmtree`` raised ``RecursionError`` and left the sandbox behind).
    ``safeio.remove_tree`` copes without recursion; what it still cannot
    remove is named on stderr and left, and the caller goes on.
    """
    try:
        failed = safeio.remove_tree(path)
    except Exception as exc:  # a cleanup must not cost the verdict
        failed = [f"{path}: {type(exc).__name__}: {exc}"]
    for line in failed[:5]:
        print(f"pytest-quest: could not remove {line}", file=sys.stderr)
    return not failed


def _remove_live() -> None:
    for base in list(_LIVE):
        _rmtree(base)
        _LIVE.discard(base)


@functools.cache  # once per process
def _cleanup_on_signals() -> None:
    """SIGTERM/SIGHUP end this process through ``finally`` blocks, as Ctrl-C (SIGINT) does.

    Only where nobody else handles them (the default action would kill the
    process without removing its sandbox); atexit removes what is left.
    """
    atexit.register(_remove_live)
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, _exit_on_signal)


def _exit_on_signal(number: int, _frame: Any) -> None:
    raise SystemExit(128 + number)


def remove_stale(folder: str | None = None, older_than: float = STALE_SECONDS) -> list[str]:
    """Remove ``pytest-quest-*`` sandboxes of ours older than ``older_than`` seconds.

    A submit killed with SIGKILL (or a machine that lost power) cannot clean
    up; the next sandbox made on this machine does. Returns what it removed.
    """
    folder = folder or tempfile.gettempdir()
    removed = []
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith("pytest-quest-") or not entry.is_dir(
                    follow_symlinks=False):
                continue
            # One bad folder must not stop the others, nor the command that makes a sandbox.
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if (info.st_uid == os.getuid() and now - info.st_mtime > older_than
                        and _rmtree(Path(entry.path))):
                    removed.append(entry.path)
    return removed


@dataclass
class RunResult:
    """What the harness reported (validated events), plus how the process ended.

    ``tampered`` is set when the report broke the protocol (malformed,
    oversized, out of order, duplicated): the run rule turns it into the FAIL
    ``run-report-tampered`` and no other fact is read from it.
    """

    events: list[dict[str, Any]]
    returncode: int | None
    timed_out: bool
    seconds: float
    output: str = ""
    #: What confined the run: "landlock+namespaces", "landlock", "namespaces", "python-audit".
    isolation: str = "python-audit"
    tampered: Tampering | None = None

    def of(self, kind: EventKind) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == kind]

    def first(self, kind: EventKind) -> dict[str, Any] | None:
        found = self.of(kind)
        return found[0] if found else None

    @property
    def started(self) -> bool:
        return self.first(EventKind.START) is not None

    @property
    def finished(self) -> bool:
        return self.first(EventKind.DONE) is not None

    @property
    def coverage_files(self) -> dict[str, Any] | None:
        event = self.first(EventKind.COVERAGE)
        return None if event is None else event.get("files", {})


def pytest_args(*extra: str, workers: bool = False) -> list[str]:
    """Options every sandbox run adds to the project's own ``addopts``.

    No cache writes, no random order, pytest-cov idle (a ``--cov`` in
    ``addopts`` stays valid but measures nothing beside our collector).
    A submission's run holds xdist in-process: the judge forks its runs
    itself. With ``workers`` (the baseline), :mod:`pytest_quest.workers`
    runs the suite over xdist workers when the project's environment has
    xdist, measuring in each and merging.
    """
    args = ["-p", "no:cacheprovider", "-p", "no:randomly", "--no-cov", *extra]
    if workers:
        args += ["-p", "pytest_quest.workers"]
    elif importlib.util.find_spec("xdist") is not None:
        args += ["-n", "0"]
    return args


def target_spec(quest: Quest, settings: Settings) -> TargetSpec:
    """How the harness finds the function object (for identity checks and mutation)."""
    qualname = quest.qualname.split("@", 1)[0]
    accessor = None
    parts = qualname.split(".")
    if parts[-1] in ("setter", "deleter") and len(parts) > 1:
        accessor = {"setter": "fset", "deleter": "fdel"}[parts.pop()]
    return TargetSpec(
        file=quest.path, module=module_name(quest.path, settings), owner=tuple(parts[:-1]),
        name=parts[-1], accessor=accessor, qualname=quest.qualname,
        body=(quest.body[0], quest.body[1]), lines=(quest.lines[0], quest.lines[1]),
    )


def harness_spec(settings: Settings, quest: Quest | None = None,
                 test_rel: str | None = None, deselect: Sequence[str] = (),
                 claimed: Sequence[int] = ()) -> HarnessSpec:
    """The one place a harness spec is built: a submission (quest + test) or the suite.

    Without a quest it is the scan's baseline: the project's own suite once,
    with coverage of every source, no guard (the suite is the project's own
    code) and ``deselect`` for tests that failed a first run. Where the
    sandbox is (``sandbox``, ``private_dir``, ``allowed_write``) is filled in
    by :func:`run`, which knows the copy. ``claimed``: the lines a submission
    claims unreachable (see ``HarnessSpec.claimed``).
    """
    common: dict[str, Any] = {"sandbox": "", "private_dir": "", "allowed_write": (),
                              "branch": settings.branch}
    if quest is None or test_rel is None:
        args = pytest_args("-q", "--tb=no", *(f"--deselect={n}" for n in deselect),
                           workers=True)
        return HarnessSpec(mode="suite", pytest_args=tuple(args),
                           sources=tuple(coverage_include(settings)), reruns=1, guard=False,
                           limits=Limits(memory_mb=settings.memory_mb), **common)
    args = pytest_args(test_rel, "-q", "--tb=short",
                       "-W", "ignore::pytest.PytestUnraisableExceptionWarning")
    mutation = None
    if settings.mutation:
        mutation = MutationSpec(threshold=settings.mutation_threshold,
                                max_mutants=settings.max_mutants)
    return HarnessSpec(
        mode="submit", pytest_args=tuple(args), target=target_spec(quest, settings),
        test_file=test_rel, measure_files=(quest.path,), reruns=max(1, settings.reruns),
        # Within the parent's grace of 2x timeout after the measured run.
        mutation=mutation, budget=settings.timeout * 1.5,
        limits=Limits(cpu=int(settings.timeout * 4) + 10, memory_mb=settings.memory_mb,
                      fsize_mb=512),
        claimed=tuple(sorted(set(claimed))),
        **common,
    )


def _environment(box: Sandbox, settings: Settings, channel: Path | None = None
                 ) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV}
    if os.environ.get("PYTEST_QUEST_MEASURE_SELF"):
        # pytest-quest's own test suite measures the harness it runs here;
        # these only start an outer collector that the harness's own one stacks on.
        env.update({k: v for k, v in os.environ.items() if k in _SELF_COVERAGE_ENV})
        env.update(_self_coverage_into(channel or box.private))
    roots = [str(box.path / r) if r != "." else str(box.path) for r in import_roots(settings)]
    env.update(
        HOME=str(box.base / "home"),
        TMPDIR=str(box.base / "tmp"),
        TEMP=str(box.base / "tmp"),
        TMP=str(box.base / "tmp"),
        PYTHONPATH=os.pathsep.join(roots),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
        NO_COLOR="1",
    )
    return env


def _self_coverage_into(folder: Path) -> dict[str, str]:
    """Point our own suite's collector at ``folder``: a confined run can write nowhere else.

    :func:`run` moves the data files back next to the outer collector's afterwards.
    """
    import base64

    encoded = os.environ.get("COVERAGE_PROCESS_CONFIG")
    if not encoded:
        return {}
    config = json.loads(base64.b64decode(encoded))
    config["data_file"] = str(folder / ".coverage")
    return {"COVERAGE_PROCESS_CONFIG": base64.b64encode(json.dumps(config).encode()).decode(),
            "COVERAGE_FILE": str(folder / ".coverage")}


def _return_self_coverage(channel: Path) -> None:
    encoded = os.environ.get("COVERAGE_PROCESS_CONFIG")
    if not (encoded and os.environ.get("PYTEST_QUEST_MEASURE_SELF")):
        return
    import base64

    target = Path(json.loads(base64.b64decode(encoded))["data_file"]).parent
    for data in channel.glob(".coverage.*"):
        if not data.is_file() or data.is_symlink():  # run-controlled: plain files only
            continue
        with contextlib.suppress(OSError):
            shutil.move(data, target / data.name)


#: Where the gate keeps the machine's ``/proc`` counters as they were at the first
#: submission after a boot (:func:`pytest_quest.confine.copy_counters`); gitignored.
COUNTERS_STORE = ".quest/runs/counters"


def run(box: Sandbox, settings: Settings, spec: HarnessSpec, timeout: float,
        grace: float = 0.0, observe: Callable[[bytes], None] | None = None,
        preview: bool = False) -> RunResult:
    """Run the harness on ``spec`` in ``box``; kill its whole process group at ``timeout``.

    ``timeout`` bounds the measured first round. When that round finished in
    time, the controls and the mutation stage get ``grace`` more seconds.

    Events come back through an inherited pipe, not a file: nothing the run
    can write is read as its report. A thread drains the pipe while the
    process runs (a full pipe never blocks the harness) and stops keeping
    bytes at :data:`MAX_EVENT_BYTES`; the bytes are then validated as a whole.
    ``observe`` sees each kept chunk as it arrives (progress display only).
    ``preview``: a dry run, whose schedule is drawn apart from the recorded submission's
    (:mod:`pytest_quest.schedule`).
    """
    # Fresh per run, never reused: ``private`` (spec, output log) is invisible to the run;
    # ``channel`` (the harness's scratch coverage report) is the one folder it writes
    # beside its sandbox and temp dirs, read back here only through safeio.
    private = Path(tempfile.mkdtemp(prefix="run-", dir=box.private))
    channel = Path(tempfile.mkdtemp(prefix="channel-", dir=box.base))
    spec = replace(spec, sandbox=str(box.path), private_dir=str(channel),
                   allowed_write=(str(box.path), str(box.base / "tmp"), str(box.base / "home")))
    spec_path = private / "spec.json"
    if spec.mode == "submit" and confine.detect().namespaces:  # frozen /proc counters for runs
        confine.copy_counters(str(settings.root / COUNTERS_STORE), str(channel / confine.COUNTERS))
    read_fd, write_fd = os.pipe()
    # The child's ends of the pipes: ours to close once it holds them (or the launch failed),
    # each exactly once. A second close of a number another thread of this process has opened
    # since (the loop runs submissions in threads) would close that thread's file.
    theirs = [write_fd]
    seed_fd = _seed_pipe(box, settings, preview) if spec.mode == "submit" else None
    if seed_fd is not None:
        theirs.append(seed_fd)
    reader = _Reader(read_fd, observe)
    limits = (cgroups.process_limits(settings.pids_max, settings.memory_mb)
              if confine.detect().kernel else cgroups.ProcessLimits(""))
    evict = limits.evictor() if spec.mode == "submit" else None
    if evict is not None:  # runs join a cgroup whose page cache the zygote empties
        for fd in evict:
            os.set_inheritable(fd, True)
            theirs.append(fd)
        spec = replace(spec, evict_fds=evict)
    status_fd: tuple[int, int] | None = None
    try:
        os.close(safeio.create_new(spec_path, spec.to_json().encode()))
        command, status_fd, confinement = _command(box, settings, spec_path, channel,
                                                   limits.cgroups, write_fd, seed_fd)
        if status_fd is not None:
            theirs.append(status_fd[1])
        status = b""
        started = time.monotonic()
        with os.fdopen(safeio.create_new(private / "output.txt"), "wb") as log:
            try:
                process = subprocess.Popen(
                    command,
                    cwd=box.path,
                    env={**_environment(box, settings, channel), **confinement},
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=tuple(theirs),
                )
            finally:
                _close_once(theirs)
            reader.start()
            timed_out = False
            returncode: int | None = None
            try:
                for budget, check_round in ((timeout, True), (grace, False)):
                    try:
                        returncode = wait(process, max(budget, 0.01))
                        break
                    except subprocess.TimeoutExpired:
                        if check_round and grace > 0 and reader.first_round_done:
                            continue
                        timed_out = True
                        break
            finally:  # also on SIGINT/SIGTERM of the caller: nothing of the run outlives it
                if status_fd is not None and returncode is None:
                    status = _drain(status_fd[0])
                    # The confined run is PID 1 of its namespace: killing it kills all it
                    # started, even what left our process group (setsid). Its launcher has
                    # not reaped it yet.
                    _kill_pid(confine.read_status(status).get("child"))
                _kill_group(process)  # also leftovers of a test that spawned and detached
                if returncode is None:
                    returncode = process.wait()
    except BaseException:
        reader.finish()  # closes the read end, started or not
        if status_fd is not None:
            os.close(status_fd[0])
        raise
    finally:
        limits.close()
        _close_once(theirs)
    data, truncated = reader.finish()
    seconds = time.monotonic() - started
    _return_self_coverage(channel)
    isolation = "python-audit"
    if status_fd is not None:
        status += _drain(status_fd[0])
        os.close(status_fd[0])
        report = confine.read_status(status)
        if "error" in report:
            raise EnvironmentFault(f"the sandbox could not be confined: {report['error']}")
        isolation = str(report.get("isolation", "unknown"))
    events, tampered = parse_events(data, truncated=truncated,
                                    died=timed_out or returncode < 0)
    done = next((e for e in events if e["event"] == EventKind.DONE), None)
    if done is not None and done.get("page_cache"):
        isolation += "+page-cache"  # emptied between waves of runs (cgroups.evict)
    try:
        raw = safeio.read_regular(private / "output.txt", MAX_OUTPUT_BYTES, tail=True)[0]
    except OSError:
        raw = b""
    output = raw.decode("utf-8", errors="replace")[-20000:]
    return RunResult(events, returncode, timed_out, seconds, output, isolation, tampered)


def wait(process: subprocess.Popen[bytes], timeout: float) -> int:
    """``process.wait(timeout)``, returning as soon as the process ends.

    ``Popen.wait`` with a timeout polls, sleeping up to 50 ms between looks,
    which a submission paid after its harness had already left. A pidfd
    (Linux >= 5.3) is readable the moment the process ends; elsewhere, the
    polling wait.
    """
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None or process.returncode is not None:
        return process.wait(timeout=timeout)
    try:
        fd = pidfd_open(process.pid)
    except OSError:  # already reaped, or a kernel without pidfds
        return process.wait(timeout=timeout)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if not ready:
        raise subprocess.TimeoutExpired(process.args, timeout)
    return process.wait()


class _Reader(threading.Thread):
    """Drains the event pipe into memory, up to the bound (then drains and drops).

    Only this thread reads the descriptor and only :meth:`finish` closes it, after
    the thread has stopped: closing it under a blocked read would free its number
    for another thread's next file, which the following read would then drain.
    """

    _ROUND = b'"event": "round_done"'
    _POLL = 0.1  # seconds between looks at the stop flag while the pipe is quiet

    def __init__(self, fd: int, observe: Callable[[bytes], None] | None = None) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.observe = observe
        self.data = bytearray()
        self.first_round_done = False
        self.truncated = False
        self._quit = threading.Event()

    def run(self) -> None:
        while not self._quit.is_set():
            ready, _, _ = select.select([self.fd], [], [], self._POLL)
            if not ready:
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return
            if self.truncated or len(self.data) + len(chunk) > MAX_EVENT_BYTES:
                self.truncated = True  # keep draining so the writer never blocks
                continue
            tail = bytes(self.data[-len(self._ROUND):])
            self.data += chunk
            if self.observe is not None:
                self.observe(chunk)
            if not self.first_round_done and self._ROUND in tail + chunk:
                self.first_round_done = True

    def finish(self) -> tuple[bytes, bool]:
        """Everything read; waits briefly for the pipe to drain, then stops reading.

        A writer still alive past the wait (a detached leftover of the test) is
        simply no longer listened to.
        """
        if self.ident is not None:
            self.join(timeout=5.0)
            self._quit.set()
            self.join()
        os.close(self.fd)
        return bytes(self.data), self.truncated


def _close_once(fds: list[int]) -> None:
    """Close and forget each descriptor: a second call finds nothing left to close."""
    while fds:
        os.close(fds.pop())


def _seed_pipe(box: Sandbox, settings: Settings, preview: bool = False) -> int:
    """A pipe holding the schedule's seed, for the judge to read after its zygote is forked.

    Never a file or part of the spec: the spec is in every run's memory
    (docs/security.md, "the schedule").
    """
    seed = schedule_seed(project_key(settings.root), box.digest, preview)
    read, write = os.pipe()
    try:
        os.write(write, seed.encode("ascii"))  # 64 bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read


def _command(box: Sandbox, settings: Settings, spec_path: Path, channel: Path,
             cgroups: tuple[str, ...] = (), events_fd: int = -1, seed_fd: int | None = None
             ) -> tuple[list[str], tuple[int, int] | None, dict[str, str]]:
    """The harness command and, when this system has kernel confinement, the request for it.

    The harness confines itself first thing (:func:`pytest_quest.confine.enter_requested`),
    before any project or test code is imported, and reports on the returned
    pipe. ``isolation = "strict"`` refuses to run without kernel confinement.
    """
    harness = ["pytest_quest.harness", str(spec_path), "--events-fd", str(events_fd)]
    if seed_fd is not None:
        harness += ["--seed-fd", str(seed_fd)]
    command = [settings.python, "-m", *harness]
    isolation = confine.detect()
    if not isolation.kernel:
        if settings.isolation == "strict":
            raise EnvironmentFault(
                'isolation = "strict" and this system offers no kernel confinement '
                f"(no Landlock; namespaces: {isolation.namespaces_error}); "
                "`pytest-quest doctor` explains"
            )
        return command, None, {}
    policy = confine.Policy(
        writable=(str(box.path), str(channel)),
        hidden=(str(settings.root),),
        scratch=(str(box.base / "tmp"), str(box.base / "home")),
        scratch_mb=settings.disk_mb,
        preload=(str(spec_path),),
        pids_max=settings.pids_max,
        memory_mb=settings.memory_mb,
        cgroups=cgroups,
        per_run=seed_fd is not None,  # a submission: the judge forks runs, each confined apart
    )
    read, write = os.pipe()
    os.set_blocking(read, False)
    # Through confine's module runner: the harness imports pytest only once confined.
    command = [settings.python, "-m", "pytest_quest.confine", "--module", *harness]
    return command, (read, write), confine.request(policy, write, isolation.namespaces)


def _drain(fd: int) -> bytes:
    """Whatever the launcher wrote so far, without waiting for more."""
    chunks = []
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _kill_pid(pid: Any) -> None:
    if isinstance(pid, int) and pid > 1:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
        os.killpg(process.pid, signal.SIGKILL)
