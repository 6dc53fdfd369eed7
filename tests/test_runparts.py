"""The pieces every sandboxed run process uses (the event channel, the guard, the code watch,
the pristine target, the report's shape), exercised without a subprocess."""

from __future__ import annotations

import inspect
import io
import linecache
import os
import sys
import tokenize
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_quest.protocol import EventKind, TargetSpec, parse_events
from pytest_quest.runparts import (
    Channel,
    Guard,
    Pristine,
    Watch,
    coverage_entries,
    resolve,
    short_repr,
)
from pytest_quest.scrub import fingerprint

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
        ("socket.connect", (None, ("93.184.216.34", 443))),
        ("socket.sendto", (None, ("10.0.0.1", 53))),
    ],
)
def test_guard_refuses_escapes(tmp_path: Path, event: str, args: tuple[object, ...]) -> None:
    guard = _guard(tmp_path)
    guard.test_started = True
    out, box = str(tmp_path / "real_repo.py"), str(tmp_path / "box" / "x")
    filled = tuple(a.format(out=out, box=box) if isinstance(a, str) else a for a in args)
    with pytest.raises(PermissionError, match="pytest-quest sandbox"):
        guard(event, filled)
    assert len(guard.denied) == 1 and guard.early == []


def test_guard_judges_a_descriptor_by_the_file_it_is_open_on(tmp_path: Path) -> None:
    """Red team 11, finding 02: the attributes of pytest's capture file (fd 1 in a run, one
    file for every run) carried the measured run's answers to the runs after it."""
    guard = _guard(tmp_path)
    guard.test_started = True
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


def test_guard_refuses_mapping_dev_zero_only(tmp_path: Path) -> None:
    """Red team 17: a shared mapping of /dev/zero takes a shmem inode number from counters
    every run shares; seccomp cannot tell its descriptor from a file's, the guard can."""
    guard = _guard(tmp_path)
    guard.test_started = True
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
    guard.test_started = True
    with pytest.raises(PermissionError):
        guard("os.system", (b"id",))
    assert guard.early == ["starting a process (os.system)"]
    assert guard.denied == ["starting a process (os.system)"]


def test_guard_refuses_symlink_tricks(tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    link = tmp_path / "box" / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(PermissionError):
        guard("open", (str(link / "escaped.txt"), "w", os.O_WRONLY | os.O_CREAT))


def test_trusted_lets_pytest_quest_itself_write(tmp_path: Path) -> None:
    guard = _guard(tmp_path)
    with guard.trusted():
        guard("open", (str(tmp_path / "report.json"), "w", os.O_WRONLY))
    with pytest.raises(PermissionError):
        guard("open", (str(tmp_path / "report.json"), "w", os.O_WRONLY))


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


def _watch(tmp_path: Path) -> tuple[Watch, Path]:
    path = tmp_path / "shop.py"
    path.write_bytes(SHOP)
    return Watch(TARGET, str(path), fingerprint("def price(x):\n    return x * 2")), path


def test_watch_sees_the_source_file_opened_and_its_text_compiled(tmp_path: Path) -> None:
    watch, path = _watch(tmp_path)
    watch.nodeid = "t.py::test_a"
    watch("open", (str(path), "r", 0))
    watch("open", (str(path), "a", os.O_APPEND))  # writing: the guard's business
    watch("open", (str(tmp_path / "other.py"), "r", 0))
    watch("compile", (SHOP.decode(), "<copy>"))
    watch("compile", (b"x = 1", str(path)))
    watch("compile", ("x = 1", "<string>"))
    assert watch.reads == [
        "t.py::test_a: opened the target's source file",
        "t.py::test_a: compiled the target's source text",
        "t.py::test_a: compiled code under the target's file name",
    ]


def test_watch_sees_the_targets_code_read_but_not_while_loading(tmp_path: Path) -> None:
    watch, _ = _watch(tmp_path)
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(SHOP, "shop.py", "exec"), namespace)
    price = namespace["price"]
    watch.loading = True
    watch("object.__getattr__", (price, "__code__"))
    watch.loading = False
    watch("object.__getattr__", (len, "__code__"))
    watch("object.__getattr__", (price, "__globals__"))
    assert watch.reads == []
    watch("object.__getattr__", (price, "__code__"))
    watch.paused = True
    watch("open", (str(tmp_path / "shop.py"), "r", 0))
    assert watch.reads == ["read the target's __code__"]


def _generator_target(tmp_path: Path) -> tuple[Path, Any, Any, types.TracebackType]:
    """The target as a generator function in ``shop.py``: its file, the function, a finished
    generator of it and the traceback of that generator's raise (with the target's frame)."""
    path = tmp_path / "shop.py"
    path.write_text("def price(x):\n    yield x\n    raise ValueError(x)\n")
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    price: Any = namespace["price"]
    gen = price(2)
    assert next(gen) == 2
    try:
        next(gen)
    except ValueError as exc:
        tb = exc.__traceback__
    assert tb is not None and tb.tb_next is not None
    return path, price, gen, tb


def test_watch_sees_the_installed_code_read_through_a_generator_or_a_frame(tmp_path: Path
                                                                          ) -> None:
    # Red team 6, finding 06: a test read `SystemExit` among the names of the code its run
    # installed, through `available_rooms(...).gi_code` or the f_code of the target's frame in
    # a traceback (`operator.attrgetter("tb_fr" + "ame")`, pytest's `excinfo.traceback[-1]
    # .frame.code.raw`), failed only in the reach checks and locked forged coverage.
    path, price, gen, tb = _generator_target(tmp_path)
    frame = tb.tb_next.tb_frame
    # Read by another file (pytest reporting a failure, logging, the traceback module): quiet.
    elsewhere = Watch(TARGET, str(path), fingerprint(""), str(tmp_path / "test_other.py"))
    for holder, attr in ((gen, "gi_code"), (frame, "f_code")):
        elsewhere("object.__getattr__", (holder, attr))
    assert elsewhere.reads == []
    # Read by the test file itself (here: this file), or gc asked about the function.
    watch = Watch(TARGET, str(path), fingerprint(""), __file__)
    watch("object.__getattr__", (gen, "gi_code"))
    watch("object.__getattr__", (frame, "f_code"))
    watch("object.__getattr__", (sys._getframe(), "f_code"))  # its own frame: not the target
    watch("gc.get_referents", ((price,),))
    watch("gc.get_referents", ((len, gen),))
    assert watch.reads == ["read the target's code through gi_code",
                           "read the target's code through f_code",
                           "reached the target's code through gc.get_referents"]
    # A profiler the test starts (cProfile's stats hold the code objects): by the test file
    # itself, not by another module (coverage's tracer in a new thread, threading's hook).
    watch("sys.setprofile", ())
    elsewhere("sys.settrace", ())
    assert watch.reads[-1] == "installed a profiler or tracer (sys.setprofile)"
    # Frames taken by the test itself (to walk up to the harness), every object of the process.
    watch("sys._getframe", ())
    watch("object.__getattr__", (tb, "tb_frame"))
    watch("gc.get_objects", (-1,))
    elsewhere("sys._getframe", ())
    elsewhere("object.__getattr__", (tb, "tb_frame"))
    assert watch.reads[-3:] == ["walked the process's frames or objects (sys._getframe)",
                                "walked the process's frames or objects (tb_frame)",
                                "walked the process's frames or objects (gc.get_objects)"]
    assert elsewhere.reads == []


@pytest.mark.parametrize("helper", ["inspect.py", "traceback.py"])
def test_watch_judges_a_frame_taken_by_inspect_or_traceback_by_its_caller(
        tmp_path: Path, helper: str) -> None:
    # Red team 8, finding 03: `inspect.currentframe()` calls sys._getframe in inspect.py, so
    # the watch judged inspect.py and saw nothing; the walk up to the harness went on from
    # there. The event is raised from a function compiled under the helper's file name.
    taker: dict[str, Any] = {}
    exec(compile("def currentframe(watch, event):\n    watch(event, ())\n",
                 os.path.join(os.path.dirname(types.__file__), helper), "exec"), taker)
    watch = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""), __file__)
    elsewhere = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                      str(tmp_path / "test_other.py"))
    for event in ("sys._getframe", "sys._current_frames"):
        taker["currentframe"](watch, event)
        taker["currentframe"](elsewhere, event)  # for another file (pytest's reports): quiet
    assert watch.reads == ["walked the process's frames or objects (sys._getframe)",
                           "walked the process's frames or objects (sys._current_frames)"]
    assert elsewhere.reads == []


def test_watch_lets_traceback_format_what_it_walks(tmp_path: Path) -> None:
    """Red team 11, finding 03 (a false FAIL): ``traceback.format_exc()`` walks the
    traceback's frames in traceback.py and hands on text only; ``traceback.walk_tb`` called by
    the test hands it the frames."""
    helpers: dict[str, Any] = {}
    exec(compile("def walk_tb(watch):\n    watch('object.__getattr__', (None, 'tb_frame'))\n"
                 "def format_exc(watch):\n    walk_tb(watch)\n",
                 os.path.join(os.path.dirname(types.__file__), "traceback.py"), "exec"), helpers)
    watch = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""), __file__)
    helpers["format_exc"](watch)
    assert watch.reads == []
    helpers["walk_tb"](watch)
    assert watch.reads == ["walked the process's frames or objects (tb_frame)"]


def test_watch_resolves_each_reading_file_once(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest, pluggy and logging take frames thousands of times a run; resolving the reader's
    # file each time (several lstat calls) made the whole gate about 0.4 s slower.
    watch = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                  str(tmp_path / "test_shop.py"))
    resolved: list[str] = []
    real = os.path.realpath

    def counting(path: Any, *args: Any, **kwargs: Any) -> str:
        resolved.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", counting)
    for _ in range(200):
        watch("sys._getframe", ())
        watch("object.__getattr__", (sys._getframe(), "f_code"))
    monkeypatch.undo()
    assert resolved.count(__file__) == 1
    assert watch.reads == []  # read by this file, which is not the submitted test


def test_watch_sees_the_frame_of_a_generator_of_the_target_taken_by_the_test(tmp_path: Path
                                                                            ) -> None:
    # Red team 7, finding 01: `getattr(gen, "gi_" + "frame")` (a name computed at run time)
    # handed out the suspended frame of the target's generator: its bound locals (and, with
    # `sys.getsizeof(gen)`, its slots) told a reach check from the null mutant.
    path = tmp_path / "shop.py"
    path.write_text("def price(x):\n    yield x\n")
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    price: Any = namespace["price"]
    gen = price(2)
    assert next(gen) == 2

    def other(y: int) -> Any:
        yield y

    mine = other(1)
    next(mine)
    watch = Watch(TARGET, str(path), fingerprint(""), __file__)
    watch("object.__getattr__", (mine, "gi_frame"))  # a generator of the test's own: quiet
    assert watch.reads == []
    watch("object.__getattr__", (gen, "gi_frame"))
    assert watch.reads == ["read the target's code through gi_frame"]
    elsewhere = Watch(TARGET, str(path), fingerprint(""), str(tmp_path / "test_other.py"))
    elsewhere("object.__getattr__", (gen, "gi_frame"))  # another file's business: quiet
    assert elsewhere.reads == []


def test_watch_sees_gc_asked_about_a_generator_or_frame_of_the_target(tmp_path: Path) -> None:
    # Red team 8, finding 01: `gc.get_referents(gen)` of a generator of the target lists its
    # installed code (gi_code); the watch only knew the function or its code as the argument.
    path, price, gen, tb = _generator_target(tmp_path)
    frame = tb.tb_next.tb_frame

    def other(y: int) -> Any:
        yield y

    quiet = Watch(TARGET, str(path), fingerprint(""), __file__)
    quiet("gc.get_referents", ((other(1), sys._getframe(), [gen]),))  # not the target's own
    assert quiet.reads == []
    for held in (price(3), frame):
        watch = Watch(TARGET, str(path), fingerprint(""), __file__)
        watch("gc.get_referents", ((held,),))
        assert watch.reads == ["reached the target's code through gc.get_referents"]


def test_watch_sees_the_targets_code_read_under_another_name(tmp_path: Path) -> None:
    # Red team 8, finding 05: the watch told the target by its __module__ and __qualname__,
    # which a test may set: renamed for the read of __code__, then renamed back.
    path = tmp_path / "shop.py"
    path.write_text("def price(x):\n    return x * 2\n")
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    price: Any = namespace["price"]
    watch = Watch(TARGET, str(path), fingerprint(""), __file__)

    def price_too(x: int) -> int:  # the test's own function of the same name: quiet
        return x

    price_too.__qualname__ = "price"
    watch("object.__getattr__", (price_too, "__code__"))
    assert watch.reads == []
    price.__qualname__, price.__module__ = "not_the_target", "elsewhere"
    watch("object.__getattr__", (price, "__code__"))
    assert watch.reads == ["read the target's __code__"]


def test_watch_sees_the_code_of_a_generator_handed_out_by_a_wrapper(tmp_path: Path) -> None:
    # Red team 8, finding 06: `types._GeneratorWrapper(gen).gi_code` reads gi_code in types.py
    # for its caller: the watch judged types.py, not the test, and saw nothing. The audit
    # event is raised here from a function compiled under types.py's name, as the property's.
    path = tmp_path / "shop.py"
    path.write_text("def price(x):\n    yield x\n")
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    price: Any = namespace["price"]
    wrapper: dict[str, Any] = {}
    exec(compile("def gi_code(watch, gen):\n    watch('object.__getattr__', (gen, 'gi_code'))\n",
                 types.__file__, "exec"), wrapper)
    elsewhere = Watch(TARGET, str(path), fingerprint(""), str(tmp_path / "test_other.py"))
    wrapper["gi_code"](elsewhere, price(1))  # read for another file: quiet
    assert elsewhere.reads == []
    watch = Watch(TARGET, str(path), fingerprint(""), __file__)
    wrapper["gi_code"](watch, price(1))
    assert watch.reads == ["read the target's code through gi_code"]


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


def test_guard_refuses_a_new_python_from_multiprocessing_where_the_target_is_hidden() -> None:
    # Red team 14: a spawn pool's workers cannot import the hidden target; the pool restarted
    # them until the run timed out. Refused at once, with the way out in the message.
    guard = Guard([])
    guard.test_started = True
    guard("import", ("multiprocessing.popen_spawn_posix", None, [], [], []))  # not hidden: fine
    guard.target_hidden = True
    guard("import", ("json", None, [], [], []))
    for module in ("multiprocessing.popen_spawn_posix", "multiprocessing.popen_forkserver"):
        with pytest.raises(PermissionError, match=r"get_context\('fork'\)"):
            guard("import", (module, None, [], [], []))
    assert len(guard.denied) == 2
