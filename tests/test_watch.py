"""The code watch (an audit hook in each run) on events raised by hand: what it sees, what it
lets pass, and that nothing but the frame that started it can stop it."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import inspect
import os
import subprocess
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.hooked import CONTROL, LOST, AnswerPipe, Codes, Spaces, identity
from pytest_quest.protocol import READ_RECORD, split_run_answer
from pytest_quest.scrub import fingerprint
from pytest_quest.watch import Readers, Watch, readers
from tests.test_runparts import SHOP, TARGET

#: The readers of this process (pytest, traceback, logging, inspect... are loaded here too).
READERS = readers()


def watching(*args: Any, **kwargs: Any) -> Watch:
    """A watch in the test's time, as a run's is once its test code starts."""
    kwargs.setdefault("known", READERS)
    watch = Watch(*args, **kwargs)
    watch(CONTROL, ("start",))
    return watch


def _watch_on(path: Path | str, **kwargs: Any) -> Watch:
    """A watch in the test's time for a target at ``path``, with this file as the test."""
    return watching(TARGET, str(path), fingerprint(""), __file__, **kwargs)


def _watch(tmp_path: Path) -> tuple[Watch, Path]:
    path = tmp_path / "shop.py"
    path.write_bytes(SHOP)
    return watching(TARGET, str(path), fingerprint("def price(x):\n    return x * 2")), path


def test_watch_sees_the_source_file_opened_and_its_text_compiled(tmp_path: Path) -> None:
    watch, path = _watch(tmp_path)
    watch(CONTROL, ("item", "t.py::test_a"))
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


def test_opening_a_file_the_kernel_hides_is_no_read(tmp_path: Path) -> None:
    # hypothesis reads every local module's source for constants (calibration of
    # python-dateutil): where the run's Landlock layer hides the target's file the open
    # fails and reads nothing, and only the test's own open is told. Its text compiled stays
    # a read, hidden or not.
    path = tmp_path / "shop.py"
    path.write_bytes(SHOP)
    hidden = watching(TARGET, str(path), fingerprint("def price(x):\n    return x * 2"),
                      __file__, hidden=True)
    hidden("open", (str(path), "r", 0))  # raised here: this file is the test's
    hidden("compile", (SHOP.decode(), "<copy>"))
    assert hidden.reads == ["opened the target's source file",
                            "compiled the target's source text"]
    library = watching(TARGET, str(path), fingerprint("def price(x):\n    return x * 2"),
                       "/elsewhere/test_other.py", hidden=True)  # this file: no test's
    library("open", (str(path), "r", 0))
    assert library.reads == []


def _load(path: Path, source: str) -> Any:
    """The target ``price`` written to ``path`` and loaded, as a run's module has it."""
    path.write_text(source)
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["price"]


def _price(tmp_path: Path) -> Any:
    namespace: dict[str, object] = {"__name__": TARGET.module}
    exec(compile(SHOP, str(tmp_path / "shop.py"), "exec"), namespace)
    return namespace["price"]


def test_watch_sees_the_targets_code_read_but_not_while_our_loader_imports(tmp_path: Path
                                                                          ) -> None:
    watch = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""))
    price = _price(tmp_path)
    watch("object.__getattr__", (price, "__code__"))  # before test code: the project's import
    watch(CONTROL, ("start",))  # this frame starts it: it steers it
    watch(CONTROL, ("loading", True))
    watch("object.__getattr__", (price, "__code__"))
    watch(CONTROL, ("loading", False))
    watch("object.__getattr__", (len, "__code__"))
    watch("object.__getattr__", (price, "__globals__"))
    assert watch.reads == []
    watch("object.__getattr__", (price, "__code__"))
    watch(CONTROL, ("end",))  # no such thing: judged until the run's process ends
    watch("open", (str(tmp_path / "shop.py"), "r", 0))
    assert watch.reads == ["read the target's __code__", "raised the code watch's own event",
                           "opened the target's source file"]


def test_nothing_but_the_frame_that_started_the_watch_stops_or_pauses_it(tmp_path: Path
                                                                        ) -> None:
    # In-house: a test reached the watch through request.config.pluginmanager (the judge's
    # run held it) and set its pause flag around a read of __code__. Now nothing holds it,
    # and its own events from any other frame (the test raising them, or calling our code
    # that raises them) change nothing and are a finding.
    watch = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""))
    price = _price(tmp_path)
    watch(CONTROL, ("start",))

    def test_code() -> None:
        watch(CONTROL, ("end",))
        watch(CONTROL, ("loading", True))  # not from our loader: believed by nobody
        watch("object.__getattr__", (price, "__code__"))

    test_code()
    watch(CONTROL, ("start",))  # started once: a second start moves nothing (and is seen)
    test_code()
    assert watch.reads == ["raised the code watch's own event", "read the target's __code__"]
    assert watch(CONTROL, ()) is None and watch(CONTROL, (b"end",)) is None  # not words


def test_watch_lets_iscoroutinefunction_read_the_flags_and_nothing_else(tmp_path: Path
                                                                        ) -> None:
    # inspect.iscoroutinefunction reads __code__ for its flags, hands it to nothing and runs
    # no code of the test while holding it. inspect.signature does not qualify: it calls the
    # Parameter class of its Signature class, a test's subclass, with the code in a local
    # that a frame walk reads (red team 28), so its read counts (red team 27's false FAIL).
    price = _price(tmp_path)

    def flags(watch: Watch) -> None:
        watch("object.__getattr__", (price, "__code__"))

    def theirs(watch: Watch) -> None:
        watch("object.__getattr__", (price, "__code__"))

    watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                     known=Readers(signature=Codes.of([flags])))
    flags(watch)
    assert watch.reads == []
    theirs(watch)
    assert watch.reads == ["read the target's __code__"]
    import inspect

    assert READERS.signature.holds(inspect._has_code_flag.__code__)  # type: ignore
    assert not READERS.signature.holds(inspect._signature_from_function.__code__)  # type: ignore


def test_what_threading_or_our_retrying_sys_installs_must_be_ours(tmp_path: Path) -> None:
    # Red team 28: threading's start of a thread installs whatever `threading._trace_hook` and
    # `_profile_hook` hold through whatever `threading._sys` is, and forkrun's retrying sys
    # installs its `function` with its `install`: both plain attributes a test can set (a
    # copy of sys whose setprofile is a cProfile profiler's enable).
    def hook(frame: Any, event: str, arg: Any) -> None:
        pass

    def theirs(frame: Any, event: str, arg: Any) -> None:
        pass

    start: dict[str, Any] = {"_sys": sys, "_trace_hook": hook, "_profile_hook": None}
    exec("def _bootstrap_inner(watch):\n    watch('sys.settrace', ())\n", start)
    retry: dict[str, Any] = {}
    exec("def _retry(watch, install, function):\n    watch('sys.setprofile', ())\n", retry)
    known = Readers(installers=Codes.of([start["_bootstrap_inner"],
                                         retry["_retry"]]), hooks=Codes.of([hook]))
    watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=known)
    start["_bootstrap_inner"](watch)
    retry["_retry"](watch, sys.setprofile, hook)
    retry["_retry"](watch, sys.settrace, None)
    assert watch.reads == []
    for change in ({"_trace_hook": theirs}, {"_sys": types.SimpleNamespace()},
                   {"_profile_hook": True}):
        bad = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=known)
        start.update({"_sys": sys, "_trace_hook": hook, "_profile_hook": None, **change})
        start["_bootstrap_inner"](bad)
        assert bad.reads == ["installed a profiler or tracer (sys.settrace)"], change
    for install, function in ((sys.setprofile, theirs), (print, hook)):
        bad = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=known)
        retry["_retry"](bad, install, function)
        assert bad.reads == ["installed a profiler or tracer (sys.setprofile)"]


def test_the_targets_code_replaced_is_a_replacement_of_the_test_under_way(tmp_path: Path
                                                                         ) -> None:
    read, write = os.pipe()
    try:
        watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                         pipe=AnswerPipe(write))
        watch(CONTROL, ("item", "t.py::test_a"))
        price = _price(tmp_path)
        watch("object.__setattr__", (price, "__code__", len))
        watch("object.__setattr__", (len, "__code__", len))  # not the target: quiet
        os.write(write, b"{}")
        os.close(write)
        data = os.read(read, 1 << 16)
    finally:
        os.close(read)
    assert split_run_answer(data, "run 1") == ({"replaced": ("t.py::test_a",)}, b"{}")


def test_watch_writes_each_finding_to_the_answer_pipe_at_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    read, write = os.pipe()
    try:
        watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                         pipe=AnswerPipe(write))
        watch(CONTROL, ("item", "t.py::test_a"))
        price = _price(tmp_path)
        watch("object.__getattr__", (price, "__code__"))
        watch("object.__getattr__", (price, "__code__"))  # once is enough
        os.write(write, b'{"failed": null}')
        os.close(write)
        data = os.read(read, 1 << 16)
    finally:
        os.close(read)
    assert data.startswith(READ_RECORD)
    assert split_run_answer(data, "run 1") == (
        {"reads": ("t.py::test_a: read the target's __code__",)}, b'{"failed": null}')
    # A pipe replaced under the same number (or closed) ends the run before the read returns.
    ended: list[int] = []

    def exit_(code: int) -> None:
        ended.append(code)

    import pytest_quest.hooked

    monkeypatch.setattr(pytest_quest.hooked, "_exit", exit_)  # bound there at import
    read, write = os.pipe()
    other_read, other_write = os.pipe()
    try:
        watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                         pipe=AnswerPipe(write))
        os.dup2(other_write, write)
        watch("object.__getattr__", (price, "__code__"))
        assert ended == [LOST]
        os.set_blocking(other_read, False)
        with pytest.raises(BlockingIOError):
            os.read(other_read, 100)  # nothing went to the other pipe
    finally:
        for fd in (read, write, other_read, other_write):
            os.close(fd)


def test_a_line_before_the_answer_that_is_no_finding_is_tampering() -> None:
    from pytest_quest.protocol import ProtocolError

    assert split_run_answer(b'{"a": 1}', "run 2") == ({}, b'{"a": 1}')
    assert split_run_answer(b"", "run 2") == ({}, b"")
    for data in (b'{"reads": []}\n{"a": 1}', READ_RECORD + b"zz\n{}", b"\n{}"):
        with pytest.raises(ProtocolError, match="neither"):
            split_run_answer(data, "run 2")


def test_watch_runs_no_code_of_the_test(tmp_path: Path) -> None:
    # A str subclass's __eq__, a path's __fspath__ or a function's __module__ would run the
    # test's code inside the hook, where a frame walk hands out the watch itself.
    ran: list[str] = []

    class Sly(str):
        def __eq__(self, other: object) -> bool:
            ran.append("eq")
            return True

        __hash__ = str.__hash__

        def __contains__(self, item: object) -> bool:
            ran.append("contains")
            return True

    class Where(os.PathLike):  # type: ignore[type-arg]
        def __fspath__(self) -> str:
            ran.append("fspath")
            return str(tmp_path / "shop.py")

    def func() -> None:
        pass

    func.__module__ = Sly(TARGET.module)  # type: ignore[assignment]
    watch = _watch_on(tmp_path / "shop.py")
    watch("object.__getattr__", (func, Sly("__code__")))
    watch("object.__getattr__", (func, "__code__"))
    watch("open", (Where(), Sly("r"), 0))
    watch("compile", (Sly("x"), Where()))
    watch(CONTROL, (Sly("end"),))
    watch(CONTROL, ("item", Sly("t.py::x")))
    assert ran == [] and watch.reads == []
    watch("open", (tmp_path / "shop.py", "r", 0))  # pathlib's own class: read as text
    assert watch.reads == ["opened the target's source file"]


def test_threads_of_the_test_are_watched_too(tmp_path: Path) -> None:
    import threading

    price = _price(tmp_path)
    watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""))
    thread = threading.Thread(target=watch, args=("object.__getattr__", (price, "__code__")))
    thread.start()
    thread.join()
    assert watch.reads == ["read the target's __code__"]


def test_watch_sees_a_monitoring_callback_and_any_walk_of_all_objects(tmp_path: Path) -> None:
    # PEP 669 hands each callback the code object it starts (the installed code, no read of
    # __code__); gc.get_referrers(Watch) handed out the watch itself, whoever asked.
    elsewhere = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                         str(tmp_path / "test_other.py"))
    elsewhere("sys.monitoring.register_callback", (None,))  # unregistering: ours, at the end
    assert elsewhere.reads == []
    elsewhere("sys.monitoring.register_callback", (print,))
    elsewhere("gc.get_referrers", ((Watch,),))
    elsewhere("gc.get_objects", (-1,))
    assert elsewhere.reads == ["installed a sys.monitoring callback",
                               "walked the process's frames or objects (gc.get_referrers)",
                               "walked the process's frames or objects (gc.get_objects)"]


def _generator_target(tmp_path: Path) -> tuple[Path, Any, Any, types.TracebackType]:
    """The target as a generator function in ``shop.py``: its file, the function, a finished
    generator of it and the traceback of that generator's raise (with the target's frame)."""
    path = tmp_path / "shop.py"
    price = _load(path, "def price(x):\n    yield x\n    raise ValueError(x)\n")
    gen = price(2)
    assert next(gen) == 2
    try:
        next(gen)
    except ValueError as exc:
        tb = exc.__traceback__
    assert tb is not None and tb.tb_next is not None
    return path, price, gen, tb


def _reporter(watch: Watch, holder: Any, attr: str) -> None:
    """Reads for its own report (pytest, logging, traceback): a reader the watch knows."""
    watch("object.__getattr__", (holder, attr))


QUIET = Readers(consumers=Codes.of([_reporter]))


def test_watch_sees_the_installed_code_read_through_a_generator_or_a_frame(tmp_path: Path
                                                                          ) -> None:
    # Red team 6, finding 06: a test read `SystemExit` among the names of the code its run
    # installed, through `available_rooms(...).gi_code` or the f_code of the target's frame in
    # a traceback (`operator.attrgetter("tb_fr" + "ame")`, pytest's `excinfo.traceback[-1]
    # .frame.code.raw`), failed only in the reach checks and locked forged coverage. Red team
    # 27: code the test exec'd (named `<string>`) read it too: the reader is told by its code
    # object, and only known readers that keep what they read are quiet.
    path, _, gen, tb = _generator_target(tmp_path)
    frame = tb.tb_next.tb_frame
    watch = _watch_on(path, known=QUIET)
    for holder, attr in ((gen, "gi_code"), (frame, "f_code")):
        _reporter(watch, holder, attr)  # a reader that keeps it: quiet
    assert watch.reads == []
    source = "def read(watch, holder, attr):\n    watch('object.__getattr__', (holder, attr))\n"
    exec(compile(source, "<string>", "exec"), made := {})
    made["read"](watch, gen, "gi_code")
    watch("object.__getattr__", (frame, "f_code"))
    watch("object.__getattr__", (sys._getframe(), "f_code"))  # its own frame: not the target
    assert watch.reads == ["read the target's code through gi_code",
                           "read the target's code through f_code"]
    # A profiler or tracer installed by anything but ours (cProfile's stats hold the code
    # objects each call ran; red team 27 enabled it from a thread's run()).
    watch("sys.setprofile", ())
    assert watch.reads[-1] == "installed a profiler or tracer (sys.setprofile)"
    tracing = _watch_on(path, known=Readers(tracers=Codes.of([_reporter])))
    _reporter(tracing, None, "x")  # not an attribute read of the target: nothing
    this = test_watch_sees_the_installed_code_read_through_a_generator_or_a_frame.__code__
    ours = _watch_on(path, known=Readers(tracers=Codes([this])))
    ours("sys.settrace", ())
    assert ours.reads == [] and tracing.reads == []
    # Frames taken by the test itself (to walk up to the harness), every object of the process.
    watch("sys._getframe", ())
    watch("object.__getattr__", (tb, "tb_frame"))
    watch("gc.get_objects", (-1,))
    assert watch.reads[-3:] == ["walked the process's frames or objects (sys._getframe)",
                                "walked the process's frames or objects (tb_frame)",
                                "walked the process's frames or objects (gc.get_objects)"]
    elsewhere = watching(TARGET, str(path), fingerprint(""), str(tmp_path / "test_other.py"))
    elsewhere("sys._getframe", ())  # a module's code (this file, for another test): quiet
    elsewhere("object.__getattr__", (tb, "tb_frame"))
    assert elsewhere.reads == []
    made["read"](elsewhere, tb, "tb_frame")  # code made at run time: the test's
    assert elsewhere.reads == ["walked the process's frames or objects (tb_frame)"]


def test_watch_judges_a_frame_taken_by_inspect_or_traceback_by_its_caller(tmp_path: Path
                                                                         ) -> None:
    # Red team 8, finding 03: `inspect.currentframe()` calls sys._getframe in inspect.py, so
    # the watch judged inspect.py and saw nothing; the walk up to the harness went on from
    # there. A helper that takes frames for its caller is skipped (told by its code object).
    def currentframe(watch: Watch, event: str) -> None:
        assert sys._getframe and sys._current_frames  # it names what it calls, as inspect's
        watch(event, ())

    known = Readers(passing=Codes.of([currentframe]))
    watch = _watch_on(tmp_path / "shop.py", known=known)
    elsewhere = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                         str(tmp_path / "test_other.py"), known=known)
    for event in ("sys._getframe", "sys._current_frames"):
        currentframe(watch, event)
        currentframe(elsewhere, event)  # for another module (pytest's reports): quiet
    assert watch.reads == ["walked the process's frames or objects (sys._getframe)",
                           "walked the process's frames or objects (sys._current_frames)"]
    assert elsewhere.reads == []
    assert READERS.passing.holds(__import__("inspect").currentframe.__code__)


def test_watch_lets_traceback_format_what_it_walks(tmp_path: Path) -> None:
    """Red team 11, finding 03 (a false FAIL): ``traceback.format_exc()`` walks the
    traceback's frames in traceback.py and hands on text only; ``traceback.walk_tb`` called by
    the test hands it the frames."""
    def walk_tb(watch: Watch) -> None:
        watch("object.__getattr__", (None, "tb_frame"))

    def format_exc(watch: Watch) -> None:
        walk_tb(watch)

    known = Readers(walkers=Codes.of([walk_tb, format_exc]))
    watch = _watch_on(tmp_path / "shop.py", known=known)
    format_exc(watch)
    assert watch.reads == []
    walk_tb(watch)
    assert watch.reads == ["walked the process's frames or objects (tb_frame)"]


def test_watch_calls_nothing_the_test_can_replace(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Red team 27: the watch called os.path.realpath (and through it os.lstat) and os.write as
    # they were when it ran: a test replaced them, walked up to the watch from its own
    # function and switched it off, or dropped the findings on their way to the pipe.
    def trap(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the watch ran a function the test can replace")

    price = _price(tmp_path)
    read, write = os.pipe()
    try:
        watch = _watch_on(tmp_path / "shop.py", pipe=AnswerPipe(write))
        with monkeypatch.context() as patched:
            for module, name in ((os.path, "realpath"), (os.path, "normpath"), (os, "lstat"),
                                 (os, "fstat"), (os, "write"), (os, "readlink"),
                                 (os, "getcwd")):
                patched.setattr(module, name, trap)
            watch("compile", ("x = 1", "hotel/../shop.py"))
            watch("open", (str(tmp_path / "shop.py"), "r", 0))
            watch("object.__getattr__", (price, "__code__"))
            watch("sys._getframe", ())
        os.close(write)
        data = os.read(read, 1 << 16)
    finally:
        os.close(read)
    assert split_run_answer(data, "run 1")[0]["reads"] == (
        "opened the target's source file", "read the target's __code__",
        "walked the process's frames or objects (sys._getframe)")


def test_watch_sees_the_frame_of_a_generator_of_the_target_taken_by_the_test(tmp_path: Path
                                                                            ) -> None:
    # Red team 7, finding 01: `getattr(gen, "gi_" + "frame")` (a name computed at run time)
    # handed out the suspended frame of the target's generator: its bound locals (and, with
    # `sys.getsizeof(gen)`, its slots) told a reach check from the null mutant.
    path = tmp_path / "shop.py"
    price = _load(path, "def price(x):\n    yield x\n")
    gen = price(2)
    assert next(gen) == 2

    def other(y: int) -> Any:
        yield y

    mine = other(1)
    next(mine)
    watch = _watch_on(path, known=QUIET)
    _reporter(watch, gen, "gi_frame")  # a reader that keeps it: quiet
    assert watch.reads == []
    watch("object.__getattr__", (gen, "gi_frame"))
    assert watch.reads == ["walked the process's frames or objects (gi_frame)"]
    # the test's own generator: a frame that leads below once resumed (red team 30); any
    # other one too, the standard library's included (red team 36 resumed Sequence.__iter__
    # from its __getitem__ run by a reader that held the code, then walked f_back from it)
    import collections.abc

    class Items(collections.abc.Sequence[int]):
        def __getitem__(self, index: Any) -> Any:
            raise IndexError(index)

        def __len__(self) -> int:
            return 0

    library = iter(Items())
    for taken in (mine, library):
        own = _watch_on(path, known=QUIET)
        own("object.__getattr__", (taken, "gi_frame"))
        assert own.reads == ["walked the process's frames or objects (gi_frame)"]
    theirs = _watch_on(path, known=QUIET)
    _compiled_as(_site("somelib", "gen.py"), TAKE.replace("tb, 'tb_frame'", "tb, 'gi_frame'")
                 )["take"](theirs, library)
    assert theirs.reads == []  # a library taking one for itself


def test_watch_sees_gc_asked_what_anything_holds(tmp_path: Path) -> None:
    # Red team 8, finding 01: `gc.get_referents(gen)` of a generator of the target lists its
    # installed code (gi_code). Red team 28: of a traceback, the frames of a reader holding
    # the code in a local. Whatever the argument, in the test's time it is a walk.
    path, price, gen, tb = _generator_target(tmp_path)
    for held in ((price,), (tb,), (len, [gen])):
        watch = _watch_on(path)
        watch("gc.get_referents", (held,))
        assert watch.reads == ["walked the process's frames or objects (gc.get_referents)"]


def test_watch_sees_the_targets_code_read_under_another_name(tmp_path: Path) -> None:
    # Red team 8, finding 05: the watch told the target by its __module__ and __qualname__,
    # which a test may set: renamed for the read of __code__, then renamed back.
    path = tmp_path / "shop.py"
    price = _load(path, "def price(x):\n    return x * 2\n")
    watch = _watch_on(path)

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
    # for its caller: the watch judged types.py, not the test, and saw nothing. A reader that
    # reads for its caller is skipped: its caller is judged.
    path = tmp_path / "shop.py"
    price = _load(path, "def price(x):\n    yield x\n")

    def gi_code(watch: Watch, gen: Any) -> None:
        watch("object.__getattr__", (gen, "gi_code"))

    def report(watch: Watch, gen: Any) -> None:
        gi_code(watch, gen)

    known = Readers(passing=Codes.of([gi_code]), consumers=Codes.of([report]))
    watch = _watch_on(path, known=known)
    report(watch, price(1))  # read for a reader that keeps it: quiet
    assert watch.reads == []
    gi_code(watch, price(1))  # read for this test
    assert watch.reads == ["read the target's code through gi_code"]
    assert READERS.passing.holds(types._GeneratorWrapper.gi_code.fget.__code__)  # type: ignore


def test_watch_hashes_no_code_object_of_the_test(tmp_path: Path) -> None:
    # A code object the test made may hold any constant: a set lookup of it would hash them,
    # running the test's __hash__ inside the hook (where a frame walk finds the watch).
    ran: list[str] = []

    class Sly:
        def __hash__(self) -> int:
            ran.append("hash")
            return 1

        def __eq__(self, other: object) -> bool:
            ran.append("eq")
            return False

    def reader(watch: Watch, func: Any) -> None:
        watch("object.__getattr__", (func, "__code__"))
        watch(CONTROL, ("loading", True))

    code = reader.__code__
    crafted = types.FunctionType(code.replace(co_consts=(*code.co_consts, Sly())), globals())
    watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=Readers(
        signature=Codes.of([_price]), loader=Codes.of([_price])))
    crafted(watch, _price(tmp_path))
    assert ran == [] and watch.reads == ["read the target's __code__"]


def test_a_consumer_whose_callee_was_replaced_is_no_consumer(tmp_path: Path) -> None:
    # traceback's positions lookup hands the frame's code to a module global: a plain
    # monkeypatch of that global would make it a gadget, so it is believed only intact.
    path, _, _, tb = _generator_target(tmp_path)
    frame = tb.tb_next.tb_frame
    names: dict[str, Any] = {"handoff": len}

    def positions(watch: Watch) -> None:
        watch("object.__getattr__", (frame, "f_code"))

    known = Readers(consumers=Codes.of([positions]),
                    guards=((identity(positions.__code__), names, "handoff", len),))
    watch = _watch_on(path, known=known)
    positions(watch)
    assert watch.reads == []
    names["handoff"] = print
    positions(watch)
    assert watch.reads == ["read the target's code through f_code"]
    import linecache
    import logging
    import traceback

    # red team 32 replaced traceback.FrameSummary, which the summaries call holding the code
    assert {(id(names_), name) for _, names_, name, _ in READERS.guards} == {
        (id(vars(traceback)), "_get_code_position"), (id(vars(traceback)), "FrameSummary"),
        (id(vars(traceback)), "linecache"), *((id(vars(linecache)), name) for name in (
            "lazycache", "checkcache", "getline", "getlines", "updatecache")),
        (id(vars(logging)), "currentframe"), (id(vars(logging)), "_is_internal_frame")}
    two = Readers(consumers=Codes.of([positions]), guards=(
        (identity(positions.__code__), names, "handoff", print),
        (identity(positions.__code__), names, "other", None)))
    both = _watch_on(path, known=two)
    positions(both)
    assert both.reads == []
    names["other"] = len  # any one of its callees replaced
    positions(both)
    assert both.reads == ["read the target's code through f_code"]


def test_pytest_reading_for_its_report_is_quiet_but_not_through_a_trampoline(tmp_path: Path
                                                                              ) -> None:
    # pytest's traceback API reads a frame's code for its reports and for text getters; a C
    # callable between its frames (a map of operator.attrgetter("frame.code.raw") that pytest
    # consumes while collecting) reads for the test: each link must be called by name.
    path, _, _, tb = _generator_target(tmp_path)
    holder = types.SimpleNamespace(frame=tb.tb_next.tb_frame)

    def code(watch: Watch, item: Any) -> None:  # reads, like pytest's Frame.code
        watch("object.__getattr__", (item.frame, "f_code"))

    def report(watch: Watch, item: Any) -> None:  # calls it by name
        code(watch, item)

    def collect(watch: Watch, items: list[Any], reader: Any) -> None:  # names neither
        list(map(reader, [watch] * len(items), items))

    def ours(watch: Watch, reader: Any) -> None:  # our run, under pytest
        report(watch, holder)
        assert watch.reads == []
        collect(watch, [holder], reader)

    known = Readers(reporters=Codes.of([code, report, collect]),
                    consumers=Codes.of([ours]))
    watch = _watch_on(path, known=known)
    ours(watch, code)
    assert watch.reads == ["read the target's code through f_code"]  # the map: not named
    test = _watch_on(path, known=known)
    report(test, holder)  # pytest's API called by the test itself
    assert test.reads == ["read the target's code through f_code"]


def test_ctypes_used_by_the_test_is_a_read_but_not_by_a_module(tmp_path: Path) -> None:
    # ctypes reads any memory, the installed code included (red team 27, 06; 28 imported it
    # through pkgutil.resolve_name): its audit events from the test's own code are findings;
    # a project's wrapper of a C library (a module's file) calls it honestly.
    wrapper: dict[str, Any] = {}
    exec(compile("def call(watch):\n    watch('ctypes.call_function', (0, ()))\n",
                 str(tmp_path / "binding.py"), "exec"), wrapper)
    watch = _watch_on(tmp_path / "shop.py")
    wrapper["call"](watch)
    assert watch.reads == []
    watch("ctypes.cdata", (12345,))
    assert watch.reads == ["used ctypes (ctypes.cdata)"]


def test_loading_ctypes_for_the_test_is_a_finding_for_a_projects_module_not(
        tmp_path: Path) -> None:
    # Red team 52: with ctypes' C half in memory, a ctypes object written through memoryview
    # reads any address with no audit event. The judge keeps it out of runs (_kernel.c); its
    # import for the test is a finding, under any package name or by its file, and so is
    # cffi's C half; the project's own code importing it, directly or through module bodies
    # that import one another down from it (the project imports numpy, numpy imports
    # ctypes), is the project's environment.
    import ctypes as ctypes_package

    import pytest_quest
    from pytest_quest import watch as watch_module

    loaded = "loaded ctypes, whose objects read any memory with no audit event"
    project = tmp_path / "project"

    def watch() -> Watch:
        return _watch_on(tmp_path / "shop.py", project=str(project))

    for event in (("_ctypes", None), ("pkg._ctypes", None), ("_cffi_backend", None),
                  ("innocent", watch_module._CTYPES_FILE)):
        test = watch()
        test("import", (*event, [], [], []))
        assert test.reads == [loaded], event
    other = watch()
    other("import", ("json", None, [], [], []))
    other("import", ("_json", "/nowhere/_json.so", [], [], []))
    assert other.reads == []

    def made(filename: str, source: str) -> dict[str, Any]:
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), namespace)
        return namespace

    event = "('import', ('_ctypes', None, [], [], []))"
    names = "    try:\n        return _ctypes\n    except NameError:\n        return None\n"
    binding = made(str(project / "binding.py"),
                   f"def load(watch):\n    watch{event}\n{names}\n"
                   "def call(fn, watch):\n    fn(watch)\n\n"
                   "def run(body, namespace):\n    exec(body, namespace)\n"
                   "    if not namespace:  # the modules it imports, named\n"
                   "        return ctypes, _ctypes\n")
    honest = watch()
    binding["load"](honest)  # the project's own import: its code names the module
    assert honest.reads == []
    # a C callable imports it from the project's frame, which does not name it (red team 59's
    # functools.partial(__import__, "_ctypes") as a callback or a module's __getattr__)
    import functools

    trampoline = watch()
    binding["call"](functools.partial(trampoline, "import"), ("_ctypes", None, [], [], []))
    assert trampoline.reads == [loaded]
    # a function between (a library's or the standard library's, given to the project as a
    # callback or called by pytest as a fixture: red team 56) works for whoever called it
    entry = made(_site("somelib", "entry.py"), f"def load(watch):\n    watch{event}\n")
    for caller in (lambda w: binding["call"](entry["load"], w), entry["load"]):
        through = watch()
        caller(through)
        assert through.reads == [loaded]
    ours = made(os.path.join(os.path.dirname(pytest_quest.__file__), "extra.py"),
                f"def load(watch):\n    watch{event}\n")
    mine = watch()
    binding["call"](ours["load"], mine)  # our code never imports it for a run
    assert mine.reads == [loaded]
    # module bodies importing one another down from the project's code: its environment;
    # the same body imported by the test (red team 57's sharedctypes) is the test's
    body = compile(f"_quest_watch{event}\n_ctypes = None\n", _site("somelib", "__init__.py"),
                   "exec")
    dlopen = compile("_quest_watch('ctypes.dlopen', (None,)) if True else _ctypes\n",
                     ctypes_package.__file__, "exec")  # ctypes' body binds libc at import
    for code, namespace in ((body, {}), (dlopen, vars(ctypes_package))):
        for importer, expected in ((binding["run"], []), (exec, [loaded])):
            seen = watch()
            namespace["_quest_watch"] = seen
            try:
                importer(code, namespace)
            finally:
                del namespace["_quest_watch"]
            assert seen.reads == expected, (code.co_filename, importer)


def test_frames_from_a_running_generator_or_a_trampoline_are_a_walk(tmp_path: Path) -> None:
    # Red team 29: a test's own generator read its gi_frame while running (f_back reaches
    # every frame below, no audit event), and a thread pool's worker ran sys._current_frames
    # for the test (the nearest Python frame, concurrent.futures', names nothing it called).
    seen: list[Watch] = []

    def walk() -> Any:
        watch = _watch_on(tmp_path / "shop.py")
        seen.append(watch)
        watch("object.__getattr__", (running, "gi_frame"))  # running: it is this one
        yield

    running = walk()
    next(running)
    assert seen[0].reads == ["walked the process's frames or objects (gi_frame)"]
    # Suspended, the test's own generator's frame leads nowhere yet, but once resumed from
    # under a reader its f_back leads there with no event (red team 30): a walk too. A
    # library's read of it (trio checks each task's frame) and a generator of a module's
    # code are not.
    done = _watch_on(tmp_path / "shop.py")
    done("object.__getattr__", (running, "gi_frame"))
    assert done.reads == ["walked the process's frames or objects (gi_frame)"]
    library = _compiled_as(_site("somelib", "tasks.py"),
                           "def check(watch, gen):\n    watch('object.__getattr__', (gen, "
                           "'gi_frame'))\n")
    kept = _watch_on(tmp_path / "shop.py")
    library["check"](kept, running)
    _, _, gen, _ = _generator_target(tmp_path)
    kept("object.__getattr__", (gen, "gi_frame"))  # finished: no frame at all
    assert kept.reads == []
    import inspect
    assert READERS.keepers.holds(inspect.getgeneratorstate.__code__)  # a state, no frame

    def worker(watch: Watch, fn: Any) -> None:  # like concurrent.futures' _WorkItem.run
        fn("sys._current_frames", ())

    pool = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                    str(tmp_path / "test_other.py"))
    worker(pool, pool)
    assert pool.reads == ["walked the process's frames or objects (sys._current_frames)"]
    # Our own code calls sys._getframe through a bound name (the guard's `getframe`): a
    # false FAIL of every honest test in flake8-pyi's calibration, one run.
    ours = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                    str(tmp_path / "test_other.py"),
                    known=Readers(consumers=Codes.of([worker])))
    worker(ours, ours)
    assert ours.reads == []


def test_ctypes_through_a_trampoline_of_the_standard_library_is_a_read(tmp_path: Path) -> None:
    import concurrent.futures.thread as pool_module

    runner: dict[str, Any] = {}
    exec(compile("def run(watch):\n    watch('ctypes.cdata', (1,))\n",
                 pool_module.__file__, "exec"), runner)
    watch = watching(TARGET, str(tmp_path / "shop.py"), fingerprint(""),
                     str(tmp_path / "test_other.py"))
    runner["run"](watch)
    assert watch.reads == ["used ctypes (ctypes.cdata)"]


def test_a_librarys_reader_keeps_what_it_reads_the_standard_librarys_hands_it_on(
        tmp_path: Path) -> None:
    # trio names each async generator by its code (pyee's honest test, calibration); a venv's
    # site-packages sit under its own lib folder, which is not the standard library.
    import sysconfig

    path, _, gen, _ = _generator_target(tmp_path)
    site = os.path.join(sysconfig.get_paths()["purelib"], "somelib", "util.py")
    stdlib = os.path.join(os.path.dirname(os.__file__), "somewhere.py")
    source = "def name_of(watch, gen):\n    watch('object.__getattr__', (gen, 'gi_code'))\n"
    for filename, seen in ((site, []), (stdlib, ["read the target's code through gi_code"])):
        reader: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), reader)
        watch = watching(TARGET, str(path), fingerprint(""), str(tmp_path / "test_other.py"))
        reader["name_of"](watch, gen)
        assert watch.reads == seen, filename


def _compiled_as(filename: str, source: str) -> dict[str, Any]:
    """Functions whose code carries ``filename``, made before any watch exists (a module's):
    where a loaded module has that file, they run with its globals, as its own functions do
    (the watch takes a module's code run with other globals for the test's)."""
    from pytest_quest.hooked import module_homes

    namespace: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), namespace)
    homes = module_homes().get(filename)
    if homes:
        for name, value in list(namespace.items()):
            if type(value) is types.FunctionType:
                namespace[name] = types.FunctionType(value.__code__, homes[0], value.__name__,
                                                     value.__defaults__, value.__closure__)
    return namespace


#: A real module file of a library, with its ``.pyc`` (pytest's, imported by now).
_LIBRARY_FILE = sys.modules["_pytest.outcomes"].__file__ or ""


def _site(*parts: str) -> str:
    """A file in this interpreter's site-packages: a library's."""
    import sysconfig

    return os.path.join(sysconfig.get_paths()["purelib"], *parts)


def _traceback() -> types.TracebackType:
    try:
        raise ValueError("x")
    except ValueError as exc:
        assert exc.__traceback__ is not None
        return exc.__traceback__


TAKE = "def take(watch, tb):\n    watch('object.__getattr__', (tb, 'tb_frame'))\n"
WALKED = ["walked the process's frames or objects (tb_frame)"]


def test_code_compiled_in_the_tests_time_is_the_tests_whatever_its_name(tmp_path: Path
                                                                       ) -> None:
    # Red team 30: a probe compiled as /opt/quest-helpers/probes.py (and the whole test)
    # passed for a library's code, which keeps what it takes.
    name = "/opt/quest-helpers/probes.py"
    probe, tb = _compiled_as(name, TAKE), _traceback()
    before = _watch_on(tmp_path / "shop.py")
    probe["take"](before, tb)
    assert before.reads == [] and before.made == set()
    for event, args in (("compile", ("x = 1", name)),
                        ("code.__new__", (watching.__code__.co_code, name, "take", 2, 0, 0,
                                          2, 2, 3)),
                        ("compile", ("x = 1", "<frozen importlib._bootstrap>"))):
        watch = _watch_on(tmp_path / "shop.py")
        watch(event, args)
        probe["take"](watch, tb)
        found = [read for read in watch.reads if not read.startswith("made a code object")]
        assert found == (WALKED if args[1] == name else []), event
    relative = _watch_on(tmp_path / "shop.py")
    relative("compile", ("x = 1", "<string>"))  # the test's already: nothing to keep
    assert relative.made == set()


def test_the_import_systems_compile_of_a_modules_file_makes_nothing_the_tests(
        tmp_path: Path) -> None:
    """Told by the code of each frame: SourceLoader.get_code (of a plain SourceFileLoader,
    which reads the module's own file) -> source_to_code -> _call_with_frames_removed."""
    import dataclasses
    from importlib.machinery import SourceFileLoader

    chain = _compiled_as("<import>", (
        "def _call_with_frames_removed(watch, source, name):\n"
        "    watch('compile', (source, name))\n"
        "def source_to_code(watch, source, name):\n"
        "    _call_with_frames_removed(watch, source, name)\n"
        "def get_code(watch, self, source, name):\n"
        "    source_to_code(watch, source, name)\n"))
    known = dataclasses.replace(READERS, importers=Codes.of(
        chain[n] for n in ("_call_with_frames_removed", "source_to_code", "get_code")))
    name = _LIBRARY_FILE  # a library's real file: what the import system compiles is read
    own = Path(name).read_bytes()
    probe, tb = _compiled_as(name, TAKE), _traceback()

    class Loader(SourceFileLoader):
        """Its get_data may answer anything: not the module's own file."""

    written = str(tmp_path / "run" / "probe.py")  # in the run's writable folder
    written_probe = _compiled_as(written, TAKE)
    for loader, source, seen, taker in (
            (SourceFileLoader("util", name), own, [], probe),
            # the import system handed other bytes under the file's name (its ``_io``
            # replaced: red team 41)
            (SourceFileLoader("util", name), b"x = 1\n", WALKED, probe),
            (Loader("util", name), own, WALKED, probe), (None, own, WALKED, probe),
            (SourceFileLoader("probe", written), own, WALKED, written_probe)):
        watch = _watch_on(tmp_path / "shop.py", known=known, writable=[str(tmp_path / "run")])
        filename = getattr(loader, "path", name)
        if loader is None:
            chain["source_to_code"](watch, source, name)  # no get_code below it
        else:
            chain["get_code"](watch, loader, source, filename)
        taker["take"](watch, tb)
        assert watch.reads == seen, (loader, source[:10])
    real = readers()
    assert real.importers.holds(SourceFileLoader.get_code.__code__)


def test_ctypes_used_by_a_library_the_test_called_is_the_tests(tmp_path: Path) -> None:
    # Red team 30: pytest's CallInfo.from_call(partial(py_object.from_address, ...)) made the
    # ctypes call from a library's frame for the test.
    runner = _compiled_as(_site("somelib", "runner.py"),
                          "def call(fn, *args):\n    return fn(*args)\n")
    watch = _watch_on(tmp_path / "shop.py")
    runner["call"](watch, "ctypes.cdata", (1,))
    assert watch.reads == ["used ctypes (ctypes.cdata)"]
    # the project's binding of a C library through a library: the project's, not the test's;
    # but memory read at an address is a read whoever runs it (red team 31: the project's
    # own frame consumed the test's map of from_address)
    binding = _compiled_as(str(tmp_path / "binding.py"),
                           "def bind(call, watch, event):\n    call(watch, event, (1,))\n")
    for event, seen in (("ctypes.call_function", []),
                        ("ctypes.cdata", ["used ctypes (ctypes.cdata)"])):
        watch = _watch_on(tmp_path / "shop.py")
        binding["bind"](runner["call"], watch, event)
        assert watch.reads == seen, event


def test_a_standard_library_function_that_returns_frames_reads_for_its_caller(
        tmp_path: Path) -> None:
    # Red team 30: bdb's Bdb.get_stack(None, tb) and asyncio's Task.get_stack took the frames
    # for the test and handed them back.
    import bdb

    stdlib = _compiled_as(bdb.__file__, TAKE.replace("take", "get_stack"))
    library = _compiled_as(_site("somelib", "debug.py"), TAKE.replace("take", "get_stack"))
    caller = _compiled_as(_site("somelib", "caller.py"),
                          "def show(get_stack, watch, tb):\n    get_stack(watch, tb)\n")
    tb = _traceback()
    for functions, via, seen in ((stdlib, None, WALKED), (library, None, []),
                                 (stdlib, caller, [])):
        watch = _watch_on(tmp_path / "shop.py")
        if via is None:
            functions["get_stack"](watch, tb)
        else:
            via["show"](functions["get_stack"], watch, tb)  # a library asked: it keeps them
        assert watch.reads == seen


def test_a_frame_taken_while_a_holder_of_code_is_under_way_is_a_walk(tmp_path: Path) -> None:
    # Red team 30: traceback's summaries hold the code in a local and call linecache, which
    # asks the module's __loader__ (the test's object) for its source; rich's
    # _caller_frame_info (a library, through inspect.currentframe) then took the frame.
    import dataclasses

    info = _compiled_as(_site("somelib", "console.py"),
                        "import sys\ndef caller_info(watch):\n"
                        "    return watch('sys._getframe', ()) if sys._getframe else None\n")

    def holder(callback: Any) -> None:  # like StackSummary._extract_from_extended_frame_gen
        co = holder.__code__  # noqa: F841 - what a holder holds
        callback()

    known = dataclasses.replace(READERS, holders=Codes.of([holder]),
                                consumers=READERS.consumers | Codes.of([holder]))
    under = _watch_on(tmp_path / "shop.py", known=known)
    holder(lambda: info["caller_info"](under))
    assert under.reads == ["walked the process's frames or objects (sys._getframe) while a "
                           "reader held code"]
    alone = _watch_on(tmp_path / "shop.py", known=known)
    info["caller_info"](alone)  # a library's own lookup, no holder below
    assert alone.reads == []
    # the holder's own calls into readers (pytest's TracebackEntry.name -> .frame reads
    # tb_frame): its own machinery, with no code of the test's or a module's in between
    take, tb = _compiled_as(_site("somelib", "frames.py"), TAKE)["take"], _traceback()

    def reporting(watch: Watch) -> None:  # a holder that calls the reader by name
        co = reporting.__code__  # noqa: F841 - what a holder holds
        take(watch, tb)

    mine = dataclasses.replace(
        known, reporters=Codes.of([take]), holders=Codes.of([holder, reporting]),
        consumers=known.consumers | Codes.of([reporting]))
    inner = _watch_on(tmp_path / "shop.py", known=mine)
    holder(lambda: take(inner, tb))  # the lambda: the test's code in between
    assert inner.reads == ["walked the process's frames or objects (tb_frame) while a reader "
                           "held code"]
    direct = _watch_on(tmp_path / "shop.py", known=mine)
    reporting(direct)  # nothing but readers from the holder up
    assert direct.reads == []
    # a consumer takes frames for itself wherever it runs (coverage's sys.monitoring callback
    # fired inside linecache under pytest's traceback getter, Python 3.13)
    monitor = dataclasses.replace(mine, consumers=mine.consumers | Codes.of(
        [info["caller_info"]]))
    ours = _watch_on(tmp_path / "shop.py", known=monitor)
    holder(lambda: info["caller_info"](ours))
    assert ours.reads == []


def test_asyncios_reports_keep_what_they_read_its_stack_getters_do_not(tmp_path: Path) -> None:
    # asyncio names a coroutine by its code in a task's repr (an honest async test), whether
    # or not the judge loaded asyncio; Task.print_stack held the code while it called the
    # test's repr (red team 30), so it is no consumer: it reads for its caller.
    import asyncio.base_tasks
    import asyncio.coroutines

    path, _, gen, _ = _generator_target(tmp_path)
    read = "def {}(watch, gen):\n    watch('object.__getattr__', (gen, 'gi_code'))\n"
    for module, name, seen in (
            (asyncio.coroutines, "_format_coroutine", []),
            (asyncio.base_tasks, "_task_print_stack", ["read the target's code through gi_code"]),
            (asyncio.base_tasks, "_format_coroutine", ["read the target's code through gi_code"])):
        reader = _compiled_as(module.__file__, read.format(name))
        watch = _watch_on(path)
        reader[name](watch, gen)
        assert watch.reads == seen, (module, name)
    assert not readers().consumers.holds(asyncio.coroutines._format_coroutine.__code__)


def test_a_modules_frame_that_does_not_name_what_was_read_read_for_the_test(tmp_path: Path
                                                                          ) -> None:
    # Red team 31: the test's map(operator.attrgetter(<built name>), ...) consumed by a
    # library's generator (rich's loop_last) or the project's own list(...): the frame on top
    # when the event came was the consumer's, which never named tb_frame or f_code.
    import functools

    consume = _compiled_as(_site("somelib", "loop.py"),
                           "def consume(items):\n    return list(items)\n")
    path, _, gen, tb = _generator_target(tmp_path)
    for holder, attr, seen in (
            (tb, "tb_frame", WALKED),
            (gen.gi_frame if gen.gi_frame else gen, "gi_code",
             ["read the target's code through gi_code"])):
        watch = _watch_on(path)
        consume["consume"](map(functools.partial(watch, "object.__getattr__"),
                               [(holder, attr)]))
        assert watch.reads == seen, attr
    named = _watch_on(path)
    _compiled_as(_site("somelib", "frames.py"), TAKE)["take"](named, tb)  # names it: its own
    assert named.reads == []


def test_the_standard_library_between_a_frame_getter_and_who_asked_reads_for_them(
        tmp_path: Path) -> None:
    # Red team 31: pdb's Pdb.setup(duck, None, tb) called bdb's get_stack and stored the
    # frames on the test's object; judged by pdb's frame, it was quiet.
    import bdb
    import pdb

    get_stack = _compiled_as(bdb.__file__, TAKE.replace("take", "get_stack"))["get_stack"]
    setup = _compiled_as(pdb.__file__, "def setup(get_stack, watch, tb):\n"
                                       "    get_stack(watch, tb)\n")["setup"]
    other = _compiled_as(pdb.__file__, TAKE.replace("take", "lookup"))["lookup"]
    tb = _traceback()
    watch = _watch_on(tmp_path / "shop.py")
    setup(get_stack, watch, tb)
    assert watch.reads == WALKED
    quiet = _watch_on(tmp_path / "shop.py")
    setup(other, quiet, tb)  # a function of the standard library that hands nothing out
    assert quiet.reads == []


def test_pytests_keepers_hold_code_too() -> None:
    # Red team 31: Traceback.cut holds a Code (its .raw is the code, read with no event) while
    # it compares the test's objects; a frame taken from under it is a walk.
    from _pytest._code.code import Traceback

    assert READERS.holders.holds(Traceback.cut.__code__)
    assert READERS.keepers.holds(Traceback.cut.__code__)


def test_text_of_the_stack_and_a_generators_locals_take_no_frame_for_the_test(
        tmp_path: Path) -> None:
    # Honest tests red team 31 saw FAIL: traceback.format_stack() takes the caller's frame
    # for text; inspect.getgeneratorlocals gives the locals, not the frame. Real events: the
    # watch is this process's audit hook for the test (a hook cannot be removed: it is made
    # inert after).
    import inspect
    import traceback

    from pytest_quest.hooked import Phase

    def count() -> Any:
        yield 1

    suspended = count()
    next(suspended)
    watch = _watch_on(tmp_path / "shop.py")
    sys.addaudithook(watch)
    try:
        assert traceback.format_stack() and inspect.getgeneratorlocals(suspended) == {}
        quiet = list(watch.reads)
        assert suspended.gi_frame is not None  # the test's own frame: a walk
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    assert quiet == []
    assert watch.reads == ["walked the process's frames or objects (gi_frame)"]


def test_a_readers_frame_handed_out_by_a_traceback_is_a_walk(tmp_path: Path) -> None:
    # Red team 32: logging's findCaller holds the code and checks the test's stack_info
    # object, which raised; the dead frame (its locals with it) stood in the traceback, and
    # rich's Traceback.extract(show_locals=True) handed its locals to the test.
    import dataclasses

    def holder(callback: Any) -> None:  # like Logger.findCaller
        co = holder.__code__  # noqa: F841 - what a holder holds
        callback()

    def fail() -> None:
        raise ValueError("from the test's object")

    try:
        holder(fail)
    except ValueError as exc:
        assert exc.__traceback__ is not None and exc.__traceback__.tb_next is not None
        through, below = exc.__traceback__.tb_next, exc.__traceback__.tb_next.tb_next
    known = dataclasses.replace(READERS, holders=Codes.of([holder]),
                                consumers=READERS.consumers | Codes.of([holder]))
    walk = _compiled_as(_site("somelib", "tb.py"), TAKE)["take"]
    for tb, seen in ((through, ["walked the process's frames or objects (tb_frame) to a "
                                "reader's frame"]),
                     (below, ["walked the process's frames or objects (tb_frame) to a "
                              "reader's frame"]),  # its f_back is the holder's
                     (_traceback(), [])):
        watch = _watch_on(tmp_path / "shop.py", known=known)
        walk(watch, tb)
        assert watch.reads == seen


def test_a_modules_reader_of_the_targets_code_holds_it_from_then_on(tmp_path: Path) -> None:
    # Red team 32: pyparsing's explain_exception read the target frame's f_code (a library's
    # reader keeps what it reads), then asked the test's __class__; from there rich's
    # _caller_frame_info took the frames below.
    path, _, gen, _ = _generator_target(tmp_path)
    library = _compiled_as(_site("somelib", "explain.py"), (
        "def explain(watch, gen, callback):\n"
        "    code = watch('object.__getattr__', (gen, 'gi_code'))\n"
        "    callback()\n"))
    info = _compiled_as(_site("otherlib", "console.py"),
                        "import sys\ndef caller_info(watch):\n"
                        "    return watch('sys._getframe', ()) if sys._getframe else None\n")
    watch = _watch_on(path)
    library["explain"](watch, gen, lambda: None)
    assert watch.reads == []  # kept to itself
    library["explain"](watch, gen, lambda: info["caller_info"](watch))
    assert watch.reads == ["walked the process's frames or objects (sys._getframe) while a "
                           "reader held code"]
    alone = _watch_on(path)
    library["explain"](alone, gen, lambda: None)
    info["caller_info"](alone)  # the reader is gone from the stack
    assert alone.reads == []


def test_a_module_file_in_the_runs_writable_folders_is_the_tests(tmp_path: Path,
                                                                 monkeypatch) -> None:
    # Red team 32: a .pyc in tmp_path/__pycache__ (no compile event) carried the name of its
    # source there; and a plain loader with get_data replaced compiled the test's text under
    # a library's name.
    from importlib.machinery import SourceFileLoader

    from pytest_quest import watch as watch_module

    run = tmp_path / "run"
    take, tb = _compiled_as(str(run / "probe.py"), TAKE)["take"], _traceback()
    for writable, seen in (([str(run)], WALKED), ([], [])):
        watch = _watch_on(tmp_path / "shop.py", writable=writable)
        take(watch, tb)
        assert watch.reads == seen
    loader = SourceFileLoader("util", _site("somelib", "util.py"))
    assert watch_module._plain(loader)
    loader.get_data = lambda path: b"x = 1"  # type: ignore[method-assign]  # on itself
    assert not watch_module._plain(loader)
    monkeypatch.setattr(SourceFileLoader, "get_data", lambda self, path: b"x = 1")
    assert not watch_module._plain(SourceFileLoader("util", _site("somelib", "util.py")))


def test_the_standard_librarys_own_binding_of_c_is_not_the_test(tmp_path: Path) -> None:
    # multiprocessing.Value and Array (an honest test red team 32 saw FAIL) call ctypes'
    # memset from multiprocessing.sharedctypes, a module of the standard library that binds
    # C itself; a thread pool's worker (no ctypes of its own) is a trampoline, and memory
    # read at an address counts wherever it is run.
    import ctypes
    import multiprocessing.sharedctypes as shared

    source = ("import ctypes\ndef call(watch, event):\n    watch(event, (1,))\n"
              "    return ctypes.memset if event else ctypes.from_buffer\n"
              "def relay(watch, event):\n    watch(event, (1,))\n")
    binding = _compiled_as(shared.__file__, source)
    for function, event, seen in (
            ("call", "ctypes.call_function", []), ("call", "ctypes.cdata", []),
            ("call", "ctypes.cdata/buffer", []),
            # names no call of ctypes: it ran one for someone else
            ("relay", "ctypes.cdata", ["used ctypes (ctypes.cdata)"]),
            ("relay", "ctypes.call_function", ["used ctypes (ctypes.call_function)"])):
        watch = _watch_on(tmp_path / "shop.py")
        binding[function](watch, event)
        assert watch.reads == seen, (function, event)
    assert binding["ctypes"] is ctypes


LOADED = "loaded data with marshal.loads (code no compile made can come with it)"


def test_types_coroutine_makes_code_for_asyncio_and_is_no_finding(tmp_path: Path) -> None:
    """Red team 53: asyncio's import runs ``types.coroutine``, which sets a flag on a compiled
    code through ``code.replace``, and ``unittest.mock`` imports asyncio: every honest test
    importing either FAILed "made a code object". That one maker, in its home, is quiet."""
    from pytest_quest.hooked import Phase

    def steps() -> Any:
        yield

    watch = _watch_on(tmp_path / "shop.py")
    sys.addaudithook(watch)
    try:
        types.coroutine(steps)
        quiet = list(watch.reads)
        steps.__code__.replace(co_flags=steps.__code__.co_flags)  # the test's own
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    assert quiet == []
    assert watch.reads == ["made a code object (types.CodeType or code.replace)"]
    copy = types.FunctionType(types.coroutine.__code__, dict(vars(types)))
    assert not READERS.code_makers.owns(copy) and READERS.code_makers.owns(types.coroutine)


def test_hypothesis_renaming_its_wrapper_is_no_finding_and_its_name_stays_the_tests(
        tmp_path: Path) -> None:
    """Calibration of python-dateutil: ``@given`` gives its wrapper the test's file and first
    line with ``code.replace`` (``impersonate``), and every honest ``@given`` test FAILed "made
    a code object". That maker, loaded before the readers are made (the judge preloads it for
    a test that imports hypothesis), is quiet; the name it gives is kept as the test's."""
    from hypothesis.internal import reflection

    from pytest_quest.hooked import Phase
    from pytest_quest.watch import readers as make_readers

    def library() -> None:
        pass

    def wrapper() -> None:
        pass

    known = make_readers()
    watch = _watch_on(tmp_path / "shop.py", known=known)
    sys.addaudithook(watch)
    try:
        reflection.impersonate(library)(wrapper)  # library's file here is this test file
        fake = types.FunctionType(compile("def f(): pass", "/opt/lib/site.py", "exec")
                                  .co_consts[0], {})
        reflection.impersonate(fake)(wrapper)  # a library's name taken: made, as the test's
        quiet = list(watch.reads)
        wrapper.__code__.replace(co_name="other")  # the test's own code.replace
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    assert quiet == [] and "/opt/lib/site.py" in watch.made
    assert watch.reads == ["made a code object (types.CodeType or code.replace)"]
    accept = reflection.impersonate(library)
    assert known.code_makers.owns(accept)
    assert not known.code_makers.owns(  # its code run with globals of the test's
        types.FunctionType(accept.__code__, {}, None, None, accept.__closure__))


def test_data_loaded_with_marshal_in_the_tests_time_is_a_finding(tmp_path: Path) -> None:
    # Red team 33: a .pyc in a zip archive on a package's __path__ (zipimport reads it with
    # marshal, no compile) kept the library's name baked into it. Red teams 48 and 49: such
    # code reads memory past its tables. The code inside a tuple came with no check, and
    # what marshal parses may differ from the event's copy: any load is a finding, whatever
    # the copy holds (code or not, parsable or not).
    import marshal

    name = _site("somelib", "baked.py")
    code = compile("def inner():\n    pass\n", name, "exec")
    for data in (marshal.dumps(code), marshal.dumps((code,)), marshal.dumps({"k": [1, 2]}),
                 b"not marshal data"):
        watch = _watch_on(tmp_path / "shop.py")
        watch("marshal.loads", (data,))
        assert watch.reads == [LOADED], data
        assert watch.made == set()
    # from a file (pkgutil.read_code, pstats: red team 34) the event carries nothing to read
    watch = _watch_on(tmp_path / "shop.py")
    watch("marshal.load", ())
    assert watch.reads == ["read code objects from a file (marshal.load)"]


def test_the_import_systems_read_of_a_modules_own_pyc_is_no_finding(tmp_path: Path) -> None:
    """Only the import system's plain read of a module's own ``.pyc`` loads with marshal in
    the test's time: outside the writable folders, the file's own bytes, held in bytes
    nothing can change, by the real ``marshal.loads``."""
    import dataclasses
    import marshal
    from importlib.machinery import SourceFileLoader

    chain = _compiled_as("<import>", (
        "def _compile_bytecode(watch, data, bytecode_path):\n"
        "    watch('marshal.loads', (bytes(data),))  # the event's copy\n"
        "def get_code(watch, self, data, bytecode_path):\n"
        "    _compile_bytecode(watch, data, bytecode_path)\n"))
    chain["marshal"] = marshal
    known = dataclasses.replace(READERS, importers=Codes.of(
        chain[n] for n in ("_compile_bytecode", "get_code")))
    name = _LIBRARY_FILE
    library_pyc = importlib.util.cache_from_source(name)
    whole = Path(library_pyc).read_bytes()
    own = memoryview(whole)[16:]  # as the import system loads it
    data = marshal.dumps(compile("x = 1", name, "exec"))
    run = tmp_path / "run"
    for pyc, loaded, reads in (
            (library_pyc, own, []),
            (library_pyc, whole[16:], []),
            (library_pyc, data, [LOADED]),  # not the file's bytes: the import system was lied to
            # the file's bytes, but in a buffer that can change once the event's copy is taken
            (library_pyc, memoryview(bytearray(whole))[16:], [LOADED]),
            (str(run / "__pycache__" / "util.cpython-311.pyc"), data, [LOADED])):
        watch = _watch_on(tmp_path / "shop.py", known=known, writable=[str(run)])
        chain["get_code"](watch, SourceFileLoader("util", name), loaded, pyc)
        assert watch.reads == reads, (pyc, type(loaded))
    # the import system's marshal replaced: what it loads is not what the event showed
    for replaced in (types.SimpleNamespace(loads=marshal.loads), None):
        chain["marshal"] = replaced
        watch = _watch_on(tmp_path / "shop.py", known=known, writable=[str(run)])
        chain["get_code"](watch, SourceFileLoader("util", name), own, library_pyc)
        assert watch.reads == [LOADED]


def test_the_watch_fails_closed_past_what_it_keeps_and_how_deep_it_looks(tmp_path: Path
                                                                        ) -> None:
    # Red team 33: twenty reads filled the list of kept readers, then the 21st went unkept;
    # a holder 308 frames below the taker was past the look.
    from pytest_quest import watch as watch_module

    path, _, gen, _ = _generator_target(tmp_path)
    reader = _compiled_as(_site("somelib", "names.py"),
                          "def name_of(watch, gen):\n"
                          "    watch('object.__getattr__', (gen, 'gi_code'))\n")
    watch = _watch_on(path)
    for _ in range(watch_module.MAX_KEPT):
        reader["name_of"](watch, gen)
    assert watch.reads == []
    reader["name_of"](watch, gen)
    assert watch.reads == [f"read the target's code through gi_code more than "
                           f"{watch_module.MAX_KEPT} times"]
    info = _compiled_as(_site("otherlib", "console.py"),
                        "import sys\ndef caller_info(watch):\n"
                        "    return watch('sys._getframe', ()) if sys._getframe else None\n")

    def deep(watch: Watch, depth: int) -> None:
        if depth:
            deep(watch, depth - 1)
        else:
            info["caller_info"](watch)

    for depth, seen in ((10, []), (watch_module._DEPTH + 10, [
            "walked the process's frames or objects (sys._getframe) while a reader held "
            "code"])):
        deeper = _watch_on(path)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, watch_module._DEPTH * 3))
        try:
            deep(deeper, depth)
        finally:
            sys.setrecursionlimit(limit)
        assert deeper.reads == seen, depth


def test_a_kept_readers_own_library_above_it_is_its_own(tmp_path: Path) -> None:
    # trio reads its tasks' code and takes frames of its own; rich taking frames above
    # pyparsing's kept reader, with only C between, is someone else (red team 33).
    path, _, gen, _ = _generator_target(tmp_path)
    source = ("import sys\ndef read(watch, gen, callback):\n"
              "    watch('object.__getattr__', (gen, 'gi_code'))\n    callback()\n"
              "def take(watch):\n"
              "    return watch('sys._getframe', ()) if sys._getframe else None\n")
    trio = _compiled_as(_site("trio", "_core", "_run.py"), source)
    rich = _compiled_as(_site("rich", "console.py"), source)
    for taker, seen in ((trio, []), (rich, ["walked the process's frames or objects "
                                            "(sys._getframe) while a reader held code"])):
        watch = _watch_on(path)
        trio["read"](watch, gen, functools.partial(taker["take"], watch))
        assert watch.reads == seen


def test_a_loader_is_plain_only_as_the_import_system_made_it(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    # Red team 35: a property on SourceFileLoader.path ran the test's code inside the watch
    # (the watch read the path with getattr); a key of the test's class in the loader's own
    # dict would compare with the test's code.
    from importlib.machinery import SourceFileLoader

    from pytest_quest.watch import _own, _plain

    calls: list[str] = []

    class Key(str):
        def __eq__(self, other: object) -> bool:
            calls.append("eq")
            return False

        __hash__ = str.__hash__

    loader = SourceFileLoader("util", "/somewhere/util.py")
    assert _plain(loader) and _own(loader, "path") == "/somewhere/util.py"
    odd = SourceFileLoader("util", "/somewhere/util.py")
    vars(odd)[Key("path")] = "/elsewhere.py"
    calls.clear()  # the insert compared the keys; the watch must not
    own = SourceFileLoader("util", "/somewhere/util.py")
    own.get_data = lambda path: b""  # type: ignore[method-assign]
    assert not _plain(odd) and not _plain(own)
    monkeypatch.setattr(SourceFileLoader, "path", property(lambda self: calls.append("get")),
                        raising=False)
    assert not _plain(loader)
    monkeypatch.undo()
    assert _plain(loader) and calls == []


def test_code_of_someone_else_that_runs_inside_the_watch_is_a_finding(tmp_path: Path) -> None:
    # Red team 35: events raised inside the hook went unjudged (a path's __fspath__ of the
    # test's read __code__ there), and a frame walk from there switched the watch off.
    from pytest_quest.hooked import get_ident

    ours = _compiled_as("/ours/watch.py", "def lookup(watch, func):\n"
                        "    watch('object.__getattr__', (func, '__code__'))\n")["lookup"]
    known = Readers(hooks=Codes.of([ours]))
    for raiser, seen in ((ours, []), (_price, ["ran code inside the code watch"])):
        watch = _watch_on(tmp_path / "shop.py", known=known)
        watch._busy.add(get_ident())  # inside the hook, as its own lookups are
        if raiser is ours:
            ours(watch, len)
        else:
            watch("object.__getattr__", (len, "__code__"))
        assert watch.reads == seen


def test_the_collector_keeping_what_it_frees_is_a_finding(tmp_path: Path) -> None:
    # Red team 35: gc.DEBUG_SAVEALL kept a helper's dead frame in gc.garbage, whose f_back
    # and f_locals walk every frame below it with no event. A run refuses the flag
    # (pytest_quest.noevent); a second gc module sets it past that, and each event sees it.
    import gc

    before = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=READERS)
    quiet, seen = _watch_on(tmp_path / "shop.py"), _watch_on(tmp_path / "shop.py")
    quiet("open", ("/nowhere", "r", 0))
    flags = gc.get_debug()
    gc.set_debug(flags | gc.DEBUG_SAVEALL)
    try:
        before("open", ("/nowhere", "r", 0))
        seen("open", ("/nowhere", "r", 0))
    finally:
        gc.set_debug(flags)
    assert quiet.reads == before.reads == []
    assert seen.reads == ["made the garbage collector keep what it frees (gc.DEBUG_SAVEALL)"]


def test_a_handler_handed_frames_in_place_while_the_targets_code_is_read_is_a_finding(
        tmp_path: Path) -> None:
    # Red team 36 armed an interval timer with a handler of its own while a reader held the
    # target's code. A run installs every handler shielded (no frame: pytest_quest.noevent);
    # a second _signal module installs past that, but every reader read the code with an
    # event first. Handlers in place at the test's start (a plugin's) stay.
    import signal

    from pytest_quest.noevent import Shield

    path = tmp_path / "shop.py"
    price = _load(path, "def price(x):\n    yield x\n")
    gen = price(2)

    def mine(signum: int, frame: Any) -> None:
        pass

    def reads(handler: Any, before: Any = None) -> list[str]:
        previous = signal.getsignal(signal.SIGUSR2)
        try:
            if before is not None:
                signal.signal(signal.SIGUSR2, before)
            watch = _watch_on(path, known=QUIET)  # the test's time starts here
            signal.signal(signal.SIGUSR2, handler)
            _reporter(watch, gen, "gi_code")  # a consumer's read of the target's code
        finally:
            signal.signal(signal.SIGUSR2, previous)
        return watch.reads

    assert reads(signal.SIG_IGN) == reads(Shield(mine)) == reads(mine, before=mine) == []
    assert reads(mine) == ["installed a signal handler that is handed frames"]


def test_a_path_of_a_changed_class_opened_is_a_finding(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Red team 35: the hooks no longer run a path's __fspath__; a path they cannot read is
    # one the test made unreadable, and where the kernel does not hide the target's file it
    # could be that file.
    import pathlib

    from pytest_quest import pathtext

    path = pathlib.PurePosixPath(tmp_path / "notes.txt")
    quiet, seen = _watch_on(tmp_path / "shop.py"), _watch_on(tmp_path / "shop.py")
    quiet("open", (path, "r", 0))
    monkeypatch.setattr(pathlib.PurePath, "__fspath__", lambda self: "/elsewhere")
    seen("open", (pathlib.PurePosixPath(tmp_path / "other.txt"), "r", 0))
    monkeypatch.undo()
    pathtext.freeze()
    assert quiet.reads == []
    assert seen.reads == ["opened a path whose class or slots were changed"]


def test_a_frame_of_the_audit_hook_from_a_traceback_is_a_finding(tmp_path: Path) -> None:
    """An exception raised inside the run's hook (a signal handler's, the recursion limit)
    carries the hook's frames: their locals, and the seal's closure, are the hooks' state."""
    from pytest_quest.runparts import Guard

    watch = _watch_on(tmp_path / "shop.py")
    try:
        Guard([str(tmp_path)]).deny("a write")  # raised inside a hook's method
    except PermissionError as exc:
        own = exc.__traceback__
    assert own is not None and own.tb_next is not None
    hook_frame = "took a frame of pytest-quest's own audit hook from a traceback"
    watch("object.__getattr__", (own, "tb_frame"))  # this test's own frame
    assert hook_frame not in watch.reads
    watch("object.__getattr__", (own.tb_next, "tb_frame"))  # Guard.deny's
    assert watch.reads[-1] == hook_frame


def test_pytest_parsing_the_target_for_a_traceback_is_quiet_and_only_that(
        tmp_path: Path) -> None:
    """pytest's statement finder parses the target's text to show a failing line; a compile
    by the test's ``__str__`` of the text it hands the finder is the test's (red team 41)."""
    from _pytest._code.source import Source, getstatementrange_ast

    from pytest_quest.hooked import Phase

    class Sly:
        lines = ["x = 1"]

        def __str__(self) -> str:
            compile("x = 1\n", "/usr/lib/python3/lib_of_the_test.py", "exec")
            return "x = 1\n"

    watch, _ = _watch(tmp_path)
    sys.addaudithook(watch)
    try:
        getstatementrange_ast(1, Source(SHOP.decode()))
        quiet = list(watch.reads)
        getstatementrange_ast(0, Sly())  # type: ignore[arg-type]
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    assert quiet == []
    assert "/usr/lib/python3/lib_of_the_test.py" in watch.made


def test_pytest_formatting_an_exception_raised_inside_the_hook_is_no_finding(
        tmp_path: Path) -> None:
    """A guard's denial raised inside the hook: pytest's report of it reads every frame; the
    test's own ``entry.frame`` of the same traceback is the test's (red team 6's route)."""
    from _pytest._code import ExceptionInfo

    from pytest_quest.hooked import Phase
    from pytest_quest.runparts import Guard

    watch = _watch_on(tmp_path / "shop.py")
    try:
        Guard([str(tmp_path)]).deny("a write")
    except PermissionError:
        info = ExceptionInfo.from_current()
    sys.addaudithook(watch)
    try:
        info.getrepr(style="long")  # pytest's own report: quiet
        quiet = list(watch.reads)
        assert info.traceback[-1].frame is not None  # handed to the test
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    hook_frame = "took a frame of pytest-quest's own audit hook from a traceback"
    assert hook_frame not in quiet and hook_frame in watch.reads


def test_inspect_reads_for_its_caller_only_while_its_globals_are_as_at_the_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 42: inspect hands the code it read to ``_get_code_position`` and ``iscode``,
    looked up at each call; replaced, they gave the test the code a library had inspect read."""
    import inspect

    watch = _watch_on(tmp_path / "shop.py")
    assert watch._passing.intact()
    monkeypatch.setattr(inspect, "_get_code_position", lambda code, index: (None,) * 4)
    assert not watch._passing.intact()
    monkeypatch.undo()
    assert watch._passing.intact()
    monkeypatch.setattr(inspect, "some_new_name", 1, raising=False)
    assert not watch._passing.intact()


def test_a_modules_code_run_with_globals_not_its_modules_is_the_tests(tmp_path: Path) -> None:
    """Red team 50: ``inspect``'s own code made into functions again with a copy of its
    globals (``types.FunctionType``: no audit event), the copy's ``_get_code_position`` the
    test's, and called by a library: the watch believed ``inspect`` by its code and its
    untouched module, and let the library keep what the test was handed. The code of a
    reader is believed in its home only; run elsewhere, it is the test's."""
    import inspect

    path, _, _, tb = _generator_target(tmp_path)
    frame = tb.tb_next.tb_frame  # the target's
    reader = _compiled_as(inspect.__file__, (
        "def getframeinfo(watch, frame):\n"
        "    watch('object.__getattr__', (frame, 'f_code'))\n"))["getframeinfo"]
    assert reader.__globals__ is vars(inspect)
    library = _compiled_as(_site("somelib", "explain.py"), (
        "def explain(reader, watch, frame):\n"
        "    reader(watch, frame)\n"))["explain"]
    known = dataclasses.replace(READERS, passing=READERS.passing | Codes.of([reader]))
    home = _watch_on(path, known=known)
    library(reader, home, frame)  # inspect read for the library, which keeps it
    assert home.reads == []
    gadget = types.FunctionType(reader.__code__, dict(vars(inspect)), "getframeinfo")
    away = _watch_on(path, known=known)
    library(gadget, away, frame)
    assert away.reads == ["read the target's code through f_code"]
    assert known.passing.holds(gadget.__code__) and not known.passing.owns(gadget)
    assert known.passing.owns(reader)


def test_a_codes_home_is_its_functions_globals_or_its_files_module() -> None:
    import inspect

    from pytest_quest.hooked import code_objects

    def probe() -> types.FrameType:
        return sys._getframe()

    copy = types.FunctionType(probe.__code__, dict(probe.__globals__))
    given = Codes.of([probe])
    assert given.runs(probe()) and not given.runs(copy())
    assert given.holds(copy.__code__)  # the code itself, wherever it runs
    # by default the module loaded from the code's file; code_objects: each function's own
    for codes in (Codes([inspect.getfile.__code__]), code_objects([inspect])):
        assert codes.owns(inspect.getfile)
        assert not codes.owns(types.FunctionType(inspect.getfile.__code__, {}))
    nowhere = compile("def f():\n    pass\n", "<nowhere>", "exec").co_consts[0]
    assert not Codes([nowhere]).owns(types.FunctionType(nowhere, {}))  # no home: none
    assert (given | Codes([nowhere])).runs(probe()) and not (given - given).runs(probe())
    assert given.copy().runs(probe()) and not given.owns(probe.__code__)


@pytest.mark.slow  # a Python of its own: an audit hook cannot be taken out again
def test_codes_are_told_apart_without_an_audit_event(tmp_path: Path) -> None:
    # ``id()`` and a frame's ``f_code`` each raise an audit event, and the run's hook judges
    # again every event raised while it runs: about 1,400 a run came from Codes.runs alone.
    # ``identity`` is one number per live object, as id() is; a frame run with globals no
    # code of the set calls home is answered without its code read.
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, types\n"
        "from pytest_quest.hooked import Codes, identity\n"
        "def probe():\n    return sys._getframe()\n"
        "given = Codes.of([probe])\n"
        "elsewhere = types.FunctionType(probe.__code__, dict(globals()))\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(event) if event in (\n"
        "    'builtins.id', 'object.__getattr__') else None)\n"
        "mine, other, code = probe(), elsewhere(), probe.__code__\n"
        "seen.clear()\n"
        "answers = [given.runs(mine), given.runs(other), given.holds(code),\n"
        "           identity(mine) == identity(mine), identity(mine) != identity(other)]\n"
        "print(answers, seen.count('builtins.id'), seen.count('object.__getattr__'))\n",
        encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parent.parent)
    # one f_code read: the frame at home; none for the other, none for holds
    assert done.stdout.split() == ["[True,", "False,", "True,", "True,", "True]", "0", "1"]


def test_pytests_unittest_filter_of_a_failure_keeps_what_it_reads() -> None:
    """Red team 51: an honest ``unittest.TestCase`` that failed was told it walked frames:
    pytest filters its traceback with a lambda of ``TestCaseFunction._traceback_filter``
    (``x.frame.f_globals.get("__unittest")``: a bool out), handed to the builtin ``filter``."""
    from _pytest.unittest import TestCaseFunction

    method = vars(TestCaseFunction)["_traceback_filter"].__code__
    (lambda_code,) = [code for code in method.co_consts if type(code) is types.CodeType]
    assert READERS.keepers.holds(lambda_code) and not READERS.keepers.holds(method)


def test_pytests_keepers_count_the_code_nested_in_them() -> None:
    """Red team 55: a collection error's report ran through ``repr_traceback``'s list
    comprehension (its own code on 3.11) and the ``filter_traceback`` pytest hands to the
    builtin ``filter``: neither is called by a name of its caller's, so both are keepers."""
    from _pytest._code import code as pytest_code

    formatter = getattr(pytest_code, "FormattedExcinfo", None) or getattr(
        pytest_code, "ExceptionInfoFormatter", None)
    method = vars(formatter)["repr_traceback"].__code__
    nested = [const for const in method.co_consts if type(const) is types.CodeType]
    assert all(READERS.keepers.holds(code) for code in [method, *nested])
    assert READERS.keepers.holds(pytest_code.filter_traceback.__code__)


def test_coverages_dynamic_contexts_are_no_consumer() -> None:
    """Red team 43: ``coverage.context.qualname_from_frame`` holds a frame's code in a local and
    calls the test's objects; a run never turns dynamic contexts on."""
    import coverage.context
    import coverage.control

    now = readers()
    assert not now.consumers.holds(coverage.context.qualname_from_frame.__code__)
    assert now.consumers.holds(coverage.control.Coverage.start.__code__)


class _Probe:
    """Stands for the hooks' own code (made one of ``inside`` below): keeps its frame."""

    def __init__(self) -> None:
        self.frames: list[Any] = []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        self.frames.append(sys._getframe())


def test_the_hooks_own_code_reads_for_itself_only_inside_this_runs_hook(tmp_path: Path) -> None:
    """Red team 44: the hooks' code, found through ``object.__subclasses__()`` and called by the
    test with an object of its own for the watch, read a traceback's frame and the target's
    code for the test. Only inside the seal's closure that calls this watch is it the hooks'
    own reading; a seal the test made is not that one."""
    from dataclasses import replace

    from pytest_quest.hooked import Codes
    from pytest_quest.seal import seal

    known = replace(READERS, inside=READERS.inside | Codes.of([_Probe.__call__]))
    watch = _watch_on(tmp_path / "shop.py", known=known)
    probe = _Probe()
    seal([probe, watch], [], None)("pytest_quest.probe", ())  # the run's hook: it calls the watch
    probe("pytest_quest.probe", ())  # called by the test
    seal([probe], [], None)("pytest_quest.probe", ())  # a seal of the test's making
    inside, direct, made = probe.frames
    assert watch._in_hook(inside) and watch._consumer(inside)
    for frame in (direct, made):
        assert not watch._in_hook(frame) and not watch._consumer(frame)
    assert not known.consumers.holds(Watch._holds_a_reader.__code__)  # never by itself


def test_the_hooks_own_code_called_by_the_test_hands_it_nothing_unseen(tmp_path: Path) -> None:
    """Red team 44's route end to end: ``Watch._holds_a_reader`` called with a fake watch and a
    traceback through the target's frame reads ``tb_frame`` and ``f_code`` for the test."""
    from types import SimpleNamespace

    from pytest_quest.hooked import Phase

    price = _price(tmp_path)
    try:
        price(None)
    except TypeError as exc:
        traceback = exc.__traceback__
    assert traceback is not None and traceback.tb_next is not None
    handed: list[Any] = []

    class Holders:
        def holds(self, code: Any) -> bool:
            handed.append(code)
            return True

    fake = SimpleNamespace(_readers=SimpleNamespace(holders=Holders(), keepers=Holders()),
                           _kept_frame=lambda frame: False)
    watch = _watch_on(tmp_path / "shop.py")
    sys.addaudithook(watch)
    try:
        Watch._holds_a_reader(fake, traceback.tb_next)  # type: ignore[arg-type]
    finally:
        watch._phase = Phase()  # never started: it judges nothing from here on
    assert handed and handed[0] is price.__code__  # what the test got
    assert "walked the process's frames or objects (tb_frame)" in watch.reads


def test_pytests_keepers_read_for_themselves_only_while_its_traceback_api_is_intact(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 44: ``TracebackEntry.path`` (a keeper) reads ``Frame.code``, which hands the
    frame's code to the ``Code`` global of ``_pytest._code.code``, replaced by the test."""
    from _pytest._code import code as pytest_code

    watch = _watch_on(tmp_path / "shop.py")
    keeper = sys._getframe()  # stands for a keeper's frame below
    assert watch._keepers_intact()
    monkeypatch.setattr(pytest_code, "Code", type("Code", (), {}))
    assert not watch._keepers_intact()
    monkeypatch.undo()
    assert watch._keepers_intact()
    monkeypatch.setattr(pytest_code.Frame, "code", property(lambda self: None))
    assert not watch._keepers_intact()  # a class of the API changed
    monkeypatch.undo()
    # red team 45: ``Code.path`` hands the code to ``inspect.getfile``, looked up in inspect
    monkeypatch.setattr(inspect, "getfile", lambda code: "")
    assert not watch._keepers_intact()
    monkeypatch.undo()
    assert watch._keepers_intact()
    del keeper
    # red team 46: a name not in those dicts is looked up in the builtins' (``isinstance`` in
    # ``inspect.getfile``, ``id`` in ``Traceback.recursionindex``): the ones they name count
    assert {"isinstance", "id"} <= set(watch._readers.builtins_used)
    space = {"isinstance": isinstance, "input": input}
    named = Spaces(named=[(space, ["isinstance"])])
    space["input"] = print  # a builtin nobody there names: no matter
    assert named.intact()
    space["isinstance"] = print
    assert not named.intact()


def test_coverage_and_the_recorder_read_and_install_for_themselves_in_the_measuring_run_only(
        tmp_path: Path) -> None:
    """Red team 45 started a tracer of coverage's (``PyTracer``) and had the recorder's window
    install its own profiler: in a run that does not measure, their code runs only when the
    test calls it."""
    from coverage.pytracer import PyTracer

    from pytest_quest.recorder import Recorder

    traced = PyTracer._trace.__code__  # type: ignore[attr-defined]
    window = Recorder.window.__wrapped__.__code__  # type: ignore[attr-defined]
    known = readers()  # made with coverage's tracer module loaded, as in a run
    measuring = _watch_on(tmp_path / "shop.py", known=known)
    other = _watch_on(tmp_path / "shop.py", known=known, measuring=False)
    for code in (traced, window):
        assert measuring._readers.tracers.holds(code) and measuring._readers.consumers.holds(code)
        assert measuring._readers.hooks.holds(code)
        assert not other._readers.tracers.holds(code)
        assert not other._readers.consumers.holds(code)
        # red team 46 set a tracer of coverage's as threading's trace hook: not ours there
        assert not other._readers.hooks.holds(code)
    summary = traceback.StackSummary._extract_from_extended_frame_gen.__code__  # type: ignore[attr-defined]
    assert other._readers.consumers.holds(summary)  # the standard library's, as before


def test_every_finding_is_told_whatever_the_watch_kept(tmp_path: Path) -> None:
    """Red team 44 reached the watch and filled its list of reads to the cap: the watch then
    told nothing. Each finding goes to the answer pipe whatever that list holds."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    try:
        from pytest_quest.hooked import AnswerPipe

        watch = _watch_on(tmp_path / "shop.py", pipe=AnswerPipe(write))
        watch.reads.extend(f"filler {n}" for n in range(100))
        watch._saw("read the target's __code__")
        assert READ_RECORD in os.read(read, 65536)
    finally:
        os.close(read)
        os.close(write)


def test_a_code_object_made_in_the_tests_time_is_a_finding(tmp_path: Path) -> None:
    """Red teams 48 and 49: CPython checks no instruction's index against its code's tables,
    so a code the test makes (``CodeType(...)``, ``code.replace``) reads memory past them: the
    target's function object, a finished frame's code. Compiling is how honest code is made."""
    watch = _watch_on(tmp_path / "shop.py")
    watch("code.__new__", (_watch_on.__code__.co_code, "<made>", "f", 0, 0, 0, 0, 0, 0))
    assert watch.reads == ["made a code object (types.CodeType or code.replace)"]
    before = Watch(TARGET, str(tmp_path / "shop.py"), fingerprint(""), known=READERS)
    before("code.__new__", (b"", "<made>", "f", 0, 0, 0, 0, 0, 0))  # our own, before the test
    assert before.reads == []


def test_ctypes_through_real_imports_must_come_from_the_files_named(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """Red team 60: a finder of the test's served a file that imports ctypes (or ``_ctypes``
    itself) for the project's ``import json``: each body must be the file of the module it
    is imported as, in the run's import folders, and a load must be of the name under way."""
    import builtins
    import importlib.util

    loaded = "loaded ctypes, whose objects read any memory with no audit event"
    project, library = tmp_path / "project", tmp_path / "library"
    project.mkdir()
    library.mkdir()
    (library / "wrapped.py").write_text(  # a library whose body imports ctypes' C half
        "_quest_watch('import', ('_ctypes', None, [], [], [])) if True else _ctypes\n")
    (project / "consumer.py").write_text("import wrapped\n")
    (project / "other.py").write_text("import json_like\n")
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.syspath_prepend(str(library))

    def run(module: str) -> list[str]:
        for name in ("wrapped", "consumer", "other", "json_like"):
            sys.modules.pop(name, None)
        watch = _watch_on(tmp_path / "shop.py", project=str(project))
        monkeypatch.setattr(builtins, "_quest_watch", watch, raising=False)
        importlib.import_module(module)
        return watch.reads

    assert run("consumer") == []  # the project imports the library by its own name

    class Finder:  # serves the library's file for another name
        @staticmethod
        def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
            if name != "json_like":
                return None
            return importlib.util.spec_from_file_location(name, library / "wrapped.py")

    monkeypatch.setattr(sys, "meta_path", [Finder, *sys.meta_path])
    assert run("other") == [loaded]
    # the load of the file itself with no import of its name under way
    load = _watch_on(tmp_path / "shop.py", project=str(project))
    load("import", ("_ctypes", "/nowhere/_ctypes.so", [], [], []))
    assert load.reads == [loaded]
