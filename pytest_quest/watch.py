"""The code watch: an audit hook in each run that notices test code reading the code under test.

A test that looks at the target's code (its source file, its ``__code__``, a compile of its
text, the code of a generator or frame running it, a profiler's records) can tell a mutant
from the original without testing behaviour. Each forked run adds a :class:`Watch` before
any test code runs; what it sees is a ``run-reads-target`` FAIL, and a ``__code__`` replaced
on the target is ``run-target-replaced``.

It runs in the test's own process, so nothing of the run holds it: it is steered and speaks
as :mod:`pytest_quest.hooked` says (a test reached it through ``request.config.pluginmanager``
and paused it around a read of ``__code__``). Trusted readers are told by their code object
(the :class:`Readers` made before test code, which keep what they read to themselves:
pytest's reports, ``traceback``, ``logging``, coverage); a file name is believed only where
the test cannot choose it: every name the test's time compiles or unmarshals code under is
the test's, and so is every file in the run's writable folders (red teams 27 to 34). Who asks
is the frame that names what it reads, past the readers that read for their caller; a frame
taken while a reader holds the code in a local below it is a walk, and so is any generator's
frame the test takes. Frames come with an event, or not at all: the collector's kept garbage
(``gc.DEBUG_SAVEALL``) and a signal handler's frame, the two sources without one, are
closed in each run (red teams 35 and 36; :mod:`pytest_quest.noevent`). Nothing of the test
runs inside the hook knowingly (paths by :mod:`pytest_quest.pathtext`, builtins bound at
import), and code not ours that raises an event inside it is a finding.

What it cannot see: a test that reads the process's memory through ``ctypes`` raises no audit
event at all (docs/security.md, "What is left").
"""

from __future__ import annotations

import ast
import gc
import importlib.machinery
import marshal
import os
import pathlib
import sys
import sysconfig
import types

# Bound at import, as module globals: a test that rebinds a builtin (a module's
# ``__builtins__`` is the builtins' own dict) cannot run its code in the hook through them.
from builtins import (  # noqa: UP029 - bound on purpose, as the comment says
    ImportError,
    OSError,
    ValueError,
    all,
    any,
    bool,
    bytes,
    dict,
    frozenset,
    getattr,
    int,
    isinstance,
    len,
    list,
    map,
    memoryview,
    next,
    object,
    property,
    range,
    set,
    sorted,
    staticmethod,
    str,
    tuple,
    type,
    vars,
    zip,
)
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_quest.hooked import (
    CONTROL,
    AnswerPipe,
    Codes,
    Phase,
    Spaces,
    code_objects,
    folder_prefixes,
    get_ident,
    getframe,
    identity,
    module_homes,
    normal,
    real_path,
    text_of,
    with_nested,
)
from pytest_quest.noevent import HANDLER_OF, KEEPING, SIGNALS, hands_frames
from pytest_quest.protocol import CTYPES_LOADED, READ_RECORD, REPLACED_RECORD, TargetSpec
from pytest_quest.scrub import holds_body

__all__ = ["JUDGED", "JUDGED_ATTRS", "JUDGED_PREFIXES", "Readers", "Watch", "readers"]

#: At most this many findings a run (each one is a FAIL already).
MAX_READS = 20
#: At most this many file names of code the test's time made (past it, a finding).
MAX_MADE = 1000
#: At most this many modules' reads of the target's code kept (past it, a finding).
MAX_KEPT = 200

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Events that hand out frames (every thread's, too).
_FRAME_EVENTS = frozenset({"sys._getframe", "sys._current_frames"})
#: Events that hand out every object of the process, every holder of one, or what one holds
#: (a traceback's frames, a frame's locals: red team 28): whoever asks (a lazy ``map`` that
#: pytest consumes reads for the test).
_OBJECT_EVENTS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents"})
#: Attributes that hand out the code object a generator, coroutine or frame runs.
_CODE_GETTERS = frozenset({"gi_code", "cr_code", "ag_code", "f_code"})
#: Attributes that hand out the frame a generator, coroutine or async generator runs in.
_FRAME_GETTERS = frozenset({"gi_frame", "cr_frame", "ag_frame"})
#: What hands out the code a run installed, directly or through a frame (one lookup: this
#: runs for every attribute read that raises an audit event).
_RUN_GETTERS = _CODE_GETTERS | _FRAME_GETTERS
#: The events the watch judges (besides its own control event), and the attributes whose read
#: it judges: the seal compares our run code before these only (pytest_quest.seal).
JUDGED = frozenset({"object.__getattr__", "object.__setattr__", "open", "sys.setprofile",
                    "sys.settrace", "sys.monitoring.register_callback", "compile",
                    "code.__new__", "marshal.loads", "marshal.load", "import"}) | \
    _FRAME_EVENTS | _OBJECT_EVENTS
JUDGED_PREFIXES = ("ctypes.",)
JUDGED_ATTRS = _RUN_GETTERS | {"__code__", "tb_frame"}
#: What runs a function's code (compared by identity).
_RUNNING: tuple[type, ...] = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType,
                              types.FrameType)
#: The import system's own frames, between our loader and the run that imports.
_FROZEN_IMPORT = "<frozen importlib._bootstrap"
#: The standard library's files: its readers of a frame's code hand it on (``dis``) or are
#: trampolines (a thread pool's worker calling what the test submitted: red team 29), unless
#: named a consumer; a library's or the project's own readers (trio names its async
#: generators by their code) keep what they read.
#: The interpreter's own base: in a venv, ``platstdlib`` is the venv's lib folder, whose
#: site-packages hold the project's libraries (pyee's trio read as the standard library).
_BASE = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
         "installed_base": sys.base_prefix, "installed_platbase": sys.base_exec_prefix}
_STDLIB = tuple(sorted({os.path.join(path, "") for name in ("stdlib", "platstdlib")
                        for path in (sysconfig.get_paths(vars=_BASE)[name], os.path.realpath(
                            sysconfig.get_paths(vars=_BASE)[name]))}))
del _BASE  # sysconfig filled it with every build variable: nothing reads it again
#: What a frame must name when it raises these events itself; a C callable between (a thread
#: pool worker running ``sys._current_frames``) raised it for someone else (red team 29).
_CALLEES = {"sys._getframe": "_getframe", "sys._current_frames": "_current_frames"}


@dataclass(frozen=True)
class Readers:
    """Code that reads the target's code or frames for itself, told apart by identity."""

    #: Keep what they read (strings, line numbers), function by function: ``traceback``'s
    #: summaries, ``logging``'s caller lookup; and coverage and pytest-quest, whose names the
    #: static stage refuses in a test, but the hooks' own code (``inside``: it reads inside
    #: the hooks only, and called by the test it reads for the test).
    consumers: Codes = field(default_factory=Codes)
    #: The consumers named function by function (not coverage's and ours): each holds the
    #: code it read in a local while it works, and a few of them call code the test can set
    #: meanwhile (a module's ``__loader__``, a ``repr`` of a local: red teams 29 and 30), so a
    #: frame taken while one of them is on the stack is taken from under it.
    holders: Codes = field(default_factory=Codes)
    #: The import system compiling a module's file (``SourceLoader.get_code`` through
    #: ``source_to_code``) and pytest rewriting a test module's asserts: a compile by anything
    #: else under a file name makes that name the test's (red team 30 compiled its probe as
    #: ``/opt/...``, a library's name).
    importers: Codes = field(default_factory=Codes)
    #: Consumers that hand what they read to a module global (``traceback``'s positions go to
    #: ``_get_code_position``): believed only while that global is still the original (a
    #: plain ``monkeypatch`` would make them a gadget). (code's :func:`~pytest_quest.hooked.
    #: identity`, module dict, name, original).
    guards: tuple[tuple[int, dict[str, Any], str, Any], ...] = ()
    #: pytest's own: reports after the test, but its traceback API hands a frame's code to a
    #: test that calls it (red team 6): quiet when they read for one of ``keepers`` or for a
    #: consumer, not for the test.
    reporters: Codes = field(default_factory=Codes)
    #: pytest's traceback API that answers with text or numbers only (``excinfo.traceback
    #: [-1].name``: an honest test's, red team 27).
    keepers: Codes = field(default_factory=Codes)
    #: Read for their caller, who is judged instead (``inspect.currentframe``, ``types``'
    #: generator wrapper: red team 8).
    passing: Codes = field(default_factory=Codes)
    #: Take frames for their caller (``traceback.walk_tb``, ``walk_stack``), unless they
    #: format them themselves (``format_exc``: red team 11, finding 03, a false FAIL).
    walkers: Codes = field(default_factory=Codes)
    #: Read ``__code__`` for its flags and hand it to nothing, with no code of the test run
    #: while the code sits in a local (``inspect.iscoroutinefunction``). Not
    #: ``inspect.signature``: it calls the ``Parameter`` class of its ``Signature`` class,
    #: which a test subclasses, with the code in a local a frame walk reads (red team 28).
    signature: Codes = field(default_factory=Codes)
    #: Install a tracer or profiler of their own (the recorder's window, coverage).
    tracers: Codes = field(default_factory=Codes)
    #: Install what another module holds: threading's start of each thread (the hooks
    #: ``threading.settrace`` set, through ``threading._sys``) and forkrun's retrying ``sys``
    #: (its ``install`` and ``function``). Believed only when what they install is one of
    #: ``hooks``, through the real ``sys`` (red team 28 put cProfile's ``enable`` there).
    installers: Codes = field(default_factory=Codes)
    #: The trace and profile functions of ours and coverage's, by their code.
    hooks: Codes = field(default_factory=Codes)
    #: Our loader importing the module again: a ``loading`` event is believed only when every
    #: frame from it to the starter is one of these or the import system's own.
    loader: Codes = field(default_factory=Codes)
    #: The run's audit hook itself (the seal, the watch, the guard and what they call): an
    #: exception raised inside it (a signal handler's, the recursion limit) carries its frames,
    #: whose locals are the hooks themselves.
    inside: Codes = field(default_factory=Codes)
    #: The seal's closure, the one audit hook of the run (``_in_hook`` finds it by its code).
    sealed: Codes = field(default_factory=Codes)
    #: coverage's and the recorder's code: trusted in the measuring run only.
    measuring: Codes = field(default_factory=Codes)
    #: Make a code object of a compiled one with only its flags changed: ``types.coroutine``
    #: (asyncio's import runs it, and ``unittest.mock`` imports asyncio: red team 53 saw
    #: every honest test that imports either FAIL "made a code object").
    code_makers: Codes = field(default_factory=Codes)
    #: The builtins the keepers' modules (:data:`_KEEPING`, :data:`_PASSING`) name: a name
    #: not found in a module's dict is looked up there (red team 46 replaced ``isinstance`` for
    #: ``inspect.getfile`` and ``id`` for ``Traceback.recursionindex``).
    builtins_used: tuple[str, ...] = ()

    def unmeasured(self) -> Readers:
        """The readers of a run that does not measure: coverage and the recorder are on in the
        measuring run only; in any other their code runs only when the test calls it, and
        reads and installs for the test (red team 45 started a tracer of coverage's and had
        the recorder install its profiler). Made once in the judge: each run touching the
        thousands of codes to subtract them cost 650 copy-on-write page faults, 3 ms a run."""
        if not self.measuring:
            return self
        return replace(self, tracers=Codes(), consumers=self.consumers - self.measuring,
                       hooks=self.hooks - self.measuring, measuring=Codes())

    def copy(self) -> Readers:
        """Wrappers of the watch's own: the judge's could be reached and re-pointed."""
        return Readers(guards=self.guards, builtins_used=self.builtins_used, **{
            name: getattr(self, name).copy() for name in (
                "consumers", "holders", "importers", "reporters", "keepers", "passing",
                "walkers", "signature", "tracers", "installers", "hooks", "loader", "inside",
                "sealed", "measuring", "code_makers")})


def _modules(prefixes: tuple[str, ...]) -> list[types.ModuleType]:
    below = tuple(f"{prefix}." for prefix in prefixes)
    found: list[Any] = [module for name, module in list(sys.modules.items())
                        if name in prefixes or name.startswith(below)]
    return [module for module in found if isinstance(module, types.ModuleType)]


def readers(loader: Iterable[types.CodeType] = (), installers: Iterable[types.CodeType] = ()
            ) -> Readers:
    """The readers of this process, from the modules loaded now (the judge, before its
    runs are forked: each run's watch keeps its own copy)."""
    import inspect
    import logging
    import threading
    import traceback

    from _pytest._code import code as pytest_code
    from _pytest.nodes import Node
    from _pytest.python import Function
    from _pytest.unittest import TestCaseFunction

    from pytest_quest import runparts, seal

    homes = module_homes()  # once: made afresh for each set of codes, it was 8 ms of the judge
    start = [threading.Thread._bootstrap_inner.__code__]  # type: ignore[attr-defined]
    # coverage.py's own reads, but not its dynamic contexts' (never on in a run):
    # ``qualname_from_frame`` holds a frame's code in a local and calls the test's objects
    # (red team 43 had a library hand it the target's frame); there it is a library's reader.
    coverage = code_objects([module for module in _modules(("coverage",))
                             if module.__name__ != "coverage.context"])
    ours = coverage | code_objects(_modules(("pytest_quest",)))
    recorder = code_objects(_modules(("pytest_quest.recorder",)))
    # The hooks' own code reads frames and code inside the hooks only, where the watch judges
    # what it reads as code it runs (``Watch._inside``); called by the test, it reads for the
    # test (red team 44 called ``Watch._holds_a_reader`` with an object of its own for the
    # watch, found through ``object.__subclasses__()``, and was handed the installed code).
    inside = code_objects(_modules(("pytest_quest.seal", "pytest_quest.watch",
                                    "pytest_quest.hooked", "pytest_quest.pathtext"))) | Codes(
        (code for item in vars(runparts.Guard).values() for code in _codes_of(item)),
        by_file=homes)
    keepers = [vars(kind).get(name) for kind, names in (
        (pytest_code.TracebackEntry, ("name", "lineno", "path", "relline", "statement",
                                      "getfirstlinesource", "getsource", "ishidden", "__str__",
                                      "__repr__")),
        (pytest_code.Traceback, ("cut", "filter", "recursionindex")),
        (pytest_code.ExceptionInfo, ("exconly", "errisinstance", "match", "getrepr",
                                     "__repr__")),
        (Node, ("repr_failure", "_repr_failure_py", "_traceback_filter")),
        (Function, ("repr_failure", "_traceback_filter"))) for name in names]
    formatter = getattr(pytest_code, "FormattedExcinfo", None) or getattr(
        pytest_code, "ExceptionInfoFormatter", None)
    keepers += list(vars(formatter).values()) if formatter is not None else []
    # The state or the locals of a generator or coroutine: never the frame it read (an honest
    # test of a generator's state, red team 31).
    keepers += [getattr(inspect, name, None) for name in (
        "getgeneratorstate", "getcoroutinestate", "getasyncgenstate", "getgeneratorlocals",
        "getcoroutinelocals", "getasyncgenlocals")]
    # the filter pytest hands to the builtin ``filter`` for a collection error's traceback
    # (a bool out, called by no name of its caller's)
    keepers += [getattr(pytest_code, "filter_traceback", None)]
    positions = traceback._walk_tb_with_full_positions  # type: ignore[attr-defined]
    keep = [logging.Logger.findCaller, logging._is_internal_frame,  # type: ignore[attr-defined]
            traceback.StackSummary._extract_from_extended_frame_gen.__func__,  # type: ignore[attr-defined]
            positions]
    # pytest's keepers too: Traceback.cut holds a Code (``.raw``: the code, no event) while
    # it compares the test's objects (red team 31)
    # with the code nested in them: a comprehension (its own code on 3.11) or a lambda runs
    # as part of its keeper, called by no name of its caller's (red team 55 saw a collection
    # error's report, through ``repr_traceback``'s list comprehension, told as a frame walk)
    kept = Codes((nested for item in keepers if item is not None for code in _codes_of(item)
                  for nested in with_nested(code)), by_file=homes)
    # pytest's unittest items filter a failure's traceback by each frame's ``__unittest``
    # global: a lambda of ``TestCaseFunction._traceback_filter`` that ``Traceback.filter``
    # hands to the builtin ``filter`` (a bool out; red team 51 saw an honest TestCase's
    # failure reported as a frame walk of the test's)
    kept |= Codes((nested for code in _codes_of(vars(TestCaseFunction).get("_traceback_filter"))
                   for nested in with_nested(code)[1:]), by_file=homes)
    # and the frames that keep the interpreter's functions a run replaced (pytest_quest.noevent)
    holders = Codes((code for item in keep for code in _codes_of(item)), by_file=homes) | kept \
        | Codes([KEEPING], by_file=homes)
    return Readers(
        consumers=holders | (ours - inside), holders=holders, importers=_importers(homes),
        guards=_guards(traceback, logging, positions),
        reporters=code_objects(_modules(("_pytest", "pluggy", "pytest"))),
        keepers=kept,
        passing=code_objects(_modules(("inspect", "types")))
        | Codes.of([logging.currentframe])  # a lambda of sys._getframe(1)
        | _hypothesis_walkers(homes),
        walkers=code_objects(_modules(("traceback",))),
        signature=Codes.of([inspect._has_code_flag]),  # type: ignore[attr-defined]
        tracers=coverage | recorder, measuring=coverage | recorder,
        builtins_used=_builtins_named((*_KEEPING, *_PASSING)),
        installers=Codes([*start, *installers], by_file=homes), hooks=ours,
        loader=Codes(loader, by_file=homes), inside=inside,
        code_makers=Codes.of([types.coroutine]) | _hypothesis_makers(homes),
        sealed=Codes((code for code in seal.seal.__code__.co_consts
                      if type(code) is types.CodeType and code.co_name == "sealed"),
                     by_file=homes))


def _hypothesis_makers(homes: dict[str, tuple[dict[str, Any], ...]]) -> Codes:
    """hypothesis's ``impersonate``, when loaded before the fork (the judge loads it for a test
    that imports it: :func:`pytest_quest.forkrun.preload`): ``@given`` gives its wrapper the
    test's file name and first line with ``code.replace``, which changes no instruction nor
    table (calibration of python-dateutil: every honest ``@given`` test FAILed "made a code
    object"). Code made so is still the test's (its file name is kept as made)."""
    return _loaded_function("hypothesis.internal.reflection", "impersonate", homes)


def _hypothesis_walkers(homes: dict[str, tuple[dict[str, Any], ...]]) -> Codes:
    """hypothesis's resolver of a forward reference, when loaded before the fork: it walks the
    stack and returns what a frame holds under a name, its own frame for ``"frame"`` (red team
    73 took a frame so and walked up to the watch). Like ``inspect``'s, its walk is judged by
    its caller: hypothesis's own code may, the test may not."""
    return _loaded_function("hypothesis.strategies._internal.types",
                            "_resolve_forward_ref_in_caller", homes)


def _loaded_function(module_name: str, name: str,
                     homes: dict[str, tuple[dict[str, Any], ...]]) -> Codes:
    """The code of the plain function ``name`` of a module loaded now, with its nested code
    (none when the module is not loaded: nothing of it is trusted then)."""
    module = sys.modules.get(module_name)
    function = getattr(module, name, None) if module is not None else None
    if type(function) is not types.FunctionType:
        return Codes()
    return Codes(with_nested(function.__code__), by_file=homes)


def _builtins_named(modules: Iterable[str]) -> tuple[str, ...]:
    """The builtins that code of ``modules`` (those loaded) names, sorted."""
    import builtins

    named = {name for code in code_objects(_MODULES[module] for module in modules
                                           if module in _MODULES) for name in code.co_names}
    return tuple(sorted(named & set(vars(builtins))))


def _guards(traceback: Any, logging: Any, positions: Any
            ) -> tuple[tuple[int, dict[str, Any], str, Any], ...]:
    """What the holders call that the test could replace: each a gadget once replaced (red
    team 32 replaced ``traceback.FrameSummary``, which the summaries call with the code in
    a local; red team 28 ``linecache.lazycache``)."""
    import linecache

    extract = traceback.StackSummary._extract_from_extended_frame_gen.__func__.__code__
    caller = logging.Logger.findCaller.__code__
    found = [(identity(positions.__code__), vars(traceback), "_get_code_position")]
    found += [(identity(extract), vars(traceback), name) for name in ("FrameSummary", "linecache")]
    found += [(identity(extract), vars(linecache), name) for name in (
        "lazycache", "checkcache", "getline", "getlines", "updatecache")]
    found += [(identity(caller), vars(logging), name) for name in (
        "currentframe", "_is_internal_frame")]
    return tuple((code, names, name, names.get(name)) for code, names, name in found)


def _importers(homes: dict[str, tuple[dict[str, Any], ...]] | None = None) -> Codes:
    """The import system's compile of a module's file, and pytest's of a test module
    (``homes``: :func:`pytest_quest.hooked.module_homes`, when made already)."""
    from importlib import _bootstrap, _bootstrap_external

    from _pytest.assertion import rewrite

    loader = _bootstrap_external.SourceLoader
    trampoline = _bootstrap._call_with_frames_removed  # type: ignore[attr-defined]
    return Codes((code for item in (trampoline,
                                   loader.source_to_code, loader.get_code,
                                   _bootstrap_external.SourcelessFileLoader.get_code,
                                   _bootstrap_external._compile_bytecode,  # type: ignore[attr-defined]
                                   getattr(rewrite, "_rewrite_test", None))
                 for code in _codes_of(item)), by_file=homes)


def _codes_of(item: Any) -> list[types.CodeType]:
    """The code of a function or property (its getter)."""
    function = item.fget if isinstance(item, property) else item
    code = getattr(function, "__code__", None)
    return [code] if isinstance(code, types.CodeType) else []


class Watch:
    """An audit hook that notices a test reading the code under test (see the module doc)."""

    #: What changes from the test's start on (:func:`pytest_quest.seal.seal` holds the rest).
    CHANGING = frozenset({"nodeid", "_loading"})

    def __init__(self, target: TargetSpec, path: str,
                 fingerprint: tuple[tuple[int, ...], tuple[int, ...]],
                 test_path: str = "", pipe: AnswerPipe | None = None,
                 known: Readers | None = None, writable: Iterable[str] = (),
                 sealed: bool = False, measuring: bool = True, project: str = "",
                 hidden: bool = False) -> None:
        #: Called through :func:`pytest_quest.seal.seal`'s closure: one more frame between
        #: ``__call__`` and whoever raised the event.
        self._above = 1 if sealed else 0
        #: The kernel hides the target's file from this process and its children (a Landlock
        #: layer, :func:`pytest_quest.confine.hide_files`): opening it reads nothing.
        self._hidden = hidden
        #: The target's file as the run compiled it, and resolved: compared as text.
        self.paths = frozenset({path, normal(path), os.path.realpath(path)})
        self.module = target.module
        self.qualname = ".".join((*target.owner, target.name))
        #: The target's def and body as hashed lines, never as text
        #: (:func:`pytest_quest.scrub.fingerprint`, made before any run exists).
        self.function, self.body = fingerprint
        #: The submitted test file as pytest may name its code.
        self.tests = frozenset({test_path, normal(test_path), os.path.realpath(test_path)}
                               ) if test_path else frozenset()
        #: The project's copy (its folder and the real one, each ending in a separator): the
        #: one place a module that imports ctypes honestly comes from (red team 57 had the
        #: system Python's sharedctypes, and our own fallback module, import it).
        self._project = folder_prefixes([project]) if project else ()
        #: The import folders as the run starts: where a module's file must lie for the
        #: module body importing ctypes to be the module it is imported as (red team 60).
        self._roots = folder_prefixes(root for root in sys.path if root and os.path.isabs(root))
        #: What it saw, in order; each one is also on the answer pipe already.
        self.reads: list[str] = []
        self.nodeid = ""
        readers = known if known is not None else Readers()
        self._readers = readers if measuring else readers.unmeasured()
        self._guards: dict[int, list[tuple[dict[str, Any], str, Any]]] = {}
        for code, names, name, original in self._readers.guards:
            self._guards.setdefault(code, []).append((names, name, original))
        self._pipe = pipe if pipe is not None else AnswerPipe(None)
        self._phase = Phase()
        self._loading = False
        #: Threads inside the hook now: their own lookups raise events of their own. One flag
        #: for all let a second thread read unseen while the first was inside (red team 27).
        self._busy: set[int] = set()
        #: Threads asking who raised an event inside the hook (the question raises one).
        self._asking: set[int] = set()
        #: The signal handlers in place when the test's time began (a plugin's, ours).
        self._handlers: tuple[Any, ...] = (None,) * len(SIGNALS)
        self._replaced: list[str] = []
        #: The globals of the modules that read for their caller, as at the test's start.
        self._passing = Spaces()
        #: pytest's traceback API (its modules' globals and classes), as at the test's start:
        #: its keepers read for themselves only while it is (red team 44 replaced the ``Code``
        #: class its ``Frame.code`` hands a frame's code to).
        self._keeping = Spaces()
        #: The globals of each module loaded at the test's start, by its code's file name: a
        #: frame of a module's code run with other globals is the test's (:meth:`_foreign`).
        self._homes: dict[str, tuple[dict[str, Any], ...]] = {}
        #: File names the test's time compiled code under, other than through the import
        #: system: code under them is the test's, whatever they look like (red team 30).
        self.made: set[str] = set()
        #: Frames of modules' readers that read the target's code and kept it (holders).
        self._kept: list[types.FrameType] = []
        #: Their ids, for the stack walks (the list keeps each frame, so its id stays its own).
        self._kept_ids: set[int] = set()
        #: The run's writable folders: a module file there is one the test may have written.
        self.writable = folder_prefixes(writable)

    # ------------------------------------------------------------ the hook
    def _raiser(self, depth: int) -> types.FrameType:
        """The frame ``depth`` levels above the caller's, counted as if ``__call__`` were
        called by whoever raised the event (the seal's frame between them not counted)."""
        return getframe(depth + 1 + self._above)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        thread = get_ident()
        if thread in self._busy:
            if thread not in self._asking and self._phase.testing():
                self._inside(thread)
            return
        if event == CONTROL:
            self._busy.add(thread)
            try:
                self._control(args)
            finally:
                self._busy.discard(thread)
            return
        if not self._phase.testing():
            return
        self._busy.add(thread)
        try:
            self._judge(event, args)
        finally:
            self._busy.discard(thread)

    def _handlers_now(self) -> None:
        """The target's code is read: no signal handler may be in place that a signal would
        hand a frame to, but those in place at the test's start (a plugin's) and the
        interpreter's own (a run installs every other one shielded: pytest_quest.noevent; a
        second ``_signal`` module has an installer of its own, and every reader that holds
        the code in a local read it with an event first: red team 36)."""
        for number, before in zip(SIGNALS, self._handlers, strict=True):
            handler = HANDLER_OF(number)
            if handler is not before and hands_frames(handler):
                self._saw("installed a signal handler that is handed frames")
                return

    def _inside(self, thread: int) -> None:
        """An event raised while this thread is inside the hook: the hook's own lookups, or
        code of someone else's that the hook ran (a path's ``__fspath__``, a loader's
        property: red team 35). There events go unjudged and one frame walk finds the hook
        itself, so such code is a finding, whatever it does."""
        self._asking.add(thread)  # reading f_code raises an event of its own
        try:
            if not self._readers.hooks.runs(self._raiser(2)):  # 0 here, 1 __call__
                self._saw("ran code inside the code watch")
        finally:
            self._asking.discard(thread)

    def _judge(self, event: str, args: tuple[Any, ...]) -> None:
        count = len(args)
        if _GC_DEBUG() & _SAVE_ALL:
            # every object the collector frees kept in gc.garbage: a frame among them walks
            # every frame below it with no event (red team 35)
            self._saw("made the garbage collector keep what it frees (gc.DEBUG_SAVEALL)")
        if event == "object.__getattr__" and count == 2 and type(args[1]) is str:
            attr = args[1]
            if attr == "__code__":
                self._code_read(args[0])
            elif attr in _RUN_GETTERS and not self._loading:
                self._code_through(args[0], attr)
            elif attr == "tb_frame" and not self._loading and not self._hook_frame(args[0]):
                self._walk_by_test("tb_frame", handed=args[0])
        elif event == "object.__setattr__" and count == 3 and type(args[1]) is str and \
                args[1] == "__code__":
            self._code_replaced(args[0])
        elif event == "open" and count:
            self._opened(args)
        elif event in ("sys.setprofile", "sys.settrace"):
            self._tracer(f"a profiler or tracer ({event})")
        elif event == "sys.monitoring.register_callback" and count and args[0] is not None:
            # PEP 669 hands each callback the code object that starts or returns (3.12+):
            # the installed code of the target, with no read of ``__code__``. Ours (the
            # recorder, coverage's core) register before test code; unregistering is None.
            self._tracer("a sys.monitoring callback")
        elif event in _FRAME_EVENTS and not self._loading:
            self._walk_by_test(event)
        elif event in _OBJECT_EVENTS and not self._loading:
            self._saw(f"walked the process's frames or objects ({event})")
        elif event == "compile" and count == 2 and not self._pytest_parsing():
            self._compiled(args[0], args[1])
        elif event == "code.__new__" and count >= 2:
            self._made(args[1])  # types.CodeType(...) or code.replace(co_filename=...)
            if not self._readers.code_makers.runs(self._raiser(2)):  # 0 here, 1 __call__
                self._new_code()
        elif event == "marshal.loads" and count and not self._loading and \
                not self._plain_bytecode(args[0]):
            self._unmarshalled()
        elif event == "marshal.load" and not self._loading:
            # from a file, with nothing to read in the event: code that may carry any name
            # (pkgutil.read_code, pstats: red team 34); fails closed
            self._saw("read code objects from a file (marshal.load)")
        elif event == "import" and count and _names_ctypes(args) and \
                self._ctypes_for_test(args[0] if type(args[0]) is str else "",
                                      loaded=count > 1 and args[1] is not None):
            # The judge keeps ctypes out of a run's memory (pytest_quest._kernel): loaded
            # for the test, its classes read any address with no audit event (red team 52)
            self._saw(CTYPES_LOADED)
        elif event.startswith("ctypes.") and self._ctypes_importing():
            # ctypes' own modules run as it is imported (``PyDLL(None)``: ctypes.dlopen):
            # judged as the import it is part of, whoever binds what afterwards
            if self._ctypes_for_test("_ctypes"):  # ctypes' body imports its C half
                self._saw(CTYPES_LOADED)
        elif event.startswith("ctypes.") and event != "ctypes.cdata/buffer" and \
                self._ctypes_by_test(event in _MEMORY_EVENTS):
            # (from_buffer reads the buffer it is given, no address: multiprocessing.Value)
            # ctypes reads any memory, the installed code included: from the test's own code
            # it is a read (red team 27), or through a trampoline of the standard library (a
            # thread pool's worker: red team 29); a library's binding of a C library is not
            self._saw(f"used ctypes ({event})")

    def _hook_frame(self, tb: Any) -> bool:
        """A traceback's frame of the run's hook, taken for the test: its locals (and its
        closure's) are the hooks and their state, beyond the seal's picture. pytest's reports
        and the traceback module's text of an exception raised there (a guard's denial) take
        it for themselves."""
        readers = self._readers
        if type(tb) is not _TRACEBACK or not readers.inside.runs(tb.tb_frame):
            return False
        frame: types.FrameType | None = self._raiser(3)  # 0 here, 1 _judge, 2 __call__
        for _ in range(_DEPTH):  # past the getters that hand a frame on (walk_tb, .frame)
            if frame is None or not (readers.walkers.runs(frame) or (
                    readers.reporters.runs(frame) and
                    not readers.keepers.runs(frame))):
                break
            frame = frame.f_back
        if frame is not None and (self._consumer(frame) or (
                readers.hooks.runs(frame) and not readers.inside.runs(frame))):
            return False
        self._saw("took a frame of pytest-quest's own audit hook from a traceback")
        return True

    def _control(self, args: tuple[Any, ...]) -> None:
        """pytest-quest's own code steering the watch; anyone else raising it is the test."""
        if not args or type(args[0]) is not str:
            return
        verb = args[0]
        if verb == "item":
            if len(args) == 2 and type(args[1]) is str:
                self.nodeid = args[1][:500]
            return
        caller = self._raiser(2)  # 0: here, 1: __call__, 2: who raised the event
        if self._phase.steer(verb, caller):
            self._handlers = tuple(HANDLER_OF(number) for number in SIGNALS)
            self._passing = Spaces(vars(module) for module in map(_MODULES.get, _PASSING)
                                   if module is not None)
            keeping = [module for module in map(_MODULES.get, _KEEPING) if module is not None]
            self._keeping = Spaces((vars(module) for module in keeping), (
                kind for module in keeping[:2] for kind in vars(module).values()
                if type(kind) is type and kind.__module__ == module.__name__), named=(
                    (vars(_MODULES["builtins"]), self._readers.builtins_used),))
            self._homes = module_homes()
            self._pipe.seal()
            return
        if verb == "loading":
            # Not believed unless our loader's own frames lead to the starter; never a
            # finding (the test module's import retries a failed first import with it).
            if len(args) == 2 and type(args[1]) is bool and self._phase.testing() and \
                    self._from_loader(caller):
                self._loading = args[1]
            return
        if self._phase.testing():
            self._saw("raised the code watch's own event")

    def _from_loader(self, frame: types.FrameType | None) -> bool:
        """Our loader imports the module again (the first import failed): every frame between
        it and the starter is ours or the import system's, none the test's or the project's."""
        for _ in range(200):
            if frame is None:
                return False
            if frame is self._phase.anchor:
                return True
            name = frame.f_code.co_filename
            if not self._readers.loader.runs(frame) and not (
                    type(name) is str and name.startswith(_FROZEN_IMPORT)):
                return False
            frame = frame.f_back
        return False

    # ------------------------------------------------------------ what it saw
    def _saw(self, what: str) -> None:
        """A finding, on the answer pipe at once, every time: what the watch keeps of them
        (``reads``, at most :data:`MAX_READS`) decides nothing (red team 44 reached the watch
        and filled that list, which silenced it). The judge keeps each text once."""
        entry = f"{self.nodeid}: {what}" if self.nodeid else what
        if entry not in self.reads and len(self.reads) < MAX_READS:
            self.reads.append(entry)
        self._pipe.tell(READ_RECORD, entry)

    # ------------------------------------------------------------ the rules
    def _is_target(self, path: Any) -> bool:
        text = text_of(path)
        return text is not None and (text in self.paths or normal(text) in self.paths)

    def _opened(self, args: tuple[Any, ...]) -> None:
        path = args[0]
        kind = type(path)
        if (kind is _PURE_POSIX or kind is _POSIX) and text_of(path) is None:
            # a path whose class or slots the test changed: what it opens is unknown (where
            # the kernel does not hide the target's file, it could be that file)
            self._saw("opened a path whose class or slots were changed")
            return
        if not self._is_target(path):
            return
        mode, flags = (*args[1:], None, 0)[:2]
        writing = (type(mode) is str and any(c in mode for c in "wax+")) or (
            type(flags) is int and flags & _WRITE_FLAGS)
        # A write is the guard's and the sources check's business. Where the kernel hides the
        # file the open fails and reads nothing: only the test's own open is told (its fact
        # names the trick); a library's is not (hypothesis reads every local module's source
        # for constants to try and goes on without them: calibration of python-dateutil).
        if not writing and (not self._hidden or self._opened_by_test(self._raiser(3))):
            self._saw("opened the target's source file")

    def _opened_by_test(self, frame: types.FrameType | None) -> bool:
        """The first frame above the standard library's (``pathlib``, ``io``, the import
        system) that asked for the open is the test's."""
        for _ in range(_DEPTH):
            if frame is None:
                return False
            if self._made_by_test(frame):
                return True
            if not self._in_stdlib(frame) or frame.f_code.co_filename in self.made:
                return False
            frame = frame.f_back
        return True

    def _compiled(self, source: Any, filename: Any) -> None:
        if self._is_target(filename):
            self._saw("compiled code under the target's file name")
            return
        if not self._loading and not (self._importing() and _on_disk(filename, source)):
            self._made(filename)
        text = text_of(source)
        if text is not None and self.function and (
                holds_body(text, self.function) or holds_body(text, self.body)):
            self._saw("compiled the target's source text")

    def _code_read(self, func: Any) -> None:
        """``__code__`` of the target read, whatever its ``__qualname__`` and ``__module__`` say
        now (a test renamed the target for the read: red team 8, finding 05), by anything but
        ``inspect.signature`` (names only) or our loader importing the module."""
        if type(func) is not _FUNCTION or self._loading:
            return
        module, name = func.__module__, func.__qualname__
        if not ((type(module) is str and module == self.module and type(name) is str
                 and name == self.qualname) or self._is_target_code(func.__code__)):
            return
        self._handlers_now()
        if self._readers.signature.runs(self._raiser(3)):  # 0 here, 1 _judge, 2 __call__
            return
        self._saw("read the target's __code__")

    def _code_replaced(self, func: Any) -> None:
        """The target's ``__code__`` replaced while tests run (the run's own swap is done
        before): ``run-target-replaced`` for the test under way."""
        if type(func) is _FUNCTION and self._is_target_code(func.__code__):
            label = self.nodeid or "the test module"
            if label not in self._replaced and len(self._replaced) < MAX_READS:
                self._replaced.append(label)
                self._pipe.tell(REPLACED_RECORD, label)

    def _importing(self) -> bool:
        """The compile under way is the import system's of a module's own file (a plain
        ``SourceFileLoader``, which reads what it compiles from that file) or pytest's
        rewrite of a test module: told by the code of each frame on the way."""
        frame = self._raiser(4)  # 0: here, 1: _compiled, 2: _judge, 3: __call__, 4: the caller
        importers = self._readers.importers
        if importers.runs(frame) and frame.f_code.co_name == "_rewrite_test":
            return True
        for _ in range(3):  # _call_with_frames_removed <- source_to_code <- get_code
            if not importers.runs(frame) or frame.f_back is None:
                return False
            if frame.f_code.co_name == "get_code":
                loader = frame.f_locals.get("self")
                return type(loader) is _SOURCE_FILE_LOADER and _plain(loader) and \
                    not self._writable(_own(loader, "path"))
            frame = frame.f_back
        return False

    def _writable(self, path: Any) -> bool:
        """``path`` lies in one of the run's writable folders (or is no text at all): a
        module imported from there was written in the run, by the test (a plain loader made
        for a file in its temp dir ran it as a module: red team 30's idea, taken further)."""
        text = text_of(path)
        if text is None:
            return True
        real = real_path(text)
        return any(spelling.startswith(self.writable)
                   for spelling in (text, normal(text), real) if spelling)

    def _plain_bytecode(self, data: Any) -> bool:
        """The import system reading a module's own ``.pyc``: ``_compile_bytecode`` under a
        plain file loader's ``get_code``, the ``.pyc`` not in the run's writable folders, the
        bytes it loads that file's own, held in bytes nothing can change (the event carries
        a copy: a buffer changed after it was taken would load other bytes), and loaded by
        the real ``marshal.loads``."""
        frame = self._raiser(3)  # 0: here, 1: _judge, 2: __call__, 3: who raised it
        if not (self._readers.importers.runs(frame) and
                frame.f_code.co_name == "_compile_bytecode"):
            return False
        path = frame.f_locals.get("bytecode_path")
        if self._writable(path) or not _on_disk(path, data, _PYC_HEADER) or \
                not _frozen_bytes(frame.f_locals.get("data")):
            return False
        module = frame.f_globals.get("marshal")
        if module is not _MARSHAL or _MARSHAL_NAMES.get("loads") is not _UNMARSHAL:
            return False
        caller = frame.f_back
        loader = caller.f_locals.get("self") if caller is not None and \
            self._readers.importers.runs(caller) else None
        return type(loader) in _FILE_LOADERS and _plain(loader)

    def _unmarshalled(self) -> None:
        """Data read with ``marshal.loads`` in the test's time, but for the import system
        reading a module's own ``.pyc`` (:meth:`_plain_bytecode`). It may carry code objects
        no compile made, and CPython checks nothing of what such code runs: a constant, a
        local or a name past its tables reads memory there (red teams 48 and 49), a
        specialized instruction (``co_code`` shows its plain form) runs with caches of the
        loader's choosing, a jump or a handler may land past its end. Checking the code
        found in the loaded value is not enough: the event carries a copy of the bytes, and
        a buffer changed once the copy is taken (another thread, a signal handler) loads
        other bytes than those checked. Honest tests compile; loading is a finding."""
        self._saw("loaded data with marshal.loads (code no compile made can come with it)")

    def _new_code(self) -> None:
        """A code object made in the test's time (``types.CodeType(...)``, ``code.replace``):
        CPython checks no index of an instruction against its code's tables, so such code
        reads whatever lies in memory past them: red team 48 read the installed code from
        the target's function object with a ``LOAD_CONST`` past its constants, and red team
        49 kept a real function's bytecode and shrank its tables. Compiling makes code whose
        indexes hold; nothing of a test needs to make one."""
        self._saw("made a code object (types.CodeType or code.replace)")

    def _made(self, filename: Any) -> None:
        """Code made in the test's time under ``filename``: the test's from now on. Only
        names that would pass for a module's are kept (``<string>`` is the test's anyway)."""
        text = text_of(filename)
        if text is None or not text.startswith(("/", "<frozen")) or text in self.tests or \
                text in self.made:
            return
        if len(self.made) >= MAX_MADE:
            self._saw(f"compiled code under more than {MAX_MADE} file names")
            return
        self.made.add(text)

    def _is_target_code(self, code: Any) -> bool:
        if type(code) is not _CODE:
            return False
        qualname, name = code.co_qualname, code.co_filename
        return type(qualname) is str and qualname == self.qualname and \
            type(name) is str and name in self.paths

    def _reader(self, depth: int) -> types.FrameType:
        """The frame that read, past the readers that read for their caller: believed only
        while their modules' globals are as at the test's start (``inspect`` hands the code
        it read to ``_get_code_position`` and ``iscode``, looked up at each call: red team 42
        replaced them and had a library or the project call ``inspect`` for it)."""
        first = frame = self._raiser(depth + 1)
        passing = self._readers.passing
        while passing.runs(frame) and frame.f_back is not None:
            frame = frame.f_back
        if frame is not first and not self._passing.intact():
            return first  # the standard library's frame, read for no one: the test's
        return frame

    def _code_through(self, holder: Any, attr: str) -> None:
        """A generator's, coroutine's or frame's code read (red team 6, finding 06: a test told
        reach checks apart by ``SystemExit`` among the names of ``gi_code`` or of a frame's
        ``f_code``), or the frame itself (its locals and offset tell mutants apart: red team
        7, finding 01), by anything but a reader that keeps it to itself; and the frame of a
        running generator, whoever's, whose ``f_back`` reaches every frame below it with no
        audit event (red team 29)."""
        kind = type(holder)
        if not any(kind is known for known in _RUNNING):  # by identity: no hash of the test's
            return  # anything else may run the test's code on ``getattr``
        if attr in _FRAME_GETTERS:
            # Any generator's frame, running or not: once resumed from under a reader, its
            # ``f_back`` leads there with no event at all (the test's own generator: red team
            # 31; the standard library's ``Sequence.__iter__`` run by the test's
            # ``__getitem__``: red team 36).
            frame = getattr(holder, attr, None)  # None: finished, no frame at all
            if frame is not None and not self._consumer(self._raiser(3)) \
                    and self._walk_by_test(attr, 4):  # 0: _walk_by_test, 1: here, 2: _judge
                return  # (a consumer keeps what it takes: coverage, traceback's summaries)
            found = getattr(frame, "f_code", None)
        else:
            found = getattr(holder, attr, None)
        if not self._is_target_code(found):
            return
        self._handlers_now()
        if self._for_someone_else(self._raiser(3), attr):  # 0: here, 1: _judge, 2: __call__
            self._saw(f"read the target's code through {attr}")
            return
        reader = self._reader(3)  # 0: _reader, 1: here, 2: _judge, 3: __call__
        if self._for_itself(reader):
            return
        if self._readers.reporters.runs(reader) or self._made_by_test(reader) or \
                self._in_stdlib(reader):
            self._saw(f"read the target's code through {attr}")
        elif len(self._kept) < MAX_KEPT:
            # A module's reader keeps what it read, but holds it in a local from now on: a
            # holder of the test's own making (pyparsing asked the test's __class__: red
            # team 32)
            self._kept.append(reader)
            self._kept_ids.add(identity(reader))
        else:  # more than the watch keeps: a read (red team 33 filled the list first)
            self._saw(f"read the target's code through {attr} more than {MAX_KEPT} times")

    def _in_stdlib(self, frame: types.FrameType) -> bool:
        name = frame.f_code.co_filename
        return type(name) is str and (name.startswith("<frozen") or (
            name.startswith(_STDLIB) and "-packages" not in name))

    def _for_itself(self, frame: types.FrameType | None) -> bool:
        """A reader that keeps what it read: a consumer, or pytest reading for one of its
        keepers or for a consumer (its report after the test, under our run), not for the
        test (``excinfo.traceback[-1].frame.code.raw``: red team 6). Each of pytest's frames
        on the way must be called by name from the one above it: a C callable in between
        (``map(operator.attrgetter(...), ...)`` that pytest consumes) reads for the test."""
        readers = self._readers
        for _ in range(200):
            if frame is None:
                return False
            code = frame.f_code
            if readers.inside.runs(frame) or readers.consumers.runs(frame):
                return self._consumer(frame) and self._intact(code)
            if self._stdlib_function(code, _REPORTS) and not self._foreign(frame):
                return True
            if readers.keepers.runs(frame):
                return self._keepers_intact()
            caller = frame.f_back
            if not readers.reporters.runs(frame) or caller is None or not self._trusted(
                    caller) or not self._names(caller.f_code, code.co_name):
                return False
            frame = caller
        return False

    def _trusted_names(self, code: types.CodeType) -> bool:
        """Whether ``code``'s names may be read without running the test's code: code of a
        module file (a code object the test made may hold ``str`` subclasses there)."""
        name = code.co_filename
        return type(name) is str and name.startswith("/") and name not in self.tests and all(
            type(item) is str for item in code.co_names)

    @staticmethod
    def _names(code: types.CodeType, name: str) -> bool:
        """``code`` calls something called ``name``: an attribute, a global or a closure's."""
        return name in code.co_names or name in code.co_freevars

    def _trusted(self, frame: types.FrameType) -> bool:
        """Code of a module the readers were made from, run in its home: its names are plain
        strings."""
        readers = self._readers
        return readers.reporters.runs(frame) or readers.keepers.runs(frame) or \
            readers.consumers.runs(frame)

    def _ctypes_by_test(self, memory: bool) -> bool:
        """ctypes used for the test: by its own code, by a trampoline of the standard library,
        or by a library the test called (pytest's ``CallInfo.from_call`` made the call for red
        team 30); a binding of a C library in the project, or ours, is not the test, unless
        it reads memory at an address (``from_address``, ``string_at``)."""
        frame: types.FrameType | None = self._raiser(3)  # 0: here, 1: _judge, 2: __call__
        while frame is not None and type(frame.f_code.co_filename) is str and \
                _CTYPES in frame.f_code.co_filename:
            frame = frame.f_back  # ctypes' own Python helpers (cast, string_at) for a caller
        for _ in range(_DEPTH):
            if frame is None or self._made_by_test(frame):
                return True
            if self._in_stdlib(frame):
                # a trampoline (a thread pool's worker), unless a module of the standard
                # library that binds C itself makes a call of ctypes it names
                # (multiprocessing.Value's from_buffer and memset: an honest test)
                bound = frame.f_globals.get("ctypes")
                return not (type(bound) is _MODULE and
                            bound is _MODULES.get("ctypes") and
                            not _CTYPES_CALLS.isdisjoint(frame.f_code.co_names))
            if self._readers.hooks.runs(frame):
                return False
            if memory:  # memory read at an address: whoever runs it (red team 31's project
                return True  # frame ran the test's map of from_address)
            if not self._in_library(frame):
                return False
            frame = frame.f_back
        return True

    def _ctypes_importing(self) -> bool:
        """The event comes from the body of one of ctypes' own modules being imported."""
        frame: types.FrameType | None = self._raiser(3)  # 0: here, 1: _judge, 2: __call__
        while frame is not None and type(frame.f_code.co_filename) is str and \
                _CTYPES in frame.f_code.co_filename:
            if frame.f_code.co_name == "<module>":
                return True
            frame = frame.f_back
        return False

    def _ctypes_for_test(self, importing: str, loaded: bool = False) -> bool:
        """ctypes' (or cffi's) C half, ``importing``, imported for the test: unless the
        project's own code imports it, directly (``import ctypes`` in a module or function of
        the project's copy) or through modules whose bodies import one another down from it
        (the project imports numpy, numpy's body imports ctypes), each frame on the way
        naming the module it imports, and each body the file of the module it is imported
        as, in the run's import folders. Anything else works for whoever called it: a
        function of the standard library or a library (red team 56 had pytest call
        ``EntryPoint.load`` as a fixture), a module body the test imported itself (red team
        57's ``sharedctypes``), our own code, a frame that does not name what it imports (a C
        callable imported for it: red team 59's ``functools.partial(__import__, ...)``), or a
        file loaded under another module's name (a finder of the test's served ``_ctypes``,
        or a body that imports it, for the project's ``import json``: red team 60).
        ``loaded``: the event is the load of the file itself (it carries the file), so the
        nearest import under way must be of that very name."""
        frame: types.FrameType | None = self._raiser(3)  # 0: here, 1: _judge, 2: __call__
        body = ""  # the last module body met: the file of the module imported above it
        for _ in range(_DEPTH):
            if frame is None or self._made_by_test(frame):
                return True
            name = frame.f_code.co_filename
            if type(name) is not str:
                return True
            code = frame.f_code.co_name
            if name.startswith(_FROZEN_IMPORT):
                if code == "_find_and_load":  # (name, import_): the module it imports
                    found = frame.f_locals.get("name")
                    if type(found) is not str or (loaded and found != importing) or (
                            body and not _module_file(body, found, self._roots)):
                        return True
                    importing, body, loaded = found, "", False
                frame = frame.f_back
                continue
            path = normal(name)
            if _CTYPES in name and code != "<module>" and \
                    not path.startswith(self._project or ("\0",)):
                frame = frame.f_back  # ctypes' own helpers as its body runs (PyDLL(None))
                continue
            if loaded or not _imports_by_name(frame, importing) or path.startswith(_OURS):
                return True
            if path.startswith(self._project or ("\0",)):
                return False  # the project's own code imports it, or what imports it
            if code != "<module>":
                return True  # a function between: it works for whoever called it
            body = path
            frame = frame.f_back
        return True

    def _consumer(self, frame: types.FrameType) -> bool:
        """``frame`` reads for itself: a consumer's, or the hooks' own inside the hook."""
        readers = self._readers
        if readers.consumers.runs(frame):
            return not readers.keepers.runs(frame) or self._keepers_intact()
        return readers.inside.runs(frame) and self._in_hook(frame)

    def _keepers_intact(self) -> bool:
        """pytest's traceback API and what its keepers hand on are as at the test's start."""
        return self._keeping.intact() and self._passing.intact()

    def _in_hook(self, frame: types.FrameType | None) -> bool:
        """Whether ``frame``, of the hooks' own code, runs inside this run's audit hook: every
        frame from it up is the hooks' own until the seal's closure that calls this watch.
        Called by the test (found through ``object.__subclasses__()``, with an object of the
        test's for the watch) or by a seal the test made, it reads for the test (red team 44
        had ``Watch._holds_a_reader`` hand it the installed code)."""
        readers = self._readers
        for _ in range(_DEPTH):
            if frame is None or not readers.inside.runs(frame):
                return False
            if readers.sealed.runs(frame):
                calls = frame.f_locals.get("calls")
                return type(calls) is tuple and any(
                    type(pair) is tuple and len(pair) == 2 and pair[1] is self for pair in calls)
            frame = frame.f_back
        return False

    def _intact(self, code: types.CodeType) -> bool:
        return all(names.get(name) is original
                   for names, name, original in self._guards.get(identity(code), ()))

    def _tracer(self, what: str) -> None:
        """A profiler, tracer or ``sys.monitoring`` callback installed in the test's time by
        anything but ours: ``cProfile``'s stats hold the code objects each call ran (red team
        6, finding 06), also when a thread of the test enables it (red team 27) or threading's
        start of a thread or our retrying ``sys`` do it for the test (red team 28)."""
        frame = self._raiser(3)  # 0: here, 1: _judge, 2: __call__
        readers = self._readers
        if readers.tracers.runs(frame) or (
                readers.installers.runs(frame) and self._installs_ours(frame)):
            return
        self._saw(f"installed {what}")

    def _installs_ours(self, frame: types.FrameType) -> bool:
        """What threading's thread start or forkrun's ``_retry`` is installing: only a hook of
        ours (or none), only through the real ``sys``."""
        if frame.f_code.co_name == "_bootstrap_inner":
            # threading calls _sys.settrace(_trace_hook) and _sys.setprofile(_profile_hook)
            names = frame.f_globals
            return names.get("_sys") is sys and all(
                self._hook_ours(names.get(hook)) for hook in ("_trace_hook", "_profile_hook"))
        local = frame.f_locals  # forkrun._retry(install, function)
        install = local.get("install")
        return any(install is real for real in _INSTALLS) and \
            self._hook_ours(local.get("function"))

    def _hook_ours(self, hook: Any) -> bool:
        if hook is None:
            return True
        if type(hook) is _METHOD:
            hook = hook.__func__
        return self._readers.hooks.owns(hook)

    def _walk_by_test(self, what: str, depth: int = 3, handed: Any = None) -> bool:
        """The test takes a frame (its own, to walk up to the harness's) or every thread's
        (red team 6, finding 06), also through ``inspect`` or ``traceback`` (red team 8,
        finding 03): its file's code, or code made at run time (``<string>``: red team 27).
        pytest, logging and the traceback module take frames for their own reports."""
        frame = self._raiser(depth)  # 0: here, 1: _judge, 2: __call__
        callee = _CALLEES.get(what)
        if self._for_someone_else(frame, callee or what):
            self._saw(f"walked the process's frames or objects ({what})")
            return True
        walkers, passing = self._readers.walkers, self._readers.passing
        if what == "tb_frame" and frame.f_back is not None and walkers.runs(frame) \
                and walkers.runs(frame.f_back):
            return False  # traceback's own formatting (format_exc): text, no frame handed on
        code = frame.f_code
        if self._readers.keepers.runs(frame) or (
                what == "sys._getframe" and walkers.runs(frame) and code.co_name in _STACK_TEXT):
            return False  # a state or text out (getgeneratorstate, format_stack), no frame
        got = False  # a standard-library function that hands frames out got them
        while (back := frame.f_back) is not None:
            if passing.runs(frame) or walkers.runs(frame):
                frame = back  # inspect.currentframe() takes the frame for its caller
            elif self._hands_out(frame) or (got and self._in_stdlib(frame)):
                # and every frame of the standard library between it and who asked (pdb's
                # setup stored bdb's frames on the test's object: red team 31)
                got, frame = True, back
            else:
                break
        if self._under_holder(frame):
            self._saw(f"walked the process's frames or objects ({what}) while a reader held "
                      "code")
            return True
        if type(handed) is _TRACEBACK and not self._trusted(frame) and \
                self._holds_a_reader(handed):
            # a reader's frame outlives it in a traceback, its locals with it (logging's
            # caller lookup made to raise by the test's object: red team 32); pytest's own
            # reports of a failure read every frame of it (a pytest.raises(match=...) that
            # failed in a mutant's run has its keeper's frame there)
            self._saw(f"walked the process's frames or objects ({what}) to a reader's frame")
            return True
        if self._readers.reporters.runs(frame):
            if self._for_itself(frame):
                return False
            # not for itself: for the test (excinfo.traceback[-1].locals: red team 28)
        elif not self._made_by_test(frame):
            return False
        self._saw(f"walked the process's frames or objects ({what})")
        return True

    def _for_someone_else(self, frame: types.FrameType, name: str) -> bool:
        """A module's frame raised the event without naming what raised it: a C callable it
        ran did (a thread pool worker running ``sys._current_frames``: red team 29; a library
        or the project iterating the test's ``map(operator.attrgetter(...), ...)``: red team
        31). Whoever made that callable is the test; a consumer's own lookups aside."""
        code = frame.f_code
        return not self._consumer(frame) and self._trusted_names(code) and \
            not self._names(code, name) and name not in _text_constants(code)

    def _under_holder(self, frame: types.FrameType) -> bool:
        """A holder (a consumer with the code in a local) is on the stack below ``frame``, with
        code that is not a reader's in between: the test's, a library's, the project's (a
        holder's own calls into pytest's traceback API, logging's lookup of its own caller,
        are the holder's). A module's reader that kept the target's code counts with the
        test's code in between."""
        holders, readers = self._readers.holders, self._readers
        if self._consumer(frame):
            return False  # takes it for itself (coverage's monitoring callback, logging's lookup)
        own = True
        roots: set[str] = set()  # the libraries (or the project's folders) on the way
        below: types.FrameType | None = frame
        for _ in range(_DEPTH):
            if below is None:
                return False
            code = below.f_code
            if holders.holds(code):
                return not own
            if self._kept_frame(below):
                # a module's reader: its own library's frames above it are its own (trio
                # checks its own KI protection by frame), any other code is not (red team 33
                # reached pyparsing's through rich with only C between)
                return bool(roots - {_root(code.co_filename)})
            if not (self._trusted(below) or readers.walkers.runs(below) or
                    readers.passing.runs(below)):
                own = False
                roots.add(_root(code.co_filename) if not self._made_by_test(below) else "")
            below = below.f_back
        return True  # deeper than the look: as if a holder were there (red team 33 recursed)

    def _kept_frame(self, frame: types.FrameType) -> bool:
        return identity(frame) in self._kept_ids

    def _holds_a_reader(self, tb: types.TracebackType) -> bool:
        """The frame a traceback hands out, or one below it, is a holder's (but pytest's) or
        a kept reader's."""
        frame: types.FrameType | None = tb.tb_frame
        holders, keepers = self._readers.holders, self._readers.keepers
        for _ in range(_DEPTH):
            if frame is None:
                return False
            code = frame.f_code
            if (holders.holds(code) and not keepers.holds(code)) or self._kept_frame(frame):
                return True
            frame = frame.f_back
        return True  # deeper than the look: as if a holder were there

    def _hands_out(self, frame: types.FrameType) -> bool:
        """A function of the standard library that returns the frames it takes to its caller
        (asyncio's ``Task.get_stack``, bdb's ``get_stack``: red team 30)."""
        return self._stdlib_function(frame.f_code, _HANDERS)

    def _stdlib_function(self, code: types.CodeType, table: dict[str, tuple[str, ...]]
                         ) -> bool:
        """``code`` is one of the standard library's functions in ``table`` (name -> file
        endings), told by its file and name, whether or not the judge loaded its module: a
        standard library file is the interpreter's (read-only to a run), and code the test
        compiled under its name is the test's already."""
        name = code.co_filename
        return type(name) is str and code.co_name in table and name.startswith(_STDLIB) \
            and name.endswith(table[code.co_name]) and name not in self.made

    def _made_by_test(self, frame: types.FrameType) -> bool:
        """The test file's code, or code made at run time (``<string>``, or under any name
        the test's time compiled code under), not a module's; a module's code run with
        globals of someone else's (:meth:`_foreign`); or the hooks' own code run outside the
        hook, which only the test does (red team 44)."""
        return self._test_code(frame.f_code) or self._foreign(frame) or (
            self._readers.inside.holds(frame.f_code) and not self._in_hook(frame))

    def _foreign(self, frame: types.FrameType) -> bool:
        """``frame`` runs the code of a module loaded at the test's start with globals that
        are not that module's: a function the test made of a module's code
        (``types.FunctionType(code, globals)`` raises no audit event), whose every name
        (``inspect``'s ``_get_code_position``) is looked up where the test chose (red team
        50). The code is the module's; what it does is the test's."""
        homes = self._homes.get(frame.f_code.co_filename)
        globals_ = frame.f_globals
        return homes is not None and not any(globals_ is home for home in homes)

    def _test_code(self, code: types.CodeType) -> bool:
        """The test file's, code made in the test's time, or a module file in the run's
        writable folders (a module the test wrote and imported, its ``.pyc`` too: red teams
        31 and 32)."""
        name = code.co_filename
        return type(name) is not str or name in self.tests or name in self.made or \
            not name.startswith(("/", "<frozen")) or name.startswith(self.writable)

    @staticmethod
    def _in_library(frame: types.FrameType) -> bool:
        name = frame.f_code.co_filename
        return type(name) is str and _LIBRARY in name

    def _pytest_parsing(self) -> bool:
        """Whether the compile under way is pytest formatting a traceback (not the test reading).

        Since every run's reads are judged, a mutant that breaks the test at import shows its
        traceback, and pytest parses the target's text for it: told by the caller's code.
        """
        frame = self._raiser(3)  # 0: here, 1: _judge, 2: __call__, 3: who compiles
        # Exactly that call: ``ast.parse`` by pytest's statement finder. Anything between them
        # is someone else's (the test's ``__str__`` of the text the finder is given: red team
        # 41 compiled its module under a library's name there).
        caller = frame.f_back
        return frame.f_code is _PARSE and caller is not None and \
            caller.f_code is _PYTEST_PARSER


#: The plain loader's own methods, as the import system runs them.
#: A loader's methods that must be its class's: one of its own shadows it.
_LOADER_METHODS = frozenset({"get_data", "path_stats", "get_filename", "source_to_code",
                             "get_code", "set_data"})


def _plain(loader: Any) -> bool:
    """A file loader of the import system's, as it was before any test code: its classes
    unchanged (red team 32 replaced ``get_data`` and reloaded a library's module, whose
    compile then named the test's text as that library's; red team 35 put a ``property`` on
    ``path``, which ran the test's code inside the watch) and no method of its own. Nothing
    of the loader runs: its classes' dicts are compared by identity, its own dict is walked
    by exact ``str`` keys (a key of the test's class would compare with the test's code)."""
    kind = type(loader)
    state = next((saved for known, saved in _LOADER_STATES if known is kind), None)
    if state is None or not _unchanged(kind, state):
        return False
    return all(type(key) is str and key not in _LOADER_METHODS for key in vars(loader))


def _own(loader: Any, name: str) -> Any:
    """An attribute of a :func:`_plain` loader's own dict, read without running its code."""
    return next((value for key, value in vars(loader).items() if key == name), None)


def _class_state(kind: type) -> tuple[tuple[type, ...], tuple[dict[str, Any], ...]]:
    """A class's lookup order and what each class in it held: the state to compare with."""
    return kind.__mro__, tuple(dict(vars(each)) for each in kind.__mro__)


def _unchanged(kind: type, state: tuple[tuple[type, ...], tuple[dict[str, Any], ...]]
               ) -> bool:
    """``kind`` still looks up what it did when ``state`` was taken: the same classes in the
    same order, each with the same names bound to the same objects."""
    order, held = state
    now = kind.__mro__
    if len(now) != len(order) or any(a is not b for a, b in zip(now, order, strict=True)):
        return False
    for each, saved in zip(order, held, strict=True):
        names = vars(each)
        if len(names) != len(saved) or any(names.get(key, _GONE) is not value
                                           for key, value in saved.items()):
            return False
    return True


def _root(filename: Any) -> str:
    """The library a file belongs to (the folder below site-packages, or below a vendoring
    package's ``_vendor``), or the folder of any other file."""
    if type(filename) is not str:
        return ""
    # By text, with values bound at import: ``os.path.dirname`` is the test's to replace, and
    # this runs inside the hook (red team 41 ran its code here and switched the watch off).
    _, found, rest = filename.partition(_LIBRARY)
    if not found:
        return filename.rpartition(_SEP)[0]
    vendored = rest.partition(_VENDOR)
    return (vendored[2] if vendored[1] else rest).split(_SEP, 1)[0]


def _text_constants(code: types.CodeType) -> tuple[str, ...]:
    """The plain strings among ``code``'s constants (``getattr(x, "tb_frame")``)."""
    return tuple(item for item in code.co_consts if type(item) is str)


def _statement_finder() -> types.CodeType | None:
    try:
        from _pytest._code.source import getstatementrange_ast
    except ImportError:  # pragma: no cover - another pytest: its tracebacks may be flagged
        return None
    return getstatementrange_ast.__code__


#: pytest parses a file's text to show the failing statement of a traceback entry.
_PYTEST_PARSER = _statement_finder()
_PARSE = ast.parse.__code__
#: The real installers of trace and profile functions, bound at import.
_INSTALLS = (sys.settrace, sys.setprofile)
#: ctypes' events that read memory at an address: the installed code is there to read.
_MEMORY_EVENTS = frozenset({"ctypes.cdata", "ctypes.string_at", "ctypes.wstring_at"})

#: ctypes' calls a module of the standard library makes itself (by name in its code).
_CTYPES_CALLS = frozenset({"from_buffer", "from_buffer_copy", "from_address", "memset",
                           "memmove", "addressof", "string_at", "wstring_at", "cast"})
#: ctypes' own folder in a code object's file name.
_CTYPES = f"{os.sep}ctypes{os.sep}"
_CTYPES_ORIGIN = getattr(importlib.machinery.PathFinder.find_spec("_ctypes"), "origin", None)
#: The file ctypes' C half loads from, found without importing it (None: built in).
_CTYPES_FILE = real_path(_CTYPES_ORIGIN) if isinstance(_CTYPES_ORIGIN, str) and \
    _CTYPES_ORIGIN.startswith("/") else None


#: Modules whose objects read any address with no audit event, by the last part of the name
#: (the loader finds a C extension's init function by it).
_RAW_MEMORY = frozenset({"_ctypes", "_cffi_backend"})
#: Our own package: none of its modules imports ctypes for a run (``ctypescalls`` is the
#: fallback where ``_kernel`` was not built, and then ctypes is loaded from the start).
_OURS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def _module_file(path: str, module: str, roots: tuple[str, ...]) -> bool:
    """Whether ``path`` is the file of ``module`` in one of the import folders ``roots``."""
    relative = "/" + module.replace(".", "/")
    return path.startswith(roots or ("\0",)) and \
        path.endswith((relative + ".py", relative + "/__init__.py"))


def _imports_by_name(frame: types.FrameType, module: str) -> bool:
    """Whether ``frame``'s code names ``module`` as an import does: ``import a.b`` names
    ``a.b``; ``from a import b`` names ``a`` and ``b``; ``from . import b`` names ``b`` in
    the package ``a``."""
    names = frame.f_code.co_names
    parent, _, tail = module.rpartition(".")
    return module in names or (tail in names and (
        parent in names or parent == frame.f_globals.get("__package__")))


def _names_ctypes(args: tuple[Any, ...]) -> bool:
    """An ``import`` event for ctypes' C half, under any package (the loader finds its init
    function by the last part of the name) or by the file it loads from."""
    name, path = args[0], args[1] if len(args) > 1 else None
    if type(name) is str and name.rpartition(".")[2] in _RAW_MEMORY:
        return True
    text = text_of(path) if path is not None else None
    return _CTYPES_FILE is not None and text is not None and real_path(text) == _CTYPES_FILE


#: A library's folder (site-packages, dist-packages) in a code object's file name.
_LIBRARY = f"-packages{os.sep}"
_SEP, _VENDOR = os.sep, f"{os.sep}_vendor{os.sep}"
#: Functions of the standard library that take frames and return them (or print them with
#: the test's ``repr``) to their caller, who is judged instead: name -> file endings.
_HANDERS: dict[str, tuple[str, ...]] = {
    "get_stack": (f"{os.sep}bdb.py", f"asyncio{os.sep}tasks.py"),
    "print_stack": (f"asyncio{os.sep}tasks.py",),
    "_task_get_stack": (f"asyncio{os.sep}base_tasks.py",),
    "_task_print_stack": (f"asyncio{os.sep}base_tasks.py",),
}
#: asyncio's text about a task or coroutine (its ``repr``), which names the coroutine by its
#: code (an honest async test); not the rest of asyncio: ``Task.get_stack``/``print_stack``
#: hand frames out or call the test's ``repr`` while they hold the code (red team 30).
_REPORTS: dict[str, tuple[str, ...]] = {
    "_format_coroutine": (f"asyncio{os.sep}coroutines.py",),
    "_task_repr_info": (f"asyncio{os.sep}base_tasks.py",),
    "_task_repr": (f"asyncio{os.sep}base_tasks.py",),
}
#: traceback's functions that take their caller's frame and give text or summaries back.
_STACK_TEXT = frozenset({"extract_stack", "format_stack", "print_stack"})
#: How far up the stack the hooks look (a stack deeper than this ends the look).
_DEPTH = 1000
_SOURCE_FILE_LOADER = importlib.machinery.SourceFileLoader
_FILE_LOADERS = (importlib.machinery.SourceFileLoader,
                 importlib.machinery.SourcelessFileLoader)
#: The file loaders' classes as they were before any test code (this module is imported by
#: the judge, before a run is forked).
_LOADER_STATES = tuple((kind, _class_state(kind)) for kind in _FILE_LOADERS)
_GONE = object()
#: The collector's debug flags, bound at import; DEBUG_SAVEALL keeps every object it frees.
_GC_DEBUG, _SAVE_ALL = gc.get_debug, gc.DEBUG_SAVEALL
#: The kinds the hook compares with, bound at import: ``types.FunctionType`` rebound by the
#: test made every read of ``__code__`` look like no function's (red team 39).
_CODE, _FUNCTION, _METHOD = types.CodeType, types.FunctionType, types.MethodType
_TRACEBACK, _MODULE, _MODULES = types.TracebackType, types.ModuleType, sys.modules
#: The modules that read for their caller (``Readers.passing``), and how their globals are
#: compared (by identity, in C: no ``__eq__`` of the test's is called).
_PASSING = ("inspect", "types")
#: pytest's traceback API, whose keepers read for themselves, and the modules it hands a code
#: object or a frame's file to (``Code.path`` calls ``inspect.getfile``, red team 45: inspect
#: and types are :data:`_PASSING`'s, kept once): the first two modules' classes are kept too.
_KEEPING = ("_pytest._code.code", "_pytest._code.source", "_pytest.nodes", "_pytest.python",
            "linecache")
_PURE_POSIX, _POSIX = pathlib.PurePosixPath, pathlib.PosixPath
#: ``marshal`` and its ``loads`` as they were at import (the test could replace them).
_MARSHAL, _MARSHAL_NAMES, _UNMARSHAL = marshal, vars(marshal), marshal.loads
#: Read with the functions bound here: the import system's own (``_io`` in its module's
#: globals) are the test's to replace (red team 41 handed the import system its own source
#: under a library's file name).
_OPEN, _READ, _CLOSE, _RDONLY = os.open, os.read, os.close, os.O_RDONLY
#: At most this much of a module's file is read again to compare (larger: not believed).
_MAX_MODULE = 1 << 24
#: What a ``.pyc`` holds before the marshalled code (flags, date or hash, size).
_PYC_HEADER = 16


def _frozen_bytes(data: Any) -> bool:
    """``data`` is bytes nothing can change once checked: ``bytes``, or a view of them (a
    ``bytearray`` changed between the check and its use would be read as other bytes)."""
    kind = type(data)
    if kind is bytes:
        return True
    try:
        return kind is memoryview and type(data.obj) is bytes
    except ValueError:  # a released view
        return False


def _on_disk(path: Any, data: Any, skip: int = 0) -> bool:
    """Whether ``data`` (what the import system compiles or loads) is the file at ``path``,
    past its first ``skip`` bytes, read again here."""
    text = text_of(path)
    if text is None or not _frozen_bytes(data):
        return False
    try:
        descriptor = _OPEN(text, _RDONLY)
    except (OSError, ValueError):
        return False
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= _MAX_MODULE:
            chunk = _READ(descriptor, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return False
    finally:
        _CLOSE(descriptor)
    if size > _MAX_MODULE:
        return False
    return b"".join(chunks)[skip:] == bytes(data)

