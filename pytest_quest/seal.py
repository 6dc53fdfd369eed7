"""The run's audit hooks as the interpreter holds them: one closure that checks, at every
event, that pytest-quest's own code in the run is as it was when test code started.

The hooks run in the test's own process. CPython raises no audit event when a class's or a
module's attribute is stored, nor for reading ``__globals__``, ``__closure__`` or
``object.__subclasses__()``: a test that reached one of our classes that way could replace
the method the watch calls (red team 40 set ``Watch._saw`` and ``Phase.testing`` to a
function of its own, found among ``object.__subclasses__()``, and read the target's code
unseen). Nothing the test can reach is ever called first, now: the interpreter's hook list
holds :func:`seal`'s closure only, which nothing else refers to (the interpreter's list
cannot be read from Python, and ``gc.get_referrers`` raises an event the watch judges). Its
state lives in closure cells and its own locals; it looks nothing up in a module or in the
builtins, so no store of the test's changes what it runs.

At the ``start`` event, after the hooks have moved to the test's time, it takes a picture of
pytest-quest's run modules, by identity: every key and value of each module's dict and of each
class's dict defined there, of the containers those hold (tuples' too), each class's MRO, and
the attributes of the hooks' own objects (the watch, the guard, their phase, pipe and readers)
but those a class names ``CHANGING``. Before every later event a hook judges (a change made
before any other is found at the next judged one, where alone it could hide something), it
compares them (``operator.is_``, in C: no ``__eq__`` of the test's is ever called), and a
difference is a finding on the answer pipe at once. A store to ``__code__``, ``__defaults__``
or ``__kwdefaults__`` of one of our functions raises an event before it happens: that is a
finding too, and the store is refused.

What the hooks call must not be the test's to change either: they bind what they use at
import (``tests/test_hook_modules.py`` reads every function of theirs for a module attribute
looked up when it runs): code of the test run inside a hook could change something and put it
back before the hook returns.
"""

from __future__ import annotations

import _thread
import operator
import os
import sys
from collections.abc import Callable, Iterable
from types import CodeType, FrameType, FunctionType, ModuleType
from typing import Any, NamedTuple

from pytest_quest.hooked import CONTROL, LOST, identity
from pytest_quest.protocol import READ_RECORD

__all__ = ["Hook", "Judged", "run_modules", "seal"]

#: An audit hook as ``sys.addaudithook`` takes it.
Hook = Callable[[str, tuple[Any, ...]], None]


class Judged(NamedTuple):
    """The events the hooks judge: by name, by a name's start, and for ``object.__getattr__``
    the attributes whose read they judge. ``target``: the target file's name, when a file
    opened for reading is judged only if it could be that file (its path a ``str`` holding
    that name; the kernel hides the file besides: an ``open`` that reads a path without it
    can hide nothing)."""

    events: frozenset[str]
    prefixes: tuple[str, ...]
    attributes: frozenset[str]
    target: str = ""
    #: The target's module: a read of the code of a function or frame whose globals are not
    #: its module's is no read of the target's code (the recorder reads every frame's code in
    #: the measured run, two events a call).
    module: str = ""
    #: The lines of the target's code (and the code nested in it): a frame of its module on
    #: another line runs other code.
    lines: tuple[int, int] = (0, 1 << 30)

#: The events that store a function's attribute (``del f.__defaults__`` raises the first).
_STORES = frozenset({"object.__setattr__", "object.__delattr__"})
#: The attributes that hand out a function's or a frame's code.
_CODE_NAMES = frozenset({"__code__", "f_code"})
#: The flags of a file opened for writing (the guard judges those).
_WRITE_BITS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: A function's attributes whose store changes what it runs.
_RUNS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
#: How deep the picture goes into the containers a module's or a class's dict holds.
_DEPTH = 6
#: Kinds of value that hold no function and no container of their own (classes and modules are
#: pictured, or are not ours), and with the containers, no function: the picture looks no
#: further into them, a third of what it cost.
_SCALARS = frozenset({str, bytes, int, float, bool, type(None), type, ModuleType, CodeType})
#: The containers the picture looks into.
_CONTAINERS = frozenset({dict, list, tuple, set, frozenset})
_PLAIN = _SCALARS | _CONTAINERS


def _parts(modules: Iterable[Any], skip: frozenset[int]) -> tuple[
        list[tuple[str, Any]], list[tuple[type, tuple[type, ...]]], list[tuple[Any, str]]]:
    """What the picture covers: (where, mapping or container) pairs, each class with its MRO,
    and every function with the name a finding gives it."""
    mappings: list[tuple[str, Any]] = []
    classes: list[tuple[type, tuple[type, ...]]] = []
    functions: list[tuple[Any, str]] = []

    def function(item: Any, where: str) -> None:
        kind = type(item)
        if kind is FunctionType:
            functions.append((item, where))
        elif kind not in _PLAIN:  # a method, a property, or any other holder of functions
            for part in (getattr(item, "__func__", None), getattr(item, "fget", None),
                         getattr(item, "fset", None), getattr(item, "fdel", None)):
                if type(part) is FunctionType:
                    functions.append((part, where))

    seen: set[int] = set()

    def held(where: str, key: Any, value: Any, skip: frozenset[int], depth: int) -> None:
        """``value``, found at ``key`` of ``where``, and the containers inside it, tuples'
        items too (red team 41 changed a dict held in a tuple of a module's: the watch's
        saved loader states). Its name is made only for what the picture keeps."""
        kind = type(value)
        if kind in _SCALARS or depth > _DEPTH:
            return
        here = f"{where}.{key}" if depth == 1 else f"{where}[{key!r}]"
        if kind not in _CONTAINERS:
            function(value, here)
            return
        # Only a container is skipped or met twice: asked of every value (mostly functions),
        # ``id()`` raised 2,200 audit events a picture (``identity`` raises none).
        ident = identity(value)
        if ident in skip or ident in seen:
            return
        seen.add(ident)
        if kind is dict:
            mappings.append((here, value))
            for name, item in list(value.items()):
                held(here, name, item, skip, depth + 1)
        else:
            if kind is list or kind is set:
                mappings.append((here, value))
            for index, item in enumerate(list(value)):
                held(here, index, item, skip, depth + 1)

    def space(where: str, mapping: Any, skip: frozenset[int] = skip) -> None:
        mappings.append((where, mapping))
        for name, value in list(mapping.items()):
            held(where, name, value, skip, 1)

    for module in modules:
        name = module.__name__
        # A warning attributed to a frame of the module makes this dict in its globals and
        # fills it: made now, and its content left out.
        registry = vars(module).setdefault("__warningregistry__", {})
        space(name, vars(module), frozenset({*skip, identity(registry)}))
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name:
                classes.append((value, value.__mro__))
                space(f"{name}.{value.__qualname__}", vars(value))
    return mappings, classes, functions


def _instances(hooks: Iterable[Any], modules: Iterable[Any]) -> list[tuple[str, dict[str, Any],
                                                                         tuple[str, ...]]]:
    """The hooks' own objects (the watch, the guard, their phase, pipe, readers and code sets):
    each one's ``__dict__`` and the attributes that stay as they are from the start on (all
    but those its class names in ``CHANGING``). A frame inside a hook reaches them (red team
    41 set the watch's phase to nothing from code the watch ran)."""
    names = {module.__name__ for module in modules}
    found: list[tuple[str, dict[str, Any], tuple[str, ...]]] = []
    seen: set[int] = set()
    pending = list(hooks)
    while pending:
        item = pending.pop()
        space = getattr(item, "__dict__", None)
        if identity(item) in seen or type(space) is not dict:
            continue
        seen.add(identity(item))
        changing: frozenset[str] = getattr(type(item), "CHANGING", frozenset())
        found.append((type(item).__qualname__, space,
                      tuple(name for name in space if name not in changing)))
        pending.extend(value for value in space.values()
                       if type(value).__module__ in names and not isinstance(value, type))
    return found


def run_modules(roots: Iterable[Any]) -> list[Any]:
    """``roots`` and every pytest-quest module a function or class they hold comes from, and so
    on: the code the hooks may call."""
    found: dict[str, Any] = {}
    pending = list(roots)
    while pending:
        module = pending.pop()
        if module.__name__ in found:
            continue
        found[module.__name__] = module
        for value in list(vars(module).values()):
            origin = getattr(value, "__module__", None) if isinstance(
                value, type) or type(value).__name__ == "function" else None
            if type(origin) is str and origin.startswith("pytest_quest.") and \
                    origin not in found and origin in sys.modules:
                pending.append(sys.modules[origin])
    return list(found.values())


def seal(hooks: Iterable[Any], modules: Iterable[Any], fd: int | None,
         skip: Iterable[Any] = (), judged: Judged | None = None) -> Hook:
    """The one audit hook a run adds: it calls each of ``hooks`` (by the ``__call__`` its class
    has now) and, from the ``start`` event on, checks ``modules`` first; a finding is written to
    ``fd`` (the answer pipe) as a read of the run's (:data:`READ_RECORD`). ``skip``: values the
    picture leaves out (``sys.modules``, the builtins' dict: the test may change both).
    ``judged``: the events the hooks judge; before any other the check is left out (a change
    made then is found before the next judged one, where alone it could hide something)."""
    hooks_list = tuple(hooks)
    calls = tuple((type(hook).__call__, hook) for hook in hooks_list)
    skipped = frozenset(identity(value) for value in skip)
    module_list = tuple(modules)
    # Bound here: the closure below looks up no global and no builtin name.
    # (``id()`` raises an audit event: objects are compared by ``operator.is_``, in C.)
    get_ident, write, fstat, leave = _thread.get_ident, os.write, os.fstat, os._exit
    same, every, each, kind, length, frozen = operator.is_, all, map, type, len, tuple
    refuse, text, hexed, failing, lost = PermissionError, str, bytes.hex, OSError, LOST
    number = int
    failure = Exception
    as_list, as_set, parts, instances = list, set, _parts, _instances
    loaded_modules, namespace = sys.modules, vars
    prefix, control, stores, runs = READ_RECORD, CONTROL, _STORES, _RUNS
    every_event = judged is None
    events, prefixes, attributes, target, module, (first, last) = judged if judged is not None \
        else (frozenset(), (), frozenset(), "", "", (0, 1 << 30))
    frame_kind, function_kind, code_names = FrameType, FunctionType, _CODE_NAMES
    # The state below is held in immutable values, each set once by ``take``: a frame of this
    # closure hands out its free variables' values (``f_locals``), and a list among them could
    # be changed in place (red team 44 appended to a list of findings told, which stopped the
    # checks). Only ``inside`` (the threads in the hook now) stays a set.
    home: tuple[Any, ...] = ()  # the target module's globals, from the start on
    reading, opening, write_bits = "object.__getattr__", "open", _WRITE_BITS
    picture: tuple[tuple[str, Any, tuple[Any, ...], tuple[Any, ...]], ...] = ()
    states: tuple[tuple[str, dict[str, Any], int, tuple[str, ...], tuple[Any, ...]], ...] = ()
    mros: tuple[tuple[str, type, tuple[type, ...]], ...] = ()
    functions: tuple[tuple[Any, str], ...] = ()
    pipe: tuple[tuple[int, int], ...] = ()  # the answer pipe's identity, taken with the picture
    told = 0  # findings told
    inside: set[int] = set()
    # Set while the picture is taken: the events its own ``id()`` calls raise (thousands) are
    # none of the hooks' business, and judging each one made the picture cost four times as
    # much. No code of the test's exists yet: the test module is imported after ``start``.
    taking = False

    def held_values(mapping: Any) -> Iterable[Any]:
        """What a pictured mapping holds: a dict's values, a list's or a set's items."""
        return mapping.values() if kind(mapping) is not as_list and \
            kind(mapping) is not as_set else mapping

    def take() -> None:
        nonlocal taking, picture, mros, functions, states, pipe, home
        taking = True
        try:
            mappings, classes, found = parts(module_list, skipped)
        finally:
            taking = False
        mros = frozen((f"{klass.__module__}.{klass.__qualname__}", klass, mro)
                      for klass, mro in classes)
        functions = frozen(found)
        states = frozen((where, space, length(space), kept, frozen(each(space.get, kept)))
                        for where, space, kept in instances(hooks_list, module_list))
        if fd is not None:
            found_fd = fstat(fd)
            pipe = ((found_fd.st_dev, found_fd.st_ino),)
        loaded = loaded_modules.get(module) if module else None
        if loaded is not None:
            home = (namespace(loaded),)
        # Last: the checks begin once there is a picture.
        picture = frozen((where, mapping, frozen(mapping), frozen(held_values(mapping)))
                         for where, mapping in mappings)

    def elsewhere(args: tuple[Any, ...]) -> bool:
        """A read of the code of a function or a frame of another module than the target's."""
        if not home or length(args) != 2 or kind(args[1]) is not text or \
                args[1] not in code_names:
            return False
        holder = args[0]
        if kind(holder) is frame_kind:
            line = holder.f_lineno
            return holder.f_globals is not home[0] or (
                kind(line) is number and not first <= line <= last)
        if kind(holder) is function_kind:
            return holder.__globals__ is not home[0]
        return False

    def tell(what: str) -> None:
        nonlocal told
        told += 1
        if fd is None:
            return
        try:
            found_fd = fstat(fd)
            if (found_fd.st_dev, found_fd.st_ino) != pipe[0]:
                leave(lost)
            line = prefix + hexed(what.encode("utf-8", "replace")).encode() + b"\n"
            while line:
                line = line[write(fd, line):]
        except failing:
            leave(lost)

    def changed() -> str | None:
        for where, mapping, keys, values in picture:
            if length(mapping) != length(keys) or not every(each(same, mapping, keys)) or \
                    not every(each(same, held_values(mapping), values)):
                return where
        for where, klass, mro in mros:
            if klass.__mro__ is not mro:
                return f"{where}.__bases__"
        for where, space, size, kept, values in states:
            if length(space) != size or not every(each(same, each(space.get, kept), values)):
                return f"a {where} of the run's hooks"
        return None

    def refused(event: str, args: tuple[Any, ...]) -> None:
        if event in stores and length(args) > 1 and kind(args[1]) is text and args[1] in runs:
            for function, where in functions:
                if function is args[0]:
                    what = f"changed {args[1]} of pytest-quest's own {where}"
                    if not told:
                        tell(what)
                    raise refuse(f"pytest-quest sandbox: {what} is not allowed")

    def sealed(event: str, args: tuple[Any, ...]) -> None:
        thread = get_ident()
        if thread in inside:
            if taking:
                return
            # Raised while a hook runs on this thread (its own lookups, or code it ran: the
            # watch judges that): checked with the event that called the hook.
            refused(event, args)
            for call, hook in calls:
                call(hook, event, args)
            return
        inside.add(thread)
        try:
            if picture:
                if not told and (every_event or (
                        event in events and (event != reading or (
                            length(args) > 1 and kind(args[1]) is text and
                            args[1] in attributes and not elsewhere(args))) and (
                                event != opening or not (
                                target and length(args) == 3 and kind(args[0]) is text and
                                target not in args[0] and (kind(args[1]) is not text or not (
                                    "w" in args[1] or "a" in args[1] or "x" in args[1] or
                                    "+" in args[1])) and (kind(args[2]) is number and
                                                          not args[2] & write_bits)))
                        ) or event.startswith(prefixes)):
                    try:
                        where = changed()
                    except failure:  # a dict resized by another thread meanwhile: changed
                        where = "a dict changed while it was compared"
                    if where is not None:
                        tell(f"changed pytest-quest's own code in the run ({where})")
                refused(event, args)
            for call, hook in calls:
                call(hook, event, args)
            if not picture and event == control and length(args) == 1 and \
                    kind(args[0]) is text and args[0] == "start":
                take()
        finally:
            inside.discard(thread)

    return sealed
