"""The pieces every sandboxed run process uses (the event channel, the guard, the pristine
target, the report's shape), exercised without a subprocess."""

from __future__ import annotations

import inspect
import io
import linecache
import os
import sys
import tokenize
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_quest.hooked import CONTROL, AnswerPipe, normal
from pytest_quest.protocol import EventKind, TargetSpec, parse_events, split_run_answer
from pytest_quest.runparts import (
    Channel,
    Guard,
    Pristine,
    coverage_entries,
    resolve,
    short_repr,
)

TARGET = TargetSpec(file="shop.py", module="shop_under_test", owner=(), name="price",
                    accessor=None, qualname="price", body=(2, 2), lines=(1, 2))
SHOP = b"import json\n\ndef price(x):\n    return x * 2\n"


def _guard(tmp_path: Path) -> Guard:
    (tmp_path / "box").mkdir()
    return Guard([str(tmp_path / "box")])


def test_channel_writes_events_the_gate_accepts() -> None:
    read, write = os.pipe()
    channel = Channel(write)
    channel.emit(EventKind.START, pid=1, time=2.0)
    channel.emit(EventKind.DONE, exitstatus=0, denied=[])
    channel.close()
    channel.close()  # closing twice is harmless
    with os.fdopen(read, "rb") as handle:
        events, tampered = parse_events(handle.read())
    assert tampered is None
    assert [e["event"] for e in events] == ["start", "done"]


def test_guard_allows_reads_and_writes_inside(tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    guard("open", (str(tmp_path / "outside.txt"), "r", os.O_RDONLY))
    guard("open", (str(tmp_path / "box" / "a.txt"), "w", os.O_WRONLY | os.O_CREAT))
    guard("open", (os.devnull, "w", os.O_WRONLY))
    guard("open", (3, "w", os.O_WRONLY))  # an already open descriptor
    guard("os.remove", (str(tmp_path / "box" / "a.txt"),))
    guard("socket.connect", (None, ("127.0.0.1", 8000)))
    guard("socket.connect", (None, ("::1", 8000, 0, 0)))
    guard("socket.connect", (None, "/tmp/app.sock"))
    assert guard.denied == []


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("open", ("{out}", "w", os.O_WRONLY | os.O_CREAT)),
        ("open", ("{out}", None, os.O_RDWR)),
        ("open", ("{out}", "a", os.O_APPEND)),
        ("os.remove", ("{out}",)),
        ("os.rename", ("{box}", "{out}")),
        ("shutil.rmtree", ("{out}",)),
        ("subprocess.Popen", ("sh", ["sh"], None, None)),
        ("os.system", (b"echo",)),
        ("os.fork", ()),
        ("sys.addaudithook", ()),
        ("cpython.PyInterpreterState_New", ()),
        ("socket.connect", (None, ("93.184.216.34", 443))),
        ("socket.sendto", (None, ("10.0.0.1", 53))),
    ],
)
def test_guard_refuses_escapes(tmp_path: Path, event: str, args: tuple[object, ...]) -> None:
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    out, box = str(tmp_path / "real_repo.py"), str(tmp_path / "box" / "x")
    filled = tuple(a.format(out=out, box=box) if isinstance(a, str) else a for a in args)
    with pytest.raises(PermissionError, match="pytest-quest sandbox"):
        guard(event, filled)
    assert len(guard.denied) == 1 and guard.early == []


def test_guard_judges_a_descriptor_by_the_file_it_is_open_on(tmp_path: Path) -> None:
    """Red team 11, finding 02: the attributes of pytest's capture file (fd 1 in a run, one
    file for every run) carried the measured run's answers to the runs after it."""
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    outside = os.open(tmp_path / "shared.txt", os.O_RDWR | os.O_CREAT)
    inside = os.open(tmp_path / "box" / "own.txt", os.O_RDWR | os.O_CREAT)
    read, write = os.pipe()
    try:
        for event, args in (("os.utime", (outside, None)), ("os.chmod", (outside, 0o600)),
                            ("os.setxattr", (outside, "user.note", b"x", 0)),
                            ("os.truncate", (outside, 0))):
            with pytest.raises(PermissionError, match="pytest-quest sandbox"):
                guard(event, args)
        guard("os.utime", (inside, None))  # its own file: fine
        guard("os.chmod", (write, 0o600))  # a pipe of its own: no file behind it
        guard("os.utime", (987654, None))  # no such descriptor: the call fails by itself
        guard("open", (outside, "w", os.O_WRONLY))  # writing to a descriptor is printing
        assert len(guard.denied) == 4 and guard.denied[0].startswith("os.utime on ")
    finally:
        for fd in (outside, inside, read, write):
            os.close(fd)


def test_guard_finds_a_relative_path_from_its_folder_descriptor(tmp_path: Path) -> None:
    """shutil.rmtree walks by descriptors (``os.remove(name, dir_fd=...)``): judged from the
    working directory, an honest test clearing a folder of its own was refused (calibration,
    aiofiles: tempfile.TemporaryDirectory holding a file). A folder outside still is."""
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    (tmp_path / "box" / "sub").mkdir()
    own = os.open(tmp_path / "box" / "sub", os.O_RDONLY | os.O_DIRECTORY)
    shared = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    read, write = os.pipe()
    try:
        guard("os.remove", ("f.txt", own))
        guard("os.rmdir", ("inner", own))
        guard("os.mkdir", ("new", 0o777, own))
        guard("os.rename", ("a", "b", own, own))
        guard("os.remove", (str(tmp_path / "box" / "x"), shared))  # absolute: the folder unused
        guard("os.remove", ("f.txt", 987654))  # no such descriptor: the call fails by itself
        guard("os.remove", ("f.txt", read))  # a pipe is no folder: the same
        assert guard.denied == []
        for event, args in (("os.remove", ("real_repo.py", shared)),
                            ("os.rmdir", ("elsewhere", shared)),
                            ("os.mkdir", ("new", 0o777, shared)),
                            ("os.rename", ("x", "../../escaped", own, own)),
                            ("os.rename", ("x", "y", own, shared)),
                            ("os.remove", ("../../real_repo.py", own))):
            with pytest.raises(PermissionError, match="pytest-quest sandbox"):
                guard(event, args)
        assert len(guard.denied) == 6
    finally:
        for fd in (own, shared, read, write):
            os.close(fd)


def test_guard_reads_the_path_of_a_directory_entry(tmp_path: Path) -> None:
    """shutil.copytree recursing into a folder passes an os.DirEntry (calibration, aiofiles:
    an honest copy of a folder with a subfolder was "a path object", refused)."""
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    (tmp_path / "box" / "tree" / "sub").mkdir(parents=True)
    (tmp_path / "outer").mkdir()
    inner = next(os.scandir(tmp_path / "box" / "tree"))
    outer = next(e for e in os.scandir(tmp_path) if e.name == "outer")
    guard("shutil.copytree", (inner, str(tmp_path / "box" / "copy")))
    with pytest.raises(PermissionError, match="pytest-quest sandbox"):
        guard("shutil.copytree", (str(tmp_path / "box" / "tree"), outer))
    assert guard.denied == [f"shutil.copytree on {tmp_path / 'outer'}"]


def test_guard_refuses_mapping_dev_zero_only(tmp_path: Path) -> None:
    """Red team 17: a shared mapping of /dev/zero takes a shmem inode number from counters
    every run shares; seccomp cannot tell its descriptor from a file's, the guard can."""
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    zero = os.open("/dev/zero", os.O_RDONLY)
    data = os.open(tmp_path / "box" / "own.txt", os.O_RDWR | os.O_CREAT)
    try:
        with pytest.raises(PermissionError, match=r"mapping /dev/zero \(use mmap.mmap\(-1"):
            guard("mmap.__new__", (zero, 4096, 0, 0))
        guard("mmap.__new__", (data, 4096, 0, 0))  # a file of its own
        guard("mmap.__new__", (-1, 4096, 0, 0))  # anonymous memory (seccomp judges sharing)
        guard("mmap.__new__", (987654, 4096, 0, 0))  # no such descriptor
        assert guard.denied == ["mapping /dev/zero (use mmap.mmap(-1, size, "
                                "flags=mmap.MAP_PRIVATE))"]
    finally:
        os.close(zero)
        os.close(data)


def test_guard_keeps_denials_before_the_test_apart(tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    with pytest.raises(PermissionError):
        guard("os.system", (b"uname",))  # a plugin at start-up, before the test module
    guard(CONTROL, ("start",))
    with pytest.raises(PermissionError):
        guard("os.system", (b"id",))
    assert guard.early == ["starting a process (os.system)"]
    assert guard.denied == ["starting a process (os.system)"]


def test_guard_refuses_links_that_lead_out(tmp_path: Path) -> None:
    # No link is resolved when the guard judges a write (os.path.realpath looks up os.lstat
    # as it runs: red team 27), so no link may lead out of the allowed folders; a relative
    # target is read from the link's own folder, not from the working directory.
    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    box = tmp_path / "box"
    (box / "a" / "b").mkdir(parents=True)
    for source, link in ((str(tmp_path), box / "link"),
                         ("../../../outside", box / "a" / "b" / "up"),
                         (str(box / "x"), tmp_path / "link")):
        with pytest.raises(PermissionError, match=r"os\.symlink"):
            guard("os.symlink", (source, str(link), -1))
    guard("os.symlink", ("../x", str(box / "a" / "in"), -1))  # box/x: inside
    guard("os.symlink", (str(box / "x"), str(box / "abs"), -1))
    assert len(guard.denied) == 3
    # Red team 28: a link inside (`box/a/u -> ..`) that a second link's text goes through.
    (box / "a" / "u").symlink_to("..")
    guard("os.symlink", ("..", str(box / "a" / "u2"), -1))  # box: inside
    with pytest.raises(PermissionError, match=r"os\.symlink"):
        guard("os.symlink", ("a/u/../../../../..", str(box / "t"), -1))
    # A link to the allowed folder itself, then `..` through it: the kernel's way, not text.
    (box / "a" / "root").symlink_to(box)
    with pytest.raises(PermissionError):
        guard("open", (str(box / "a" / "root" / ".." / "escaped.txt"), "w", os.O_WRONLY))
    guard("open", (str(box / "a" / "root" / "fine.txt"), "w", os.O_WRONLY))
    (box / "l1").symlink_to("l2")
    (box / "l2").symlink_to("l1")
    with pytest.raises(PermissionError):  # a loop of links leads nowhere one may write
        guard("open", (str(box / "l1" / "x"), "w", os.O_WRONLY))


def test_a_failure_is_placed_at_the_test_files_own_line(pytester: pytest.Pytester) -> None:
    """Red team 51 saw a failing ``unittest.TestCase`` reported "at unittest/case.py:866": the
    crash is in the assertion helper, the line that failed is the test's."""
    pytester.makepyfile(test_unit=(
        "import unittest\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_x(self):\n"
        "        self.assertEqual(1 + 1, 3)\n\n"
        "def test_plain():\n"
        "    assert 1 + 1 == 3\n"))
    reports = [report for report in pytester.inline_run().getreports("pytest_runtest_logreport")
               if report.failed]
    places = {report.location[2]: short_repr(report) for report in reports}
    assert places["T.test_x"]["file"] == "test_unit.py" and places["T.test_x"]["line"] == 5
    assert places["test_plain"]["file"] == "test_unit.py" and places["test_plain"]["line"] == 8
    assert "3" in places["T.test_x"]["message"]


def test_short_repr_of_reports() -> None:
    crash = SimpleNamespace(message="assert 1 == 2", path="t.py", lineno=4)
    failed = SimpleNamespace(longrepr=SimpleNamespace(reprcrash=crash))
    assert short_repr(failed) == {"message": "assert 1 == 2", "file": "t.py", "line": 4}
    skipped = SimpleNamespace(longrepr=("t.py", 3, "Skipped: later"))
    assert short_repr(skipped) == {"message": "Skipped: later", "file": "t.py", "line": 3}
    text = SimpleNamespace(longrepr="E   boom")
    assert short_repr(text)["message"] == "E   boom"
    odd = SimpleNamespace(longrepr=("t.py", "3", "Skipped"))  # never a non-integer line
    assert short_repr(odd)["line"] is None


def test_coverage_entries_keep_only_what_the_gate_reads() -> None:
    data = {"files": {"/box/m.py": {"executed_lines": [1], "missing_lines": [2],
                                   "summary": {"x": 1}, "functions": {}},
                      "/elsewhere/n.py": {"executed_lines": [], "missing_lines": []}}}
    assert coverage_entries(data, "/box") == {
        "m.py": {"executed_lines": [1], "missing_lines": [2]},
        "/elsewhere/n.py": {"executed_lines": [], "missing_lines": []},
    }


def test_pristine_serves_the_module_and_its_lines_without_the_file(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_bytes(SHOP)
    spec = SimpleNamespace(sandbox=str(tmp_path))
    pristine = Pristine.read(spec, TARGET)  # type: ignore[arg-type]
    assert not pristine.loaded  # read when first needed: after the zygote, or by a conftest
    assert pristine.text == SHOP.decode() and pristine.loaded
    (tmp_path / "shop.py").write_text("raise SystemExit('never read again')\n")
    assert pristine.find_spec("json") is None
    sys.meta_path.insert(0, pristine)
    try:
        module = __import__(TARGET.module)
        assert module.price(3) == 6
        assert module.__file__ == str(tmp_path / "shop.py")
        assert inspect.getsource(module.price) == "def price(x):\n    return x * 2\n"
        assert linecache.getline(str(tmp_path / "shop.py"), 4) == "    return x * 2\n"
        del sys.modules[TARGET.module]
        pristine.code = compile(SHOP.replace(b"* 2", b"* 3"), "shop.py", "exec")
        again = __import__(TARGET.module)  # every import in a run gets the run's code
        assert again is not module and again.price(2) == 6
        assert pristine.get_filename(TARGET.module).endswith("shop.py")
        assert not pristine.is_package(TARGET.module)
    finally:
        sys.meta_path.remove(pristine)
        sys.modules.pop(TARGET.module, None)


def test_pristine_package_module(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_bytes(b"VALUE = 1\n")
    target = TargetSpec(file="pkg/__init__.py", module="pkg_under_test", owner=(), name="f",
                        accessor=None, qualname="f", body=(1, 1), lines=(1, 1))
    pristine = Pristine.read(SimpleNamespace(sandbox=str(tmp_path)), target)  # type: ignore[arg-type]
    spec = pristine.find_spec("pkg_under_test")
    assert spec is not None and spec.submodule_search_locations == [str(tmp_path / "pkg")]
    assert pristine.is_package("pkg_under_test")


def test_resolve_unwraps_properties_static_methods_and_wrappers(tmp_path: Path) -> None:
    source = ("import functools\n\nclass Cart:\n    @property\n    def total(self):\n"
              "        return 3\n\n    @total.setter\n    def total(self, v):\n        pass\n\n"
              "    @staticmethod\n    def empty():\n        return []\n\n"
              "@functools.lru_cache\ndef cached():\n    return 1\n")
    module = type(sys)("resolve_under_test")
    exec(compile(source, "r.py", "exec"), module.__dict__)
    sys.modules[module.__name__] = module
    try:
        def find(owner: tuple[str, ...], name: str, accessor: str | None = None) -> object:
            target = TargetSpec(file="r.py", module=module.__name__, owner=owner, name=name,
                                accessor=accessor, qualname=name, body=(1, 1), lines=(1, 1))
            found = resolve(target)
            return None if found is None else found.__code__.co_firstlineno

        # co_firstlineno counts the decorator line
        assert find(("Cart",), "total") == 4
        assert find(("Cart",), "total", "fset") == 8
        assert find(("Cart",), "empty") == 12
        assert find((), "cached") == 16
        assert find((), "missing") is None
    finally:
        del sys.modules[module.__name__]


def test_source_is_read_as_bytes_so_encodings_survive(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_bytes(SHOP)
    pristine = Pristine.read(SimpleNamespace(sandbox=str(tmp_path)), TARGET)  # type: ignore[arg-type]
    assert pristine.source == SHOP
    assert tokenize.detect_encoding(io.BytesIO(pristine.source).readline)[0] == "utf-8"


def test_nothing_pauses_the_guard_once_test_code_started(tmp_path: Path) -> None:
    # In-house: the run held its guard, and a test reached it through the plugin manager and
    # paused it (a Python-level wall only, where the kernel confines; the wall where not).
    # Now nothing holds it, and nothing ends it: it judges until the run's process ends.
    import threading

    guard = _guard(tmp_path)
    out = str(tmp_path / "real_repo.py")
    guard(CONTROL, ("start",))
    guard(CONTROL, ("end",))
    refused: list[BaseException] = []

    def write() -> None:
        try:
            guard("open", (out, "w", os.O_WRONLY))
        except PermissionError as exc:
            refused.append(exc)

    write()
    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert len(refused) == 2 and len(guard.denied) == 2


def test_guard_runs_no_code_of_the_test_and_tells_the_pipe_at_once(tmp_path: Path) -> None:
    ran: list[str] = []

    class Where(os.PathLike):  # type: ignore[type-arg]
        def __fspath__(self) -> str:
            ran.append("fspath")
            return str(tmp_path / "box" / "a.txt")

    class Host(str):
        def startswith(self, *args: object, **kwargs: object) -> bool:  # type: ignore[override]
            ran.append("startswith")
            return True

        def __repr__(self) -> str:
            ran.append("repr")
            return "'127.0.0.1'"

    read, write = os.pipe()
    try:
        guard = Guard([str(tmp_path / "box")], pipe=AnswerPipe(write))
        guard(CONTROL, ("start",))
        for event, args in (("open", (Where(), "w", os.O_WRONLY)),
                            ("os.remove", (Where(),)),
                            ("socket.connect", (None, (Host("127.0.0.1"), 80)))):
            with pytest.raises(PermissionError):
                guard(event, args)
        guard("open", (tmp_path / "box" / "b.txt", "w", os.O_WRONLY))  # pathlib's own class
        os.write(write, b"{}")
        os.close(write)
        data = os.read(read, 1 << 16)
    finally:
        os.close(read)
    assert ran == []
    assert split_run_answer(data, "run 1") == ({"denied": (
        "writing a path object", "os.remove on a path object",
        "network access to an address object")}, b"{}")


def test_guard_refuses_a_new_python_from_multiprocessing_where_the_target_is_hidden() -> None:
    # Red team 14: a spawn pool's workers cannot import the hidden target; the pool restarted
    # them until the run timed out. Refused at once, with the way out in the message.
    guard = Guard([])
    guard(CONTROL, ("start",))
    guard("import", ("multiprocessing.popen_spawn_posix", None, [], [], []))  # not hidden: fine
    guard.target_hidden = True
    guard("import", ("json", None, [], [], []))
    for module in ("multiprocessing.popen_spawn_posix", "multiprocessing.popen_forkserver"):
        with pytest.raises(PermissionError, match=r"get_context\('fork'\)"):
            guard("import", (module, None, [], [], []))
    assert len(guard.denied) == 2


def test_guard_loads_native_code_only_from_folders_the_run_cannot_write(tmp_path: Path) -> None:
    """Red team 53: a C extension the test compiled (or carried as bytes) into its temp dir
    read the installed code with no audit event. Loading one raises ``import`` with its file:
    the interpreter's, the installed packages' and the project's own load; others are refused."""
    import importlib.machinery
    import importlib.util

    guard = _guard(tmp_path)
    guard(CONTROL, ("start",))
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    written = tmp_path / "box" / f"reader{suffix}"
    written.write_bytes(b"")
    library = importlib.util.find_spec("_struct")
    assert library is not None and library.origin
    plain = tmp_path / "box" / "reader.txt"  # any name: the loader dlopens what it is given
    plain.write_bytes(b"")
    # Red team 54: "link/.." read as text names the interpreter's folder; the kernel follows
    # the link first, and lands in the box, where the test put its file.
    ups = len(Path(tmp_path, "box").parts)  # as text: up to "/" past the link
    deep = Path(tmp_path, "box", *["d"] * (ups + 2))
    planted = Path(str(Path(tmp_path, "box", "d", "d")) + sys.base_prefix) / f"reader{suffix}"
    planted.parent.mkdir(parents=True)
    deep.mkdir(parents=True, exist_ok=True)
    planted.write_bytes(b"")
    (tmp_path / "box" / "link").symlink_to(deep, target_is_directory=True)
    through = f"{tmp_path}/box/link/" + "../" * ups + sys.base_prefix.lstrip("/") + \
        f"/reader{suffix}"
    assert os.path.realpath(through) == str(planted)
    assert normal(through).startswith(sys.base_prefix)  # what the text alone says
    # red team 55: a NUL ends what the loader opens; the text after it named the interpreter's
    nul = f"{written}\0" + "/.." * 64 + str(library.origin)
    missing = f"{tmp_path}/box/gone" + "/.." * 64 + str(library.origin)  # no such part
    # and the working folder, which another thread may move before the loader looks
    relative = os.path.relpath(str(library.origin))
    cwd_link = f"/proc/self/cwd/{relative}"
    for path in (str(written), f"/proc/self/fd/3{suffix}", f"/nowhere/reader{suffix}",
                 str(plain), through, nul, missing, relative, cwd_link):
        with pytest.raises(PermissionError, match="loading native code"):
            guard("import", ("reader", path, [], [], []))
    # a link of the box's that leads to the interpreter's own file now: the run may point it
    # elsewhere before the loader follows it
    (tmp_path / "box" / "swap").symlink_to(library.origin)
    with pytest.raises(PermissionError, match="loading native code"):
        guard("import", ("_struct", str(tmp_path / "box" / "swap"), [], [], []))
    # Red team 58: the interpreter's folder outside the import folders (the base
    # interpreter's own site-packages held cffi and numpy, which a venv does not import)
    outside = os.path.realpath(sys.executable)
    assert not outside.startswith(tuple(p + os.sep for p in sys.path if p))
    with pytest.raises(PermissionError, match="loading native code"):
        guard("import", ("_cffi_backend", outside, [], [], []))
    # ... and the packages folder inside the standard library's, an import folder itself
    nested = tmp_path / "stdlib"
    (nested / "site-packages" / "numpy").mkdir(parents=True)
    (nested / "site-packages" / "numpy" / f"core{suffix}").write_bytes(b"")
    (nested / f"_own{suffix}").write_bytes(b"")
    inner = Guard([str(tmp_path / "box")])
    inner.native_roots = (str(nested) + os.sep,)
    inner(CONTROL, ("start",))
    inner("import", ("_own", str(nested / f"_own{suffix}"), [], [], []))
    with pytest.raises(PermissionError, match="loading native code"):
        inner("import", ("numpy.core", str(nested / "site-packages" / "numpy" / f"core{suffix}"),
                         [], [], []))
    guard("import", ("_struct", library.origin, [], [], []))  # the interpreter's own
    guard("import", ("json", None, [], [], []))  # no file: a module of Python's
    assert len(guard.denied) == 11
