"""The AST walk that turns source files into quests: one per function or method.

Nested functions, lambdas and classes defined inside a function belong to the
function that holds them (their lines are part of its body). Module and class
bodies are not quests. ``@overload`` stubs and trivial abstract methods are
skipped: there is nothing to run.
"""

from __future__ import annotations

import ast
import hashlib
import os
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_quest.config import IGNORED_DIRS

__all__ = [
    "Found",
    "ScanError",
    "is_test_file",
    "iter_source_files",
    "scan_file",
    "scan_source",
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

    @property
    def id(self) -> str:
        return f"{self.path}::{self.qualname}"


@dataclass(frozen=True)
class ScanError:
    """A file that could not be parsed; reported, never fatal for the scan."""

    path: str
    message: str


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
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(
                    d for d in dirnames if d not in IGNORED_DIRS and not d.startswith(".")
                    and not (Path(dirpath, d) / "pyvenv.cfg").exists()
                )
                rel_dir = Path(dirpath).relative_to(root).as_posix()
                for name in sorted(filenames):
                    if name.endswith(".py"):
                        candidates.append(name if rel_dir == "." else f"{rel_dir}/{name}")
        for rel in candidates:
            if rel in seen or is_test_file(rel) or (rel + "/").startswith(quest_prefix):
                continue
            seen.add(rel)
            yield rel


def scan_file(root: Path, rel: str) -> list[Found] | ScanError:
    """Quests of one file, or the reason it could not be read."""
    try:
        with tokenize.open(root / rel) as handle:  # honours a PEP 263 coding line
            text = handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return ScanError(rel, str(exc))
    return scan_source(text, rel)


def scan_source(text: str, rel: str) -> list[Found] | ScanError:
    """Walk module and class bodies; every function met there is a quest."""
    try:
        tree = ast.parse(text, filename=rel)
    except (SyntaxError, ValueError) as exc:
        return ScanError(rel, str(exc))
    lines = text.splitlines()
    out: list[Found] = []
    taken: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, _FUNC):
                found = _make(node, rel, prefix, taken, lines)
                if found is not None:
                    taken.add(found.qualname)
                    out.append(found)
            elif isinstance(node, ast.If | ast.Try | ast.With | ast.AsyncWith | ast.TryStar):
                # Conditional definitions (``if sys.platform...: def f``) are still functions.
                for block in _blocks(node):
                    visit(block, prefix)

    visit(tree.body, "")
    return out


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
