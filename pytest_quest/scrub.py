"""What a run child must not hand its test: the pristine code next to the installed one.

The judge's :class:`~pytest_quest.runparts.Pristine` import hook holds the
pristine module code and, in a run, the installed one (pristine or a
mutant). Reachable from the target module (``__loader__``, ``__spec__``,
``sys.meta_path``), it let a test compare the two and spot every mutant
without testing anything (red team 2, finding 07), and its ``get_source``
handed out the pristine text from memory, with no audit event (finding 03).

So before any test code runs, a run child (:func:`scrub_run`):

- serves the target from a :class:`RunLoader` that holds only the code this
  run installs (which the test can see anyway: it is what runs) and has no
  source to give;
- empties the judge's ``Pristine`` in its own memory (the judge keeps its
  copy: the child's pages are its own after the fork) and points the
  target module's ``__loader__`` and ``__spec__.loader`` at the run's loader.

- empties the target's :mod:`linecache` entry: the pristine text there was
  read with no audit event and compiled into a copy of the shipped function
  (red team 9, finding 01). A traceback through the target shows its file
  and line, not the line's text; the file itself is hidden from the run too
  (:func:`pytest_quest.confine.hide_files`).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import linecache
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["RunLoader", "body_of", "file_spec", "fingerprint", "function_of", "holds_body",
           "scrub_run"]


def file_spec(fullname: str, loader: importlib.abc.Loader,
              path: str) -> importlib.machinery.ModuleSpec | None:
    """The spec of the target module served by ``loader`` from memory, as if found at ``path``.

    The judge's import hook and each run's loader give the same spec, so the
    module looks the same (``__file__``, a package's search path) whichever
    serves it.
    """
    package = os.path.basename(path) == "__init__.py"
    spec = importlib.util.spec_from_loader(fullname, loader, origin=path, is_package=package)
    if spec is None:  # pragma: no cover - spec_from_loader only fails without a loader
        return None
    spec.has_location = True
    if package:
        spec.submodule_search_locations = [os.path.dirname(path)]
    return spec


class RunLoader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The target module in one run: its code and nothing else (no pristine twin, no source)."""

    def __init__(self, module: str, path: str, code: types.CodeType,
                 loading: Callable[[bool], None]) -> None:
        self._module = module
        self._path = path
        self._code: types.CodeType | None = code
        self._loading = loading

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self._module:
            return None
        return file_spec(fullname, self, self._path)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if self._code is None:
            raise ImportError(f"{self._module} is imported once in a run")
        self._loading(True)
        try:
            exec(self._code, module.__dict__)
        finally:
            self._loading(False)

    def forget(self) -> None:
        """Drop the run's code once the module is imported, before any test code runs: the
        loader is the module's ``__loader__``, and its code (a reach check's stop included)
        was there to read with no audit event (red team 6, finding 06)."""
        self._code = None

    def get_source(self, fullname: str) -> None:
        """No source in a run: the text would be an oracle (``linecache`` serves tracebacks)."""
        return None

    def get_filename(self, fullname: str) -> str:
        return self._path

    def is_package(self, fullname: str) -> bool:
        return os.path.basename(self._path) == "__init__.py"


def scrub_run(pristine: Any, loader: RunLoader, module: str) -> None:
    """Put ``loader`` in the judge's hook's place and empty the hook (in this child only)."""
    with contextlib.suppress(ValueError):
        sys.meta_path.remove(pristine)
    sys.meta_path.insert(0, loader)
    for name in ("module_code", "code", "watch"):
        setattr(pristine, name, None)
    linecache.cache[pristine.path] = (0, None, [], pristine.path)  # no text, never reread
    pristine.source = b""
    pristine.text = ""
    imported = sys.modules.get(module)
    if imported is not None:  # a conftest imported it in the judge: the hook is its loader
        with contextlib.suppress(AttributeError, TypeError):
            imported.__loader__ = loader
        spec = getattr(imported, "__spec__", None)
        if spec is not None:
            with contextlib.suppress(AttributeError, TypeError):
                spec.loader = loader


#: A body shorter than this (``return x``) is too common to tell a copy of the target by.
MIN_BODY_CHARS = 40


def _uncommented(line: str) -> str:
    """``line`` without a trailing comment (a ``#`` outside quotes; escapes are not followed,
    which only ever keeps a little more of the line, the same way on both sides)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def _plain_lines(text: str) -> list[str]:
    """The non-blank lines, stripped and without their comments: what a reformatted or
    annotated copy keeps (a comment on every line hid a copy, red team 9, finding 01)."""
    return [line for line in (_uncommented(raw).strip() for raw in text.splitlines()) if line]


def _code_lines(text: str) -> list[int]:
    """:func:`_plain_lines` as numbers (``hash``), not text: the code watch lives in the run's
    memory, where the text of the target would be the very oracle it looks for."""
    return [hash(line) for line in _plain_lines(text)]


def function_of(function_text: str) -> tuple[int, ...]:
    """The target's def, line by line as :func:`_code_lines` sees them."""
    return tuple(_code_lines(function_text))


def body_of(function_text: str) -> tuple[int, ...]:
    """The target's body, line by line: what a renamed or re-indented copy keeps.

    The def line is dropped (a copy renames it, red team 2, finding 03);
    empty when what is left is too short to be telling.
    """
    lines = _plain_lines(function_text)
    start = next((i + 1 for i, line in enumerate(lines) if line.endswith(":")), len(lines))
    body = lines[start:]
    return tuple(hash(line) for line in body) if len("\n".join(body)) >= MIN_BODY_CHARS else ()


def fingerprint(function_text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`function_of` and :func:`body_of` of a def: all the code watch keeps of it."""
    return function_of(function_text), body_of(function_text)


def holds_body(source: str, body: tuple[int, ...]) -> bool:
    """Whether ``source`` carries ``body`` (from :func:`body_of` or :func:`function_of`)
    line for line."""
    if not body:
        return False
    lines = _code_lines(source)
    size, wanted = len(body), list(body)
    return any(lines[i:i + size] == wanted for i in range(len(lines) - size + 1)
               if lines[i] == body[0])
