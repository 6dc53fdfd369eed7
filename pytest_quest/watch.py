"""The code watch: an audit hook in each run that notices test code reading the code under test.

A test that looks at the target's code (its source file, its ``__code__``, a compile of its
text, the code of a generator or frame running it, a profiler's records) can tell a mutant
from the original without testing behaviour. Each forked run adds a :class:`Watch` before
any test code runs; what it sees is a ``run-reads-target`` FAIL.

It runs in the test's own process, so nothing of the run holds it: it is steered and speaks as
:mod:`pytest_quest.hooked` says (a test reached it through ``request.config.pluginmanager`` and
paused it around a read of ``__code__``). Reads our own code makes in the test's time are told
by the reading code object (``ours``), never by a flag the test could set.

What it cannot see: a test that reads the process's memory through ``ctypes`` raises no audit
event at all (docs/security.md, "What is left").
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable
from typing import Any

from pytest_quest.hooked import CONTROL, AnswerPipe, Phase, text_of
from pytest_quest.protocol import READ_RECORD, TargetSpec
from pytest_quest.scrub import holds_body

__all__ = ["Watch"]

#: At most this many findings a run (each one is a FAIL already).
MAX_READS = 20

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Events that hand out frames (every thread's, too).
_FRAME_EVENTS = frozenset({"sys._getframe", "sys._current_frames"})
#: Events that hand out every object of the process, or every holder of one: whoever asks
#: (a lazy ``map`` that pytest consumes reads for the test), they would hand out the watch.
_OBJECT_EVENTS = frozenset({"gc.get_objects", "gc.get_referrers"})
#: Standard modules that install a profiler or tracer for their caller.
_TRACER_MODULES = frozenset({"cProfile.py", "profile.py", "bdb.py", "pdb.py", "trace.py"})
#: Attributes that hand out the code object a generator, coroutine or frame runs.
_CODE_GETTERS = frozenset({"gi_code", "cr_code", "ag_code", "f_code"})
#: Attributes that hand out the frame a generator, coroutine or async generator runs in.
_FRAME_GETTERS = frozenset({"gi_frame", "cr_frame", "ag_frame"})
#: What hands out the code a run installed, directly or through a frame (one lookup: this
#: runs for every attribute read that raises an audit event).
_RUN_GETTERS = _CODE_GETTERS | _FRAME_GETTERS
#: What runs a function's code, and the attribute that names that code.
_RUNNING: dict[type, str] = {types.GeneratorType: "gi_code", types.CoroutineType: "cr_code",
                             types.AsyncGeneratorType: "ag_code", types.FrameType: "f_code"}
#: Standard modules whose reads of a generator's or frame's code are their caller's:
#: ``types._GeneratorWrapper`` hands out the wrapped generator's ``gi_code`` from a property
#: (red team 8, finding 06: the read was types.py's, not the test's).
_PASS_THROUGH = frozenset({os.path.realpath(types.__file__)})
#: Standard modules that take a frame for their caller (``inspect.currentframe``, ``stack``,
#: ``traceback.extract_stack``): a walk they make is their caller's (red team 8, finding 03).
_FRAME_HELPERS = _PASS_THROUGH | frozenset(
    os.path.realpath(os.path.join(os.path.dirname(types.__file__), name))
    for name in ("inspect.py", "traceback.py"))
#: traceback.py: its ``walk_tb`` hands frames to its caller; when that caller is traceback.py
#: itself, the frames end as text (``format_exc``: red team 11, finding 03, a false FAIL).
_TRACEBACK = os.path.realpath(os.path.join(os.path.dirname(types.__file__), "traceback.py"))
#: The import system's own frames, between our loader and the run that imports.
_FROZEN_IMPORT = "<frozen importlib._bootstrap"


def _statement_finder() -> types.CodeType | None:
    try:
        from _pytest._code.source import getstatementrange_ast
    except ImportError:  # pragma: no cover - another pytest: its tracebacks may be flagged
        return None
    return getstatementrange_ast.__code__


#: pytest parses a file's text to show the failing statement of a traceback entry.
_PYTEST_PARSER = _statement_finder()


def _pytest_parsing() -> bool:
    """Whether the compile under way is pytest formatting a traceback (not the test reading).

    Since every run's reads are judged, a mutant that breaks the test at
    import shows its traceback, and pytest parses the target's text for it.
    Told by the caller's code object itself, which test code cannot forge.
    """
    frame: types.FrameType | None = sys._getframe(3)
    for _ in range(3):
        if frame is None:
            return False
        if frame.f_code is _PYTEST_PARSER:
            return True
        frame = frame.f_back
    return False


class Watch:
    """An audit hook that notices a test reading the code under test (see the module doc)."""

    def __init__(self, target: TargetSpec, path: str,
                 fingerprint: tuple[tuple[int, ...], tuple[int, ...]],
                 test_path: str = "", pipe: AnswerPipe | None = None,
                 ours: Iterable[types.CodeType] = (),
                 loader: Iterable[types.CodeType] = ()) -> None:
        self.path = os.path.realpath(path)
        self.module = target.module
        self.qualname = ".".join((*target.owner, target.name))
        #: The target's def and body as hashed lines, never as text
        #: (:func:`pytest_quest.scrub.fingerprint`, made before any run exists).
        self.function, self.body = fingerprint
        #: The submitted test file: code read through a generator or a frame by it.
        self.test_path = os.path.realpath(test_path) if test_path else ""
        #: What it saw, in order; each one is also on the answer pipe already.
        self.reads: list[str] = []
        self.nodeid = ""
        #: Our own code that reads the target's ``__code__`` in the test's time (to tell
        #: whether the test replaced it): the read is told by the reading code object.
        self._ours = _Codes(ours)
        #: Our loader's code objects: a ``loading`` event is believed only when every frame
        #: from it to the starter is one of these or the import system's own.
        self._loader = _Codes(loader)
        self._pipe = pipe if pipe is not None else AnswerPipe(None)
        self._phase = Phase()
        self._loading = False
        self._busy = False
        #: ``co_filename`` -> its real path. pytest, pluggy and logging take frames all the
        #: time; resolving a name once keeps the watch from costing a run its speed.
        self._real: dict[str, str] = {}

    # ------------------------------------------------------------ the hook
    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if self._busy:
            return  # our own lookups below raise events of their own
        if event == CONTROL:
            self._control(args)
            return
        if not self._phase.testing():
            return
        self._busy = True
        try:
            self._judge(event, args)
        finally:
            self._busy = False

    def _judge(self, event: str, args: tuple[Any, ...]) -> None:
        count = len(args)
        if event == "object.__getattr__" and count == 2 and type(args[1]) is str:
            attr = args[1]
            if attr == "__code__":
                self._code_read(args[0])
            elif attr in _RUN_GETTERS and not self._loading:
                self._code_through(args[0], attr)
            elif attr == "tb_frame" and not self._loading:
                self._walk_by_test("tb_frame")
        elif event == "open" and count:
            self._opened(args)
        elif event in ("sys.setprofile", "sys.settrace"):
            self._tracer_by_test(event)
        elif event == "sys.monitoring.register_callback" and count and args[0] is not None:
            # PEP 669 hands each callback the code object that starts or returns (3.12+):
            # the installed code of the target, with no read of ``__code__``. Ours (the
            # recorder, coverage's core) register before test code; unregistering is None.
            self._saw("installed a sys.monitoring callback")
        elif event in _FRAME_EVENTS and not self._loading:
            self._walk_by_test(event)
        elif event in _OBJECT_EVENTS and not self._loading:
            self._saw(f"walked the process's frames or objects ({event})")
        elif event == "gc.get_referents" and count and not self._loading:
            if self._holds_target(args[0]):
                self._saw(f"reached the target's code through {event}")
        elif event == "compile" and count == 2 and not _pytest_parsing():
            self._compiled(args[0], args[1])

    def _control(self, args: tuple[Any, ...]) -> None:
        """pytest-quest's own code steering the watch; anyone else raising it is the test."""
        if not args or type(args[0]) is not str:
            return
        verb = args[0]
        if verb == "item":
            if len(args) == 2 and type(args[1]) is str:
                self.nodeid = args[1][:500]
            return
        self._busy = True
        try:
            caller = sys._getframe(2)  # 0: here, 1: __call__, 2: who raised the event
            if verb in ("start", "end"):
                if self._phase.steer(verb, caller):
                    if verb == "start":
                        self._pipe.seal()
                    return
            elif verb == "loading":
                # Not believed unless our loader's own frames lead to the starter; never a
                # finding (the test module's import retries a failed first import with it).
                if len(args) == 2 and type(args[1]) is bool and self._phase.testing() and \
                        self._from_loader(caller):
                    self._loading = args[1]
                return
            if self._phase.testing():
                self._saw("raised the code watch's own event")
        finally:
            self._busy = False

    def _from_loader(self, frame: types.FrameType | None) -> bool:
        """Our loader imports the module again (the first import failed): every frame between
        it and the starter is ours or the import system's, none the test's or the project's."""
        for _ in range(200):
            if frame is None:
                return False
            if frame is self._phase.anchor:
                return True
            name = frame.f_code.co_filename
            if not self._loader.holds(frame.f_code) and not (
                    type(name) is str and name.startswith(_FROZEN_IMPORT)):
                return False
            frame = frame.f_back
        return False

    # ------------------------------------------------------------ what it saw
    def _saw(self, what: str) -> None:
        entry = f"{self.nodeid}: {what}" if self.nodeid else what
        if entry in self.reads or len(self.reads) >= MAX_READS:
            return
        self.reads.append(entry)
        self._pipe.tell(READ_RECORD, entry)

    # ------------------------------------------------------------ the rules
    def _file_of(self, code: types.CodeType) -> str:
        name = code.co_filename
        if type(name) is not str:
            return ""
        real = self._real.get(name)
        if real is None:
            real = self._real[name] = os.path.realpath(name)
        return real

    def _is_target(self, path: Any) -> bool:
        text = text_of(path)
        if text is None:
            return False
        try:
            return os.path.realpath(text) == self.path
        except ValueError:
            return False

    def _opened(self, args: tuple[Any, ...]) -> None:
        if not self._is_target(args[0]):
            return
        mode, flags = (*args[1:], None, 0)[:2]
        writing = (type(mode) is str and any(c in mode for c in "wax+")) or (
            type(flags) is int and flags & _WRITE_FLAGS)
        if not writing:  # a write is the guard's and the sources check's business
            self._saw("opened the target's source file")

    def _compiled(self, source: Any, filename: Any) -> None:
        if self._is_target(filename):
            self._saw("compiled code under the target's file name")
            return
        text = text_of(source)
        if text is not None and self.function and (
                holds_body(text, self.function) or holds_body(text, self.body)):
            self._saw("compiled the target's source text")

    def _code_read(self, func: Any) -> None:
        """``__code__`` of the target read, whatever its ``__qualname__`` and ``__module__`` say
        now (a test renamed the target for the read: red team 8, finding 05), by anything but
        our own reading code (the loader, while our loader imports the module)."""
        if type(func) is not types.FunctionType or self._loading:
            return
        module, name = func.__module__, func.__qualname__
        if not ((type(module) is str and module == self.module and type(name) is str
                 and name == self.qualname) or self._is_target_code(func.__code__)):
            return
        if self._ours.holds(sys._getframe(3).f_code):  # 0: here, 1: _judge, 2: __call__
            return
        self._saw("read the target's __code__")

    def _is_target_code(self, code: Any) -> bool:
        if type(code) is not types.CodeType:
            return False
        qualname, name = code.co_qualname, code.co_filename
        if type(qualname) is not str or qualname != self.qualname:
            return False
        try:
            return type(name) is str and os.path.realpath(name) == self.path
        except ValueError:
            return False

    def _holds_target(self, objects: Any) -> bool:
        """The target function (or its code) among what ``gc`` is asked about, or a generator,
        coroutine or frame running it: ``gc.get_referents`` of those lists the installed code
        (red team 8, finding 01: a generator of the target, which any test of a generator
        function makes, handed out a reach check's probe)."""
        if type(objects) is not tuple:
            return False
        return any(self._is_target_code(o) or (
            type(o) is types.FunctionType and self._is_target_code(o.__code__)) or (
            type(o) in _RUNNING and self._is_target_code(getattr(o, _RUNNING[type(o)])))
            for o in objects)

    def _code_through(self, holder: Any, attr: str) -> None:
        """A generator's, coroutine's or frame's code read by the test itself (or through the
        disassembler): the code a run installed, a mutant's or a reach check's stop included
        (red team 6, finding 06: a test told reach checks apart by ``SystemExit`` among the
        names of ``gi_code`` or of a frame's ``f_code`` and failed only there). pytest, the
        traceback module and logging read frames of the target for their own reports."""
        if type(holder) not in _RUNNING:
            return  # anything else may run the test's code on ``getattr``
        caller = sys._getframe(3)  # 0: here, 1: _judge, 2: __call__, 3: the getter's caller
        reader = self._file_of(caller.f_code)
        while reader in _PASS_THROUGH and caller.f_back is not None:
            caller = caller.f_back  # it reads for its caller (red team 8, finding 06)
            reader = self._file_of(caller.f_code)
        if not (reader == self.test_path or os.path.basename(reader) == "dis.py" or (
                f"{os.sep}_pytest{os.sep}" in reader and self._test_on_stack(caller))):
            return
        found = getattr(holder, attr, None)
        if attr in _FRAME_GETTERS:  # the frame itself: its locals and offset tell mutants
            found = getattr(found, "f_code", None)  # apart (red team 7, finding 01)
        if self._is_target_code(found):
            self._saw(f"read the target's code through {attr}")

    def _tracer_by_test(self, event: str) -> None:
        """A profiler or tracer the test installs (``cProfile``: its stats hold the code
        objects each call ran, the installed code of the target among them; red team 6,
        finding 06). Coverage's and our own hooks are installed before the watch, or by
        their own modules (threads)."""
        reader = self._file_of(sys._getframe(3).f_code)
        if reader == self.test_path or os.path.basename(reader) in _TRACER_MODULES:
            self._saw(f"installed a profiler or tracer ({event})")

    def _walk_by_test(self, what: str) -> None:
        """The test file itself takes a frame (its own, to walk up to the harness's: the run's
        code is in their locals) or every thread's (red team 6, finding 06), also through
        ``inspect`` or ``traceback`` (red team 8, finding 03). pytest, logging and the
        traceback module take frames for their own reports."""
        if not self.test_path:
            return
        caller = sys._getframe(3)
        reader = self._file_of(caller.f_code)
        if what == "tb_frame" and reader == _TRACEBACK and caller.f_back is not None and \
                self._file_of(caller.f_back.f_code) == _TRACEBACK:
            return  # traceback's own formatting (format_exc): text out, no frame handed on
        while reader in _FRAME_HELPERS and caller.f_back is not None:
            caller = caller.f_back  # inspect.currentframe() takes the frame for its caller
            reader = self._file_of(caller.f_code)
        if reader == self.test_path:
            self._saw(f"walked the process's frames or objects ({what})")

    def _test_on_stack(self, frame: types.FrameType | None) -> bool:
        """pytest's traceback API called from the test (``excinfo.traceback[-1].frame.code
        .raw``), not pytest reporting a failure after the test returned."""
        for _ in range(200):
            if frame is None or not self.test_path:
                return False
            if self._file_of(frame.f_code) == self.test_path:
                return True
            frame = frame.f_back
        return False


class _Codes:
    """Code objects told by identity: ``in`` a set would hash the code, and a code object the
    test made (``code.replace(co_consts=...)``) hashes its constants with the test's code."""

    def __init__(self, codes: Iterable[types.CodeType]) -> None:
        self._codes = tuple(codes)  # kept alive, so their ids stay theirs
        self._ids = frozenset(id(code) for code in self._codes)

    def holds(self, code: types.CodeType) -> bool:
        return id(code) in self._ids
