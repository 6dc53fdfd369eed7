"""The AST walk that turns source files into quests: one per function or method.

Nested functions, lambdas and classes defined inside a function belong to the
function that holds them (their lines are part of its body). Module and class
bodies are not quests. ``@overload`` stubs and trivial abstract methods are
skipped: there is nothing to run.

Functions no test can cover here are found but carry a ``skip`` reason, so
the scan lists them instead of offering quests that can only end in REVIEW:
every line excluded from coverage (``# pragma: no cover`` on the function or
an enclosing block, ``if TYPE_CHECKING:``, a ``...`` body), or a definition
only made on another Python version or platform
(``if sys.version_info >= (3, 13):``, or after a module-level
``assert sys.platform == "win32"``), judged for the interpreter that runs
the tests.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pytest_quest import safeio
from pytest_quest.astext import unparse
from pytest_quest.config import IGNORED_DIRS, is_tooling
from pytest_quest.errors import PARSE_ERRORS

__all__ = [
    "Found",
    "ScanError",
    "Target",
    "is_test_file",
    "iter_source_files",
    "scan_file",
    "scan_source",
    "target_of",
]

_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Found:
    """A function found in a source file (the scanner's output, before the ledger)."""

    path: str
    qualname: str
    kind: str
    lines: tuple[int, int]
    body: tuple[int, int]
    source_hash: str
    #: Why no test can cover it here ("" when it is a quest).
    skip: str = ""

    @property
    def id(self) -> str:
        return f"{self.path}::{self.qualname}"

    def with_skip(self, reason: str) -> Found:
        return Found(self.path, self.qualname, self.kind, self.lines, self.body,
                     self.source_hash, reason)


@dataclass(frozen=True)
class ScanError:
    """A file that could not be parsed; reported, never fatal for the scan."""

    path: str
    message: str


@dataclass(frozen=True)
class Target:
    """The interpreter the tests run on: what ``sys.version_info``/``sys.platform`` say there."""

    version: tuple[int, ...]
    platform: str
    os_name: str

    @classmethod
    def here(cls) -> Target:
        return cls(tuple(sys.version_info[:3]), sys.platform, os.name)

    def describe(self) -> str:
        return f"Python {'.'.join(map(str, self.version))} on {self.platform}"


@lru_cache(maxsize=8)
def target_of(python: str) -> Target:
    """The :class:`Target` of the interpreter ``python`` (ours when it is ours or cannot answer)."""
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return Target.here()
    code = "import json, os, sys; print(json.dumps([sys.version_info[:3], sys.platform, os.name]))"
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=30,
                              check=True)
        version, platform, os_name = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return Target.here()
    return Target(tuple(version), platform, os_name)


def is_test_file(rel: str) -> bool:
    """Tests and conftests are never quests, wherever they live."""
    parts = rel.split("/")
    name = parts[-1]
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(p in ("tests", "test", "testing") for p in parts[:-1])


def iter_source_files(root: Path, sources: tuple[str, ...], test_dir: str) -> Iterator[str]:
    """Every ``.py`` file under the source folders, as sorted posix paths from ``root``."""
    seen: set[str] = set()
    quest_prefix = test_dir.rstrip("/") + "/"
    for source in sources:
        base = root / source
        if base.is_file():
            candidates = [source] if base.suffix == ".py" else []
        else:
            candidates = []
            for dirpath, dirnames, filenames in safeio.walk(base, safeio.PROJECT_DEPTH):
                dirnames[:] = sorted(
                    d for d in dirnames if d not in IGNORED_DIRS and not d.startswith(".")
                    and not (Path(dirpath, d) / "pyvenv.cfg").exists()
                )
                rel_dir = Path(dirpath).relative_to(root).as_posix()
                for name in sorted(filenames):
                    if name.endswith(".py"):
                        candidates.append(name if rel_dir == "." else f"{rel_dir}/{name}")
        whole_root = source.strip("/") in ("", ".")
        for rel in candidates:
            if rel in seen or is_test_file(rel) or (rel + "/").startswith(quest_prefix):
                continue
            if whole_root and is_tooling(rel):  # ``--source .``: still not docs or setup.py
                continue
            seen.add(rel)
            yield rel


def scan_file(root: Path, rel: str, target: Target | None = None) -> list[Found] | ScanError:
    """Quests of one file, or the reason it could not be read."""
    try:
        with tokenize.open(root / rel) as handle:  # honours a PEP 263 coding line
            text = handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return ScanError(rel, str(exc))
    return scan_source(text, rel, target)


def scan_source(text: str, rel: str, target: Target | None = None) -> list[Found] | ScanError:
    """Walk module and class bodies; every function met there is a quest (or a skipped one)."""
    try:
        tree = ast.parse(text, filename=rel)
    except PARSE_ERRORS as exc:
        return ScanError(rel, str(exc) or "nested too deeply to parse")
    target = target or Target.here()
    lines = text.splitlines()
    out: list[Found] = []
    taken: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str, skip: str) -> None:
        for node in body:
            if isinstance(node, ast.Assert) and not skip and _truth(node.test, target) is False:
                # ``assert sys.platform == "win32"`` (click's _winconsole.py): importing
                # stops here on this interpreter, so nothing after it can run.
                condition = " ".join(
                    (ast.get_source_segment(text, node.test) or unparse(node.test)).split())
                skip = (f"after line {node.lineno} `assert {condition}`, false on "
                        f"{target.describe()}: the code stops there")
            elif isinstance(node, ast.ClassDef):
                header = " ".join(lines[node.lineno - 1 : node.body[0].lineno - 1])
                marked = bool(_PRAGMA.search(header)) and f"class {node.name} is marked " \
                    "`# pragma: no cover`"
                visit(node.body, f"{prefix}{node.name}.", skip or marked or "")
            elif isinstance(node, _FUNC):
                found = _make(node, rel, prefix, taken, lines)
                if found is not None:
                    taken.add(found.qualname)
                    out.append(found.with_skip(skip) if skip else found)
            elif isinstance(node, ast.If):
                # Conditional definitions (``if sys.platform...: def f``) are still functions;
                # those made only on another interpreter cannot run here.
                truth = _truth(node.test, target)
                condition = " ".join(
                    (ast.get_source_segment(text, node.test) or unparse(node.test)).split())
                here = target.describe()
                only = (f"defined only when `{condition}`, false on {here}"
                        if condition not in _CHECKING else
                        "defined only for type checkers (`if TYPE_CHECKING:`)")
                visit(node.body, prefix, skip or (only if truth is False else ""))
                visit(node.orelse, prefix, skip or (
                    f"defined only when not `{condition}`, true on {here}" if truth is True
                    else ""))
            elif isinstance(node, ast.Try | ast.With | ast.AsyncWith | ast.TryStar):
                for block in _blocks(node):
                    visit(block, prefix, skip)

    visit(tree.body, "", "")
    if _EXCLUDED.search(text):
        out = _mark_excluded(out, text, lines)
    return out


#: coverage.py's default exclusions: the harness measures with them (``config_file=False``).
_EXCLUDE_PATTERNS = (
    r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)",
    r"^\s*(((async )?def .*?)?[\])]+(\s*->.*?)?:\s*)?\.\.\.\s*(#|$)",
    r"^\s*if (typing\.)?TYPE_CHECKING:",
)
_EXCLUDED = re.compile("|".join(f"(?:{p})" for p in _EXCLUDE_PATTERNS), re.M)
_PRAGMA = re.compile(_EXCLUDE_PATTERNS[0])


def _mark_excluded(found: list[Found], text: str, lines: list[str]) -> list[Found]:
    """Skip functions whose body holds no statement coverage.py would measure."""
    from coverage.parser import PythonParser

    parser = PythonParser(text=text, exclude="|".join(f"(?:{p})" for p in _EXCLUDE_PATTERNS))
    try:
        parser.parse_source()
    except Exception:  # coverage cannot parse what ast could: leave the quests as they are
        return found
    statements = sorted(parser.statements)
    out = []
    for item in found:
        first, last = item.body
        if item.skip or any(first <= n <= last for n in statements):
            out.append(item)
            continue
        start = min(item.lines[0], item.body[0])
        header = " ".join(lines[start - 1 : item.body[0]])
        if _PRAGMA.search(header):
            why = "marked `# pragma: no cover`"
        elif all(line.strip() in ("...", "") or line.strip().startswith("#")
                 for line in lines[first - 1 : last]) or header.rstrip().endswith("..."):
            why = "its body is `...`: nothing to run"
        else:
            why = _enclosing_pragma(lines, start) or (
                "every line is excluded from coverage (`# pragma: no cover` on an enclosing "
                "block)")
        out.append(item.with_skip(why))
    return out


_CHECKING = ("TYPE_CHECKING", "typing.TYPE_CHECKING")
def _enclosing_pragma(lines: list[str], start: int) -> str:
    """``under line 188 `except ImportError:  # pragma: no cover``` for the nearest marked header.

    Walks up from line ``start`` through the headers of the blocks holding it
    (each less indented than the last), ``else:`` lines included, which the
    AST does not keep.
    """
    def indent(text: str) -> int:
        return len(text) - len(text.lstrip())

    level = indent(lines[start - 1])
    for number in range(start - 1, 0, -1):
        text = lines[number - 1]
        if not text.strip() or text.lstrip().startswith("#") or indent(text) >= level:
            continue
        level = indent(text)
        if _PRAGMA.search(text):
            return f"under line {number} `{text.strip()}`"
        if level == 0:
            break
    return ""


_VERSION = ("sys.version_info", "version_info")
_PLATFORM = ("sys.platform", "platform")
_OS_NAME = ("os.name",)


def _truth(test: ast.expr, target: Target) -> bool | None:
    """The value of an ``if`` test on ``target``, or None when it cannot be known statically."""
    if isinstance(test, ast.Constant) and isinstance(test.value, bool):
        return test.value
    if isinstance(test, ast.Name | ast.Attribute) and unparse(test) in _CHECKING:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand, target)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_truth(v, target) for v in test.values]
        want = isinstance(test.op, ast.Or)
        if want in values:
            return want
        return None if None in values else not want
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left = _value(test.left, target)
        right = _value(test.comparators[0], target)
        if left is None or right is None or type(left) is not type(right):
            return None
        op = test.ops[0]
        compare = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__",
                   ast.Gt: "__gt__", ast.GtE: "__ge__"}.get(type(op))
        if compare is None:
            return None
        result = getattr(left, compare)(right)
        return result if isinstance(result, bool) else None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and (
        test.func.attr == "startswith" and len(test.args) == 1 and not test.keywords
    ):
        subject = _value(test.func.value, target)
        prefix = _value(test.args[0], target)
        if isinstance(subject, str) and isinstance(prefix, str | tuple):
            return subject.startswith(prefix)
    return None


def _value(node: ast.expr, target: Target) -> object:
    """``sys.version_info[:2]``, ``sys.platform``, ``os.name`` or a constant; else None."""
    text = unparse(node)
    if text in _VERSION:
        return target.version
    if isinstance(node, ast.Subscript) and unparse(node.value) in _VERSION:
        index = node.slice
        if isinstance(index, ast.Slice) and index.lower is None and index.step is None and (
            isinstance(index.upper, ast.Constant) and isinstance(index.upper.value, int)
        ):
            return target.version[: index.upper.value]
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return target.version[index.value] if index.value < len(target.version) else None
    if isinstance(node, ast.Attribute) and unparse(node.value) in _VERSION:
        names = ("major", "minor", "micro")
        return target.version[names.index(node.attr)] if node.attr in names else None
    if text in ("sys.hexversion", "hexversion"):
        major, minor, micro = (*target.version, 0, 0, 0)[:3]
        return (major << 24) | (minor << 16) | (micro << 8) | 0xF0  # a final release
    if text in _PLATFORM:
        return target.platform
    if text in _OS_NAME:
        return target.os_name
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, tuple) and all(isinstance(x, int) for x in value):
        return value
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if block:
            yield block
    for handler in getattr(node, "handlers", ()):
        yield handler.body


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = []
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute):
            names.append(target.attr)
            if isinstance(target.value, ast.Name):
                names.append(f"{target.value.id}.{target.attr}")
        elif isinstance(target, ast.Name):
            names.append(target.id)
    return names


def _is_trivial(body: list[ast.stmt]) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring or ``...``
        if isinstance(stmt, ast.Raise):
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True


def _kind(
    node: ast.FunctionDef | ast.AsyncFunctionDef, decorators: list[str], method: bool, text: str
) -> str:
    if "property" in decorators or "cached_property" in decorators:
        return "property"
    if any(d.endswith(("setter", "deleter")) for d in decorators):
        return "property"
    if "staticmethod" in decorators:
        return "staticmethod"
    if "classmethod" in decorators:
        return "classmethod"
    # The text test is cheap and rules out almost every function before the walk.
    generator = "yield" in text and any(
        isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(node)
    )
    if isinstance(node, ast.AsyncFunctionDef):
        return "async generator" if generator else "async"
    if generator:
        return "generator"
    return "method" if method else "function"


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function, not descending into nested functions, lambdas or classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, (*_FUNC, ast.Lambda, ast.ClassDef)):
            continue
        yield child
        stack.extend(ast.iter_child_nodes(child))


def _make(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    rel: str,
    prefix: str,
    taken: set[str],
    lines: list[str],
) -> Found | None:
    decorators = _decorator_names(node)
    if "overload" in decorators or "typing.overload" in decorators:
        return None
    if "abstractmethod" in decorators and _is_trivial(node.body):
        return None
    qualname = prefix + node.name
    for dec in decorators:
        if dec.endswith((".setter", ".deleter")) and dec.split(".")[0] == node.name:
            qualname = f"{qualname}.{dec.rsplit('.', 1)[1]}"
    if qualname in taken:
        qualname = f"{qualname}@{node.lineno}"
    body = node.body
    first = body[0]
    if (
        len(body) > 1
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        first = body[1]
    end = node.end_lineno or node.lineno
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    # The hash of the text, decorators included, each line without its indent and
    # trailing blanks: moving or re-indenting a function keeps it, editing changes it.
    text = "\n".join(line.strip() for line in lines[start - 1 : end])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return Found(
        path=rel,
        qualname=qualname,
        kind=_kind(node, decorators, method=bool(prefix), text=text),
        lines=(node.lineno, end),
        body=(first.lineno, end),
        source_hash=digest,
    )
