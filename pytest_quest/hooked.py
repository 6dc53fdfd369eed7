"""What a run's two audit hooks share: how our code steers them, and how they speak.

Each forked run adds the sandbox guard (:class:`pytest_quest.runparts.Guard`) and the code
watch (:class:`pytest_quest.watch.Watch`) as audit hooks. Both run in the test's own process,
so nothing of the run holds either of them (a test reached both through
``request.config.pluginmanager`` and paused them): they are in the interpreter's hook list
only. pytest-quest's own code starts them with an audit event of its own (:data:`CONTROL`)
when test code is about to run; from then on they judge every event until the run's process
ends (:class:`Phase`; red team 27 ran test code after the end through a method of the run it
replaced, so there is no end). What they find goes to the run's answer
pipe the moment they find it (:class:`AnswerPipe`), so no later code of the test takes it
back. Neither ever calls code of the test: values are read by exact type (:func:`text_of`);
a ``str`` subclass's ``__eq__`` or a path's ``__fspath__`` would run the test's code inside
the hook, where one frame walk finds the hook itself. Nor does it call anything the test can
replace: the system calls it makes are bound here at import, before any test code (red team
27 replaced ``os.path.realpath``, ``os.lstat`` and ``os.write`` under the watch), paths are
compared as text made before the test (:func:`normal`), and code objects by identity
(:class:`Codes`: a set lookup hashes a code object's constants, which the test may choose).
"""

from __future__ import annotations

import _thread
import os
import stat
import sys
import types

# Bound at import (see pytest_quest.watch): a builtin the test rebinds never runs here.
from builtins import (  # noqa: UP029 - bound on purpose, as the comment says
    OSError,
    RuntimeError,
    ValueError,
    all,
    any,
    bool,
    bytes,
    classmethod,
    dict,
    frozenset,
    getattr,
    int,
    isinstance,
    iter,
    len,
    list,
    map,
    memoryview,
    object,
    property,
    range,
    reversed,
    set,
    staticmethod,
    str,
    tuple,
    type,
    vars,
)
from collections.abc import Iterable, Iterator, Mapping
from operator import is_ as _same
from typing import Any

from pytest_quest.pathtext import freeze as _freeze_paths
from pytest_quest.pathtext import text_of

__all__ = ["CONTROL", "LOST", "AnswerPipe", "Codes", "Phase", "Spaces", "code_objects",
           "folder_prefixes", "get_ident", "getframe", "identity", "module_homes", "normal",
           "real_path",
           "text_of", "with_nested"]

#: The audit event pytest-quest's own code steers the run's hooks with: ``("start",)``, and
#: the watch's ``("item", nodeid)`` and ``("loading", flag)``.
CONTROL = "pytest_quest.run"
#: The exit status of a run whose hook could not write a finding to its answer pipe.
LOST = 86

BEFORE, TEST = "before", "test"

# Bound now: a test may replace the module attributes later, never these names' values here
# (a module global of this module is only reachable through imports the static stage names).
_fstat, _write, _exit, _getcwd = os.fstat, os.write, os._exit, os.getcwd
_lstat, _readlink, _is_link = os.lstat, os.readlink, stat.S_ISLNK
_MODULES, _MODULE, _FUNCTION = sys.modules, types.ModuleType, types.FunctionType
_READ_ONLY = types.MappingProxyType
get_ident = _thread.get_ident
getframe = sys._getframe
#: An object's identity as a number, like ``id()``, raising no audit event: ``id()`` raises
#: ``builtins.id``, and the hook judges again every event raised while it runs (about 600 a
#: run came from :meth:`Codes.runs` alone, a tenth of a run's time). ``object``'s own hash,
#: called on any object whatever its class defines: the address rotated by four bits, one
#: number per live object as ``id()`` is.
identity = object.__hash__

class Phase:
    """Before test code, then in its time until the process ends: moved once, by the
    :data:`CONTROL` event ``start``, whose frame is kept (the anchor: our loader's frames
    lead to it)."""

    def __init__(self) -> None:
        self.now = BEFORE
        self._anchor: types.FrameType | None = None

    @property
    def anchor(self) -> types.FrameType | None:
        return self._anchor

    def steer(self, verb: str, caller: types.FrameType) -> bool:
        """Apply ``start`` raised by ``caller``; False for anything else (a second start)."""
        if verb == "start" and self.now is BEFORE:
            self._anchor, self.now = caller, TEST
            _freeze_paths()  # what paths' classes hold now: the state the test starts from
            return True
        return False

    def testing(self) -> bool:
        """Whether the event under way is in the test's time."""
        return self.now is TEST


class AnswerPipe:
    """The run's answer pipe as the hooks write to it: one line per finding, before the
    answer. Its identity is taken when test code starts; a pipe closed or replaced by then
    ends the run (:data:`LOST`) before the hook returns."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self._identity: tuple[int, int] | None = None

    def seal(self) -> None:
        if self.fd is not None:
            found = _fstat(self.fd)
            self._identity = (found.st_dev, found.st_ino)

    def tell(self, prefix: bytes, text: str) -> None:
        if self.fd is None:
            return
        try:
            found = _fstat(self.fd)
            if (found.st_dev, found.st_ino) != self._identity:
                raise OSError("the answer pipe was replaced")
            view = memoryview(prefix + text.encode("utf-8", "replace").hex().encode() + b"\n")
            while view:
                view = view[_write(self.fd, view):]
        except OSError:
            _exit(LOST)


def normal(text: str, cwd: str | None = None) -> str:
    """``text`` as an absolute path with ``.``, ``..`` and repeated slashes resolved, by string
    operations only (no link resolved: the guard refuses links out of the run's folders)."""
    if not text.startswith("/"):
        text = (cwd if cwd is not None else _getcwd()) + "/" + text
    parts: list[str] = []
    for part in text.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


def folder_prefixes(folders: Iterable[str]) -> tuple[str, ...]:
    """Each folder as written (normalised) and with its links followed, ending in a separator:
    what a path in it starts with, however the run spells it. Called as a hook is made,
    before the test's time (``os.path.realpath`` looks ``os.lstat`` up as it runs)."""
    return tuple({spelling.rstrip(os.sep) + os.sep for folder in folders
                  for spelling in (normal(folder), os.path.realpath(folder))})


def real_path(text: str, cwd: str | None = None, visited: list[str] | None = None) -> str:
    """``text`` as the kernel finds it: each link followed (``lstat`` and ``readlink`` bound
    at import) before a ``..`` after it is applied; from the first part that does not exist,
    the rest is text. Red team 28 made a link inside the run's folder (``d/u -> ..``) that a
    second link's text went through, out of every allowed folder. ``visited`` collects each
    part looked up on the way, where it lies (a part in a folder the run may change, a link
    or one not there yet, could lead elsewhere by the time the kernel follows it)."""
    if not text.startswith("/"):
        text = (cwd if cwd is not None else _getcwd()) + "/" + text
    pending = [part for part in text.split("/") if part][::-1]  # the next part is the last
    parts: list[str] = []
    for _ in range(4096):
        if not pending:
            break
        part = pending.pop()
        if part == ".":
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        here = "/" + "/".join([*parts, part])
        if visited is not None:
            visited.append(here)
        try:
            mode = _lstat(here).st_mode
        except (OSError, ValueError):
            return normal("/".join([here, *reversed(pending)]))
        if not _is_link(mode):
            parts.append(part)
            continue
        target = _readlink(here)
        if target.startswith("/"):
            parts = []
        pending.extend(part for part in reversed(target.split("/")) if part)
    else:
        return "/"  # a loop of links: nowhere anyone may write
    return "/" + "/".join(parts)


class Codes:
    """Code objects told by identity: ``in`` a set would hash the code, and a code object the
    test made (``code.replace(co_consts=...)``) hashes its constants with the test's code.

    Each code also has its home: the globals its module's functions run it with. A frame of
    the code is the reader only when it runs there (:meth:`runs`): ``types.FunctionType``
    makes a function of any code with any globals, and raises no audit event, so ``inspect``'s
    own code run with a copy of ``inspect``'s globals looked up the test's helpers while the
    watch believed it and ``inspect``'s untouched module (red team 50)."""

    def __init__(self, codes: Iterable[types.CodeType] = (),
                 homes: Mapping[int, dict[str, Any]] | None = None,
                 by_file: Mapping[str, tuple[dict[str, Any], ...]] | None = None) -> None:
        """``homes``: id of a code -> the globals it runs with; by default the dict of the
        loaded module whose file the code names (none for code of no module's file), from
        ``by_file`` (:func:`module_homes`) when the caller made it already."""
        self._codes = tuple(codes)  # kept alive, so their ids stay theirs
        self._ids = frozenset(identity(code) for code in self._codes)
        if homes is None:
            homes = _homes_by_file(self._codes, by_file)
        # read-only, like the ids: a test that reaches this object cannot give its own globals
        # a home here (the dict behind the view is reachable only through ``gc``: an event)
        self._homes = _READ_ONLY({key: homes[key] for key in self._ids if key in homes})
        #: The homes' ids: a frame run with other globals runs none of these codes, told
        #: without reading its code (``f_code`` raises an audit event).
        self._home_ids = frozenset(identity(home) for home in self._homes.values())

    @classmethod
    def of(cls, functions: Iterable[Any]) -> Codes:
        """The code of each function, at home in that function's globals."""
        found = [(item.__code__, item.__globals__) for item in functions]
        return cls((code for code, _ in found), {identity(code): home for code, home in found})

    def holds(self, code: Any) -> bool:
        """``code`` is one of these, wherever it runs: for a code object with no frame (a
        hook installed, a frame's code compared with its caller's names)."""
        return identity(code) in self._ids

    def runs(self, frame: types.FrameType) -> bool:
        """``frame`` runs one of these codes in its home."""
        home = frame.f_globals
        if identity(home) not in self._home_ids:
            return False
        key = identity(frame.f_code)
        return key in self._ids and self._homes.get(key) is home

    def owns(self, function: Any) -> bool:
        """``function`` (exactly a function) runs one of these codes in its home."""
        if type(function) is not _FUNCTION:
            return False
        home = function.__globals__
        if identity(home) not in self._home_ids:
            return False
        key = identity(function.__code__)
        return key in self._ids and self._homes.get(key) is home

    def copy(self) -> Codes:
        copied = Codes(homes={})
        copied._codes, copied._ids, copied._homes = self._codes, self._ids, self._homes
        copied._home_ids = self._home_ids
        return copied  # all four never change once made

    def __or__(self, other: Codes) -> Codes:
        return Codes((*self._codes, *other._codes), {**self._homes, **other._homes})

    def __sub__(self, other: Codes) -> Codes:
        return Codes((code for code in self._codes if identity(code) not in other._ids),
                     self._homes)

    def __iter__(self) -> Iterator[types.CodeType]:
        return iter(self._codes)

    def __len__(self) -> int:
        return len(self._codes)


def _homes_by_file(codes: tuple[types.CodeType, ...],
                   by_file: Mapping[str, tuple[dict[str, Any], ...]] | None = None
                   ) -> dict[int, dict[str, Any]]:
    """Each code's home by its file: the dict of the module loaded from that file."""
    if not codes:
        return {}
    if by_file is None:
        by_file = module_homes()
    found: dict[int, dict[str, Any]] = {}
    for code in codes:
        homes = by_file.get(code.co_filename)
        if homes is not None:
            found[identity(code)] = homes[0]
    return found


def module_homes() -> dict[str, tuple[dict[str, Any], ...]]:
    """The globals of every module loaded now, by the file name its code carries (a frozen
    module's ``<frozen NAME>`` too; a module loaded under two names has two)."""
    by_file: dict[str, tuple[dict[str, Any], ...]] = {}
    for name, module in list(_MODULES.items()):
        if type(module) is not _MODULE:
            continue
        names = vars(module)
        path = names.get("__file__")
        for key in (path, f"<frozen {name}>"):
            if type(key) is str:
                known = by_file.get(key, ())
                if not any(names is other for other in known):
                    by_file[key] = (*known, names)
    return by_file


class Spaces:
    """Namespaces (modules' and classes' dicts) with the names each bound and to what, by
    identity, as they were when taken, and each class's lookup order.

    Code that reads frames or code for someone else is believed only while the namespaces
    it looks names up in are as they were at the test's start: a name of the test's there is
    handed what it reads (red team 42 replaced ``inspect``'s helpers, red team 44 the ``Code``
    class of pytest's traceback API). Compared in C (``operator.is_``): no ``__eq__`` of the
    test's ever runs.
    """

    def __init__(self, spaces: Iterable[Any] = (), classes: Iterable[type] = (),
                 named: Iterable[tuple[dict[str, Any], Iterable[str]]] = ()) -> None:
        """``named``: namespaces of which only the given names count (the builtins' dict,
        which a test may change for names nobody here uses)."""
        kinds = tuple(classes)
        kept = (*spaces, *(vars(kind) for kind in kinds))
        self._items = tuple((space, tuple(space), tuple(space.values())) for space in kept)
        self._orders = tuple((kind, kind.__mro__) for kind in kinds)
        self._named = tuple((space, names, tuple(map(space.get, names)))
                            for space, names in ((space, tuple(names)) for space, names in named))

    def intact(self) -> bool:
        try:
            for kind, order in self._orders:
                if kind.__mro__ is not order:
                    return False
            for space, keys, values in self._items:
                if len(space) != len(keys) or not all(map(_same, space, keys)) or \
                        not all(map(_same, space.values(), values)):
                    return False
            for space, names, values in self._named:
                if not all(map(_same, map(space.get, names), values)):
                    return False
        except RuntimeError:  # a dict changed size while it was compared: not as it was
            return False
        return True


def with_nested(code: types.CodeType) -> list[types.CodeType]:
    """``code`` first, then every code object nested in it (comprehensions, lambdas, inner
    functions): they run as part of it."""
    found, pending = [], [code]
    while pending:
        item = pending.pop()
        found.append(item)
        pending.extend(const for const in item.co_consts if type(const) is types.CodeType)
    return found


def code_objects(modules: Iterable[types.ModuleType]) -> Codes:
    """Every code object of the functions, methods and properties defined in ``modules``, and
    the code nested in them (comprehensions, inner functions), each at home in the globals of
    the function that holds it. Made before test code runs."""
    found: dict[int, types.CodeType] = {}
    homes: dict[int, dict[str, Any]] = {}
    seen: set[int] = set()

    def code(item: types.CodeType, home: dict[str, Any]) -> None:
        for each in with_nested(item):
            if identity(each) not in found:
                found[identity(each)] = each
                homes[identity(each)] = home

    def visit(item: Any, depth: int) -> None:
        if identity(item) in seen or depth > 3:
            return
        seen.add(identity(item))
        if type(item) is types.FunctionType:
            code(item.__code__, item.__globals__)
            wrapped = vars(item).get("__wrapped__")  # a decorated one (contextmanager)
            if wrapped is not None:
                visit(wrapped, depth + 1)
        elif type(item) in (staticmethod, classmethod):
            visit(item.__func__, depth + 1)
        elif type(item) is property:
            for part in (item.fget, item.fset, item.fdel):
                visit(part, depth + 1)
        elif isinstance(item, type):
            for value in list(vars(item).values()):
                visit(value, depth + 1)

    for module in modules:
        name = module.__name__
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) == name:
                visit(value, 0)
    return Codes(found.values(), homes)
