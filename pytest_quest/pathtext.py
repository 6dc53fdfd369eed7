"""A path's text as CPython's own code would make it, read without running code of anyone.

The run's two audit hooks (:mod:`pytest_quest.hooked`) promise never to run code of the test.
They read the paths of ``open`` and ``shutil.*`` events as text, and the plain way,
``os.fspath(path)``, calls ``path.__fspath__()``: a test that replaced
``pathlib.PurePath.__fspath__`` (or ``__str__``, ``_format_parsed_parts``, the flavour's
``join``, ``posixpath.join``, ``sys.intern``, ``builtins.str``, or put a ``str`` subclass
into a path's slots) ran its own code inside the hook, where events are ignored (red team
35: ``sys.audit("open", PurePosixPath(...))`` after ``PurePath.__fspath__ = spy``).

:func:`text_of` reads the text instead: exact types only, slots read through the member
descriptors taken here (their ``__get__`` is C), plain operations on exact ``str`` and
``list`` values, dict reads by identity or by an exact ``str`` name. It trusts a path of
pathlib's or pytest's ``LocalPath`` only while what ``os.fspath`` runs for it is as it was at
the last :func:`freeze` (at import, before any test code; the hooks freeze again when the
test starts, so a plugin's change made before is trusted):

* the class's MRO (the tuple itself: assigning ``__bases__`` makes a new one);
* every name that code looks up on the class, found in the same class of the MRO with the
  identical value (read from the class dicts, no descriptor's ``__get__`` called), and not
  found earlier; a name it does not find (``__getattr__``) still nowhere;
* each function's ``__code__``, ``__defaults__`` and ``__kwdefaults__``;
* every name it looks up in a module or in builtins (``str`` in ``PurePath.__fspath__``'s
  globals first of all: ``__fspath__`` is ``return str(self)``), read only while the
  module's keys are all exact ``str`` (a key of the test's class with ``hash("str")`` would
  have its ``__eq__`` called by the lookup: red team 35's kind of trap), which the size of
  the dict's table tells at once (:data:`_UNICODE_SIZES`).

Other names of the classes are not compared: an honest test's
``monkeypatch.setattr(Path, "home", ...)`` leaves its paths readable. Anything else gives
None, which the guard treats as a path outside: a denial, the test's own doing when it
tampered. Class dicts are read by exact ``str`` names, whose keys are exact ``str`` unless
the test reached the dict through ``gc.get_referents`` (which the code watch reports).

With ``_str`` cached (``open`` events: FileIO runs ``os.fspath`` before raising the event)
the text is that slot, exactly what ``__fspath__`` returned. Without it (``shutil`` events
are raised before any ``os.fspath``) it is made from the slots as pathlib would make it.
"""

from __future__ import annotations

import operator
import os
import pathlib
import sys
import types

# Bound at import (see pytest_quest.watch): a builtin the test rebinds never runs here.
from builtins import (  # noqa: UP029 - bound on purpose, as the comment says
    AttributeError,
    ImportError,
    KeyError,
    LookupError,
    all,
    any,
    bool,
    bytes,
    classmethod,
    dict,
    frozenset,
    int,
    list,
    map,
    object,
    property,
    range,
    set,
    staticmethod,
    str,
    tuple,
    type,
    vars,
)
from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

__all__ = ["freeze", "text_of"]

# Bound now: the test may replace these names in their modules, never their values here.
_is, _is_not, _map, _any, _all, _tuple = operator.is_, operator.is_not, map, any, all, tuple
_type, _str, _bytes, _list, _dict = type, str, bytes, list, dict
_FUNCTION, _MODULE, _getsizeof = types.FunctionType, types.ModuleType, sys.getsizeof
_MISSING: Any = object()
_DIR_ENTRY = os.DirEntry
#: An object's identity without the audit event ``id()`` raises (``hooked.identity``).
_identity = object.__hash__

# The slots that hold the parsed path (red team 35 put a str subclass with an __add__ into
# them): 3.11 parses when the path is made, 3.12 and 3.13 on first use.
_PURE = pathlib.PurePath
_SLOTS = vars(_PURE)
_OLD = "_parts" in _SLOTS  # 3.11
_GET_STR = _SLOTS["_str"].__get__
_GET_DRV = _SLOTS["_drv"].__get__
_GET_ROOT = _SLOTS["_root"].__get__
_GET_TAIL = _SLOTS["_parts" if _OLD else "_tail_cached"].__get__
_GET_RAW = None if _OLD else _SLOTS["_raw_paths"].__get__
_PURE_POSIX, _POSIX = pathlib.PurePosixPath, pathlib.PosixPath
#: Paths with no ``__dict__`` of their own, so a name is found on the class or in a slot only
#: (a class's layout is fixed when it is made).
_SLOTTED = _PURE_POSIX.__dictoffset__ == 0 and _POSIX.__dictoffset__ == 0
#: What ``os.fspath`` runs for a path whose ``_str`` is cached: ``__fspath__`` calls
#: ``str(self)``, which calls ``__str__``, which reads ``self._str`` (through
#: ``__getattribute__``).
_CACHED = ("__fspath__", "__str__", "_str", "__getattribute__")
#: The functions ``str(path)`` runs when it is not, as they are named on ``PurePath``.
_PARSING = ("__fspath__", "__str__", "_format_parsed_parts", "_parse_path", "_load_parts",
            "drive", "root", "_tail", "_raw_path")


def _local_path() -> type | None:
    try:
        from _pytest._py.path import LocalPath
    except ImportError:  # pragma: no cover - another pytest
        return None
    return LocalPath


_LOCAL = _local_path()


def _same(now: Iterable[Any], then: tuple[Any, ...]) -> bool:
    """Element by element identity, in C: no ``__eq__`` of anything is called."""
    return not _any(_map(_is_not, now, then))


def _exact_strs(items: Iterable[Any]) -> bool:
    return _all(_map(_is, _map(_type, items), repeat(_str)))


def _plain(item: Any) -> Any:
    """The function behind a property or a classmethod (their parts cannot be assigned)."""
    if type(item) is property:
        return item.fget
    if type(item) in (classmethod, staticmethod):
        return item.__func__
    return item


class _Class:
    """A class's MRO, and where in it the given names are found, as at :func:`freeze`."""

    def __init__(self, kind: type, names: Iterable[str]) -> None:
        self.mro = kind.__mro__  # a new tuple whenever ``__bases__`` is assigned
        absent: list[tuple[Any, str]] = []
        present: list[tuple[Any, str, Any]] = []
        for name in dict.fromkeys(names):
            for klass in self.mro:
                space = vars(klass)  # a view of the class's dict, kept
                if name in space:
                    present.append((space, name, space[name]))
                    break
                absent.append((space, name))
        self.absent, self.present = _tuple(absent), _tuple(present)

    def intact(self, kind: type) -> bool:
        if kind.__mro__ is not self.mro:
            return False
        for space, name in self.absent:
            if name in space:
                return False
        try:
            for space, name, value in self.present:
                if space[name] is not value:
                    return False
        except KeyError:
            return False
        return True


def _sizes(key: Callable[[int], Any], count: int = 1500) -> frozenset[int]:
    """The sizes a dict takes as it grows to ``count`` keys made by ``key``."""
    grown: dict[Any, None] = {}
    found = set()
    for number in range(count):
        grown[key(number)] = None
        found.add(_getsizeof(grown))
    return frozenset(found)


class _Key(str):
    __slots__ = ()


#: The sizes only a dict whose keys are all exact ``str`` takes. CPython keeps such a dict's
#: table in its compact "unicode" kind (16-byte entries) and turns it into the general kind
#: (24 bytes, the hash kept) for good the moment another key is put in; ``sys.getsizeof``
#: (``dict.__sizeof__``, C) shows which kind a table has. Measured here, so a CPython whose
#: dicts differ only loses the shortcut.
_UNICODE_SIZES = _sizes(lambda number: f"k{number}") - _sizes(lambda number: _Key(number))


class _Names:
    """A namespace (a module's or an object's ``__dict__``) read by name only while its keys
    are all exact ``str``: a lookup compares the name with each key of the same hash, and a
    key of the test's class would run its ``__eq__`` (red team 35's kind of trap). Told by
    the table's size when it can be (O(1)), else key by key."""

    def __init__(self, space: dict[str, Any]) -> None:
        self.space = space

    def safe(self) -> bool:
        space = self.space
        return _type(space) is _dict and (
            _getsizeof(space) in _UNICODE_SIZES or _exact_strs(_tuple(space)))


class _Code:
    """Functions that must run as they were: code and defaults by identity."""

    def __init__(self, functions: Iterable[types.FunctionType]) -> None:
        self.parts = _tuple((f, f.__code__, f.__defaults__, f.__kwdefaults__)
                            for f in functions)

    def intact(self) -> bool:
        for func, code, defaults, kwdefaults in self.parts:
            if not (func.__code__ is code and func.__defaults__ is defaults and
                    func.__kwdefaults__ is kwdefaults):
                return False
        return True


class _Snapshot:
    """Everything ``os.fspath`` runs for a path, taken by :func:`freeze`."""

    def __init__(self) -> None:
        fspath = _SLOTS["__fspath__"]
        spaces: dict[int, _Names] = {}

        def names_of(space: dict[str, Any]) -> _Names:
            return spaces.setdefault(_identity(space), _Names(space))

        # Cached ``_str``: two functions and the name ``str``.
        self.cached: dict[type, _Class] = {
            kind: _Class(kind, _CACHED) for kind in (_PURE_POSIX, _POSIX)}
        self.cached_code = _Code((fspath, _SLOTS["__str__"]))
        builtins_of = fspath.__builtins__
        self.cached_spaces = (names_of(fspath.__globals__), names_of(builtins_of))
        self.cached_str = (fspath.__globals__.get("str", builtins_of.get("str")) is _str)

        # Not cached: pathlib's parsing and formatting and what it calls, walked by the names
        # in their code (a superset: a name that is no lookup is checked all the same).
        flavour = _find(_PURE_POSIX, "_flavour" if _OLD or "_flavour" in _SLOTS else "parser")
        objects: list[Any] = [flavour]  # 3.11: an object whose ``join`` is ``"/".join``
        functions: list[types.FunctionType] = []
        class_names: list[str] = [*_CACHED, "__getattr__"]
        lookups: list[tuple[_Names, _Names | None, str, Any]] = []
        pending = [_plain(_SLOTS[name]) for name in _PARSING if name in _SLOTS]
        while pending:
            func = pending.pop()
            if type(func) is not _FUNCTION or _any(_map(_is, functions, repeat(func))):
                continue
            functions.append(func)
            names = func.__code__.co_names
            # A function's own builtins (readonly, taken when it was made).
            here, built = func.__globals__, func.__builtins__
            if here is fspath.__globals__:
                class_names.extend(names)  # pathlib's: its names are looked up on the class
            for name in names:
                value = here.get(name, built.get(name, _MISSING))
                lookups.append((names_of(here), names_of(built), name, value))
                if type(value) is _MODULE and not _any(_map(_is, objects, repeat(value))):
                    objects.append(value)
                pending.append(value)
            for owner in objects:
                space = vars(owner)
                for name in names:
                    if name in space:
                        lookups.append((names_of(space), None, name, space[name]))
                        pending.append(space[name])
        self.parsing: dict[type, _Class] = {
            kind: _Class(kind, class_names) for kind in (_PURE_POSIX, _POSIX)}
        self.parsing_code = _Code(functions)
        # 3.11's flavour object: its class and its ``__dict__`` (assignable) as they were.
        self.flavour = None if type(flavour) is _MODULE else (
            flavour, _type(flavour), _Class(_type(flavour), [*vars(flavour), *class_names]),
            _find(_type(flavour), "__dict__").__get__, vars(flavour))
        self.modules = _tuple(owner for owner in objects if type(owner) is _MODULE)
        self.lookups = _tuple(lookups)
        self.spaces = _tuple(spaces.values())

        self.local: tuple[_Class, _Code, Callable[[Any], Any]] | None = None
        if _LOCAL is not None:
            local_fspath = _find(_LOCAL, "__fspath__")
            # ``return self.strpath``: an instance attribute while no class defines one.
            self.local = (_Class(_LOCAL, ("__fspath__", "strpath", "__getattribute__")),
                          _Code((local_fspath,)), _find(_LOCAL, "__dict__").__get__)

    def cached_intact(self, kind: type) -> bool:
        if not (self.cached_str and _SLOTTED and self.cached[kind].intact(kind) and
                self.cached_code.intact()):
            return False
        here, built = self.cached_spaces
        if not (here.safe() and built.safe()):
            return False
        return _lookup(here, built, "str") is _str

    def parsing_intact(self, kind: type) -> bool:
        if not (self.parsing[kind].intact(kind) and self.parsing_code.intact()):
            return False
        for module in self.modules:
            if _type(module) is not _MODULE:  # a module class of the test's, its getattr
                return False
        if self.flavour is not None:
            flavour, kind, found, dict_of, space = self.flavour
            if not (_type(flavour) is kind and found.intact(kind) and dict_of(flavour) is space):
                return False
        for space in self.spaces:
            if not space.safe():
                return False
        return _all(_lookup(here, built, name) is value
                    for here, built, name, value in self.lookups)


def _find(kind: type, name: str) -> Any:
    for klass in kind.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    raise LookupError(name)  # pragma: no cover - every class has a __dict__ or slots


def _lookup(here: _Names, built: _Names | None, name: str) -> Any:
    value = here.space.get(name, _MISSING)
    if value is _MISSING and built is not None:
        value = built.space.get(name, _MISSING)
    return value


_snapshot = _Snapshot()


def freeze() -> None:
    """Take what may run for a path anew: from now on it is trusted."""
    global _snapshot
    _snapshot = _Snapshot()


def text_of(path: Any) -> str | None:
    """``path`` as text if it is a str, bytes, or a path of pathlib's or pytest's own exact
    class whose code is as it was at :func:`freeze`, else None: nothing of anyone runs."""
    kind = _type(path)
    if kind is _str:
        return path
    if kind is _bytes:
        return path.decode("utf-8", "surrogateescape")
    if kind is _DIR_ENTRY:  # what os.scandir gives (shutil.copytree recurses with it): no
        found = path.path  # class of anyone's can be one, and its path is a plain field
        return found if _type(found) is _str else found.decode("utf-8", "surrogateescape")
    # Told by identity only: ``in`` a tuple or a set would call the ``__eq__`` or ``__hash__``
    # of the class's metaclass, which may be the test's.
    snapshot = _snapshot
    if kind is _LOCAL and kind is not None:
        return _local_text(snapshot, path)
    if not (kind is _PURE_POSIX or kind is _POSIX) or not snapshot.cached_intact(kind):
        return None
    try:
        cached = _GET_STR(path)
    except AttributeError:
        cached = _MISSING
    if cached is not _MISSING:
        return cached if _type(cached) is _str else None
    if not snapshot.parsing_intact(kind):
        return None
    return _parsed_text(path)


def _local_text(snapshot: _Snapshot, path: Any) -> str | None:
    """pytest's ``LocalPath`` (the ``tmpdir`` fixture): ``__fspath__`` is
    ``return self.strpath``, read from the instance's dict."""
    if snapshot.local is None:  # pragma: no cover - another pytest
        return None
    found, code, dict_of = snapshot.local
    if not (found.intact(_type(path)) and code.intact()):
        return None
    space = dict_of(path)
    if _type(space) is not _dict or not _exact_strs(space):
        return None
    text = space.get("strpath")
    return text if _type(text) is _str else None


def _slot(getter: Callable[[Any], Any], path: Any) -> Any:
    try:
        return getter(path)
    except AttributeError:
        return _MISSING


def _strs(items: Any) -> bool:
    return _type(items) is _list and _exact_strs(items)


def _parsed_text(path: Any) -> str | None:
    """The text pathlib's ``__str__`` makes from the slots (red team 35: only exact ``str``
    parts are joined here, so no ``__add__`` of the test runs)."""
    drv, root, tail = _slot(_GET_DRV, path), _slot(_GET_ROOT, path), _slot(_GET_TAIL, path)
    if _OLD:  # 3.11's _format_parsed_parts: the first part is drv + root when there is one
        if _type(drv) is not _str or _type(root) is not _str or not _strs(tail):
            return None
        text = drv + root + "/".join(tail[1:]) if drv or root else "/".join(tail)
        return text or "."
    # 3.12 and 3.13: ``__str__`` asks for ``drive``, ``root`` and ``_tail`` in turn, and the
    # first one missing parses ``_raw_paths`` and sets all three.
    if drv is _MISSING or root is _MISSING or tail is _MISSING:
        parsed = _parse_raw(path)
        if parsed is None:
            return None
        if drv is _MISSING:
            drv, root, tail = parsed
        elif root is _MISSING:
            root, tail = parsed[1], parsed[2]
        else:
            tail = parsed[2]
    if _type(drv) is not _str or _type(root) is not _str or not _strs(tail):
        return None
    text = drv + root + "/".join(tail) if drv or root else "/".join(tail)
    return text or "."


def _parse_raw(path: Any) -> tuple[str, str, list[str]] | None:
    """``posixpath.join`` of ``_raw_paths``, then pathlib's ``_parse_path`` (posix
    ``splitroot``: exactly two leading slashes are kept, one or three and more are one)."""
    assert _GET_RAW is not None
    raw = _slot(_GET_RAW, path)
    if not _strs(raw):
        return None
    text = raw[0] if raw else ""
    for part in raw[1:]:
        if part.startswith("/"):
            text = part
        elif not text or text.endswith("/"):
            text += part
        else:
            text += "/" + part
    if not text:
        return "", "", []
    if text[:1] != "/":
        root, rest = "", text
    elif text[1:2] != "/" or text[2:3] == "/":
        root, rest = "/", text[1:]
    else:
        root, rest = text[:2], text[2:]
    return "", root, [part for part in rest.split("/") if part and part != "."]
