"""The two frame sources with no audit event, as a run closes them
(:mod:`pytest_quest.noevent`); each test puts the interpreter's own back (``monkeypatch``)."""

from __future__ import annotations

import _imp
import _signal  # type: ignore[import-not-found]
import asyncio
import gc
import importlib
import importlib.machinery
import signal
import sys
from typing import Any

import pytest

from pytest_quest import noevent

#: The interpreter's own, by the name of the replacement (taken before any test closes them).
ORIGINALS = {"_install": _signal.signal, "_set_debug": gc.set_debug,
             "_create_builtin": _imp.create_builtin}


@pytest.fixture
def closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_signal, "signal", _signal.signal)
    monkeypatch.setattr(_signal, "getsignal", _signal.getsignal)
    monkeypatch.setattr(gc, "set_debug", gc.set_debug)
    monkeypatch.setattr(_imp, "create_builtin", _imp.create_builtin)
    noevent.close()


@pytest.mark.usefixtures("closed")
def test_a_handler_is_called_with_no_frame_and_still_answers_as_itself() -> None:
    # Red team 36 read a reader's locals through the frame a handler is handed; red team 37
    # filed it with logging.addLevelName as the handler.
    handed: list[Any] = []

    def mine(signum: int, frame: Any) -> None:
        handed.append((signum, frame))

    previous = signal.signal(signal.SIGUSR1, mine)
    try:
        assert signal.getsignal(signal.SIGUSR1) is mine
        signal.raise_signal(signal.SIGUSR1)
        assert signal.signal(signal.SIGUSR1, signal.SIG_IGN) is mine
        assert signal.getsignal(signal.SIGUSR1) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert handed == [(signal.SIGUSR1, None)]
    assert type(_signal.getsignal) is not type(gc.get_debug)  # replaced


@pytest.mark.usefixtures("closed")
def test_asyncio_installs_and_restores_its_own_handler() -> None:
    # Red team 37: asyncio.run installs a partial of Runner._on_sigint; a filter on which
    # handler may be installed failed every honest asyncio test.
    before = signal.getsignal(signal.SIGINT)

    async def answer() -> int:
        return 42

    assert asyncio.run(answer()) == 42
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.usefixtures("closed")
def test_the_collector_may_not_keep_what_it_frees() -> None:
    flags = gc.get_debug()
    with pytest.raises(PermissionError, match="DEBUG_SAVEALL"):
        gc.set_debug(gc.DEBUG_SAVEALL)
    with pytest.raises(PermissionError):
        gc.set_debug(gc.DEBUG_LEAK)  # SAVEALL among others
    gc.set_debug(flags | gc.DEBUG_STATS)
    try:
        assert gc.get_debug() == flags | gc.DEBUG_STATS
    finally:
        gc.set_debug(flags)
    assert not gc.get_debug() & gc.DEBUG_SAVEALL


@pytest.mark.usefixtures("closed")
def test_no_second_module_of_those_a_run_changed() -> None:
    # Red team 38: imp.init_builtin and test.support's import_fresh_module made a second
    # _signal (the interpreter's installer again) and a second gc (its set_debug).
    for name in ("_signal", "gc", "_imp"):
        with pytest.raises(PermissionError, match=f"a second {name} module"):
            importlib.machinery.BuiltinImporter.create_module(
                importlib.machinery.ModuleSpec(name, None))
    class Shifty:  # one name for the check, another for the interpreter
        names = iter(["_string", "_string", "_signal"])  # the importer, the check, the C

        @property
        def name(self) -> str:
            return next(self.names)

    fresh = importlib.machinery.BuiltinImporter.create_module(Shifty())  # type: ignore[arg-type]
    assert fresh.__name__ == "_string"
    other = next(n for n in sys.builtin_module_names if n not in sys.modules
                 and n not in ("_signal", "gc", "_imp"))
    assert importlib.import_module(other).__name__ == other  # a first import as ever


def test_a_run_forgets_our_modules_by_name() -> None:
    # Red team 39 reached the watch's classes and noevent's originals through sys.modules.
    from pytest_quest.forkrun import forget_our_modules

    modules: dict[str, Any] = {"pytest_quest": 1, "pytest_quest.watch": 2, "pytest": 3,
                               "pytest_questions": 4, "hotel.pricing": 5}
    forget_our_modules(modules)
    assert modules == {"pytest": 3, "pytest_questions": 4, "hotel.pricing": 5}


def _reachable(start: Any) -> list[Any]:
    """What the test reaches from ``start`` with no audit event: functions' globals, closures
    and defaults, bound methods' selves, containers' items (not a generator's frame)."""
    seen: dict[int, Any] = {}
    pending = [start]
    while pending:
        item = pending.pop()
        if id(item) in seen or isinstance(item, type | type(sys)):
            continue
        seen[id(item)] = item
        if isinstance(item, type(_reachable)):
            pending += [item.__globals__, *(c.cell_contents for c in item.__closure__ or ()),
                        *(item.__defaults__ or ())]
        elif hasattr(item, "__self__"):
            pending.append(item.__self__)
        elif isinstance(item, dict):
            pending += list(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending += list(item)
    return list(seen.values())


def test_the_originals_are_reachable_from_no_replacement_without_an_event() -> None:
    # Red team 40 read the interpreter's set_debug and installer from the replacements'
    # __globals__; a closure's cells and a function's defaults raise no event either.
    originals = (_signal.signal, gc.set_debug, _imp.create_builtin)
    with pytest.MonkeyPatch.context() as patch:
        for module, name in ((_signal, "signal"), (_signal, "getsignal"), (gc, "set_debug"),
                             (_imp, "create_builtin")):
            patch.setattr(module, name, getattr(module, name))
        noevent.close()
        found = [item for replacement in (_signal.signal, gc.set_debug, _imp.create_builtin)
                 for item in _reachable(replacement)]
    assert not [item for item in found if any(item is o for o in originals)]
    assert [item for item in found if type(item).__name__ == "generator"]  # held, in frames


def _keepers(replaced: Any) -> list[Any]:
    """The generators that hold what ``replaced`` replaced (told by their frame: the test may
    take it, an event the code watch judges)."""
    return [item for item in _reachable(replaced) if type(item).__name__ == "generator"
            and item.gi_frame.f_locals["original"] is ORIGINALS[replaced.__name__]]


@pytest.mark.usefixtures("closed")
def test_whoever_reaches_a_keeper_may_send_it_nothing_the_run_refuses() -> None:
    keepers = _keepers(gc.set_debug)
    assert keepers
    done, error = keepers[0].send((gc.DEBUG_SAVEALL,))
    assert not done and isinstance(error, PermissionError) and error.__traceback__ is None
    assert not gc.get_debug() & gc.DEBUG_SAVEALL
    done, error = keepers[0].send("not arguments")
    assert not done and isinstance(error, PermissionError)
    # a throw() is answered like a failed call: the frame, and what it holds, stay in it
    done, error = keepers[0].throw(KeyError("x"))
    assert not done and isinstance(error, KeyError) and error.__traceback__ is None
    flags = gc.get_debug()
    gc.set_debug(flags)  # still working
    installers = _keepers(_signal.signal)

    def raw(signum: int, frame: Any) -> None:
        pass

    done, previous = installers[0].send((signal.SIGUSR2, raw))
    try:
        assert done and type(noevent.HANDLER_OF(signal.SIGUSR2)) is noevent.Shield
    finally:
        signal.signal(signal.SIGUSR2, previous)


@pytest.mark.usefixtures("closed")
def test_a_call_under_way_does_not_stop_a_second_one() -> None:
    """A builtin module's init may import another builtin module: create_builtin is called
    again before the first call returns."""
    seen: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        seen.append(signum)
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)  # inside a call of the installer

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        signal.raise_signal(signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == [signal.SIGUSR1]
