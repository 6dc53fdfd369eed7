"""What a name in a submitted test refers to, and what a constant expression is worth.

The static rules are written against a class of trick, not one spelling of it:
a rule about ``os._exit`` must also catch ``o._exit`` after ``import os as o``,
``getattr(__import__("os"), "_exit")`` and ``leave = os._exit; leave(0)``.
:class:`Names` does that resolution once per file; :func:`const_str` folds
split string literals (``"_ex" + "it"``) and :func:`truthiness` decides
constant conditions (``if False:``, ``skipif(1)``, ``assert (x, "msg")``).
What a name *cannot* be resolved to (a value computed at run time) is left to
the run stage and the kernel.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from pytest_quest.astext import unparse
from pytest_quest.submission import Submission

__all__ = [
    "WELL_KNOWN", "Names", "const_str", "decorator_name", "expand", "folded_strings", "in_tmp",
    "is_fixture", "quote", "rooted", "truthiness",
]


def quote(sub: Submission, node: ast.AST, limit: int = 120) -> str:
    """The code of ``node`` as written (one line, shortened), for the fact's ``actual``."""
    try:
        segment = _segment(sub.test_lines, node)
    except UnicodeError:  # an offset inside a character's bytes: quote the tree
        segment = None
    text = segment or unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The most lines of a node a quote reads: enough for ``limit`` characters of code, and
#: bounded whatever the node spans (a quote per fact must not cost the file's size).
_QUOTED_LINES = 40


def _segment(lines: list[str], node: ast.AST) -> str | None:
    """The source of ``node`` from ``lines`` (offsets in UTF-8 bytes, as the tree gives
    them), or its first :data:`_QUOTED_LINES` lines; None when it has no position."""
    first: int | None = getattr(node, "lineno", None)
    last: int | None = getattr(node, "end_lineno", None)
    start: int | None = getattr(node, "col_offset", None)
    end: int | None = getattr(node, "end_col_offset", None)
    if first is None or last is None or start is None or end is None or \
            not 1 <= first <= last <= len(lines):
        return None
    if first == last:
        return lines[first - 1].encode()[start:end].decode()
    head = lines[first - 1].encode()[start:].decode()
    middle = lines[first:min(last - 1, first - 1 + _QUOTED_LINES)]
    tail = lines[last - 1].encode()[:end].decode() if last - first <= _QUOTED_LINES else ""
    return "".join([head, *middle, tail])


#: Modules the rules judge by name that other modules import and so expose as attributes:
#: ``timeit.gc`` is ``gc``, ``tracemalloc.pickle`` is ``pickle``, ``subprocess.signal`` is
#: ``signal`` (red team 37, after red teams 29, 30 and 36 found ``ctypes`` and ``signal``).
WELL_KNOWN = frozenset({
    "sys", "os", "posix", "gc", "signal", "_signal", "pickle", "_pickle", "marshal",
    "importlib", "inspect", "types", "builtins", "ctypes", "_ctypes", "cffi", "_cffi_backend",
    "_posixsubprocess", "_testcapi", "_testinternalcapi", "_xxsubinterpreters", "_interpreters",
    "threading", "_thread", "subprocess", "socket", "io", "_io", "runpy", "site", "sysconfig",
    "shutil", "traceback", "faulthandler", "atexit", "multiprocessing", "copyreg", "pkgutil",
    "zipimport", "linecache", "dis", "tracemalloc", "code", "codeop", "pdb", "bdb", "timeit",
    "cProfile", "profile", "pstats", "operator", "functools", "warnings", "logging",
})
#: Libraries' own modules that share a well-known name and are not the standard one.
_LIBRARY_MODULES = frozenset({"scipy.signal", "jax.scipy.signal", "cupyx.scipy.signal",
                              "torch.signal", "tensorflow.signal"})


def rooted(name: str, end: bool, own: str = "") -> str:
    """``name`` re-rooted at its last part after the first that names a :data:`WELL_KNOWN`
    module: ``timeit.gc.callbacks`` -> ``gc.callbacks``, ``a.b.sys.modules`` ->
    ``sys.modules``, ``from tracemalloc import pickle; pickle.loads`` -> ``pickle.loads``.

    Red team 37: the rules matched a dotted name from its first part only, so
    ``timeit.gc.callbacks``, ``timeit.sys.modules[k]`` and ``tracemalloc.pickle.loads(blob)``
    passed the bans on ``gc.callbacks``, ``sys.modules`` and ``pickle.loads``. Re-rooting here,
    in what :meth:`Names.resolve` returns, gives every rule that reads resolved names the
    module's own spelling at once. A part is not the module when it is the name's last part
    and ``end`` is false (the name is called, or imported to be judged where it is used:
    ``blinker.signal("booked")``, ``from blinker import signal``), when it ends a library's
    own module of that name (``scipy.signal``) or a module on the way to ``own``, the target's
    module (``mypkg.types`` stays the target's own, so the target rules still find it), or
    when it repeats a module part before it (``timeit.timeit``, ``socket.socket``: the
    module's own function or class; but ``mypkg.logging.logging`` of a target module
    ``mypkg.logging`` is the standard ``logging`` it imports). A relative import is re-rooted
    too: ``from .. import os`` is the real ``os`` when the package's ``__init__`` imports it.
    """
    parts = name.split(".")

    def module_at(i: int) -> bool:
        """``parts[i]`` is the root or a well-known module reached as an attribute."""
        if i == 0:
            return True
        prefix = ".".join(parts[: i + 1])
        return parts[i] in WELL_KNOWN and prefix not in _LIBRARY_MODULES and not (
            own == prefix or own.startswith(prefix + "."))

    for i in range(len(parts) - 1, 0, -1):
        if module_at(i) and (end or i < len(parts) - 1) and not (
                parts[i] == parts[i - 1] and module_at(i - 1)):
            return ".".join(parts[i:])
    return name


class Names:
    """Resolve expressions to dotted names through imports and simple aliases.

    ``import os as o; o._exit`` -> ``os._exit``; ``from pytest import mark;
    mark.skip`` -> ``pytest.mark.skip``; ``getattr(sys, "exit")`` -> ``sys.exit``;
    ``importlib.import_module("os")`` -> ``os``; ``x = os._exit; x`` -> ``os._exit``;
    ``timeit.sys.exit`` -> ``sys.exit`` (:func:`rooted`).
    Names bound locally (def, class, assignment of something unresolvable) that
    shadow a builtin resolve to nothing, so a local ``def exit()`` is not a hit.
    ``own`` is the target's module, never re-rooted.
    """

    def __init__(self, tree: ast.Module, own: str = "") -> None:
        self.own = own
        #: The nodes called (``f`` of ``f()``): a well-known name last in them is no module.
        self.called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        self.imports: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.local: set[str] = set()
        #: Every plain assignment ``name = expr`` in the file, for path expansion.
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.imports[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.imports[top] = top
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                for a in node.names:
                    full = f"{base}.{a.name}" if base and not base.endswith(".") else base + a.name
                    self.imports[a.asname or a.name] = full
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.local.add(node.name)
            elif isinstance(node, ast.arg):
                self.local.add(node.arg)
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
        for _ in range(3):  # aliases of aliases
            for name, values in self.assigned.items():
                resolved = [self.resolve(v) for v in values]
                if len(values) == 1 and resolved[0] is not None and name not in self.imports:
                    self.aliases[name] = resolved[0]
        for name in self.assigned:
            if name not in self.aliases:
                self.local.add(name)

    def resolve(self, node: ast.AST | None) -> str | None:
        """The dotted name ``node`` refers to, or None when it is not a plain reference."""
        name = self._resolve(node)
        return rooted(name, id(node) not in self.called, self.own) if name else name

    def _resolve(self, node: ast.AST | None) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.imports:
                return self.imports[node.id]
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in self.local:
                return None
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Subscript):
            return self._item(node.value, const_str(node.slice))
        if isinstance(node, ast.Call):
            func = self.resolve(node.func)
            if func in ("getattr", "builtins.getattr") and len(node.args) >= 2:
                base, attr = self.resolve(node.args[0]), const_str(node.args[1])
                return f"{base}.{attr}" if base and attr else None
            if func in ("__import__", "importlib.import_module", "builtins.__import__") and (
                node.args
            ):
                return const_str(node.args[0])
        return None

    def _item(self, mapping: ast.expr, key: str | None) -> str | None:
        """``sys.modules["os"]`` -> ``os``; ``vars(os)["_exit"]``, ``os.__dict__["_exit"]`` ->
        ``os._exit``; ``globals()["name"]`` -> what ``name`` is. A computed key is None."""
        if key is None:
            return None
        if self.resolve(mapping) == "sys.modules":
            return key
        if isinstance(mapping, ast.Attribute) and mapping.attr == "__dict__":
            base = self.resolve(mapping.value)
            return f"{base}.{key}" if base else None
        if isinstance(mapping, ast.Call):
            func = (self.resolve(mapping.func) or "").removeprefix("builtins.")
            if func == "vars" and len(mapping.args) == 1:
                base = self.resolve(mapping.args[0])
                return f"{base}.{key}" if base else None
            if func == "globals" and not mapping.args and key.isidentifier():
                return self.resolve(ast.Name(id=key, ctx=ast.Load()))
        return None


#: Fixtures and factories whose paths are the test's own scratch space.
_TMP_ROOTS = frozenset({"tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory"})


def expand(node: ast.expr, names: Names, depth: int = 3) -> list[ast.AST]:
    """``node`` and, through simple assignments, what its names were bound to."""
    out: list[ast.AST] = []
    for sub_node in ast.walk(node):
        out.append(sub_node)
        if depth and isinstance(sub_node, ast.Name) and sub_node.id in names.assigned:
            for value in names.assigned[sub_node.id]:
                out += expand(value, names, depth - 1)
    return out


def folded_strings(nodes: list[ast.AST]) -> list[str]:
    """String constants, with literal ``"a" + "b"`` concatenations folded."""
    out = []
    for n in nodes:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.append(n.value)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            value = const_str(n)
            if value is not None:
                out.append(value)
    return out


def in_tmp(nodes: list[ast.AST], names: Names) -> bool:
    """A path (given as its :func:`expand` nodes) rooted in the test's own temp dir.

    ``tmp_path / "x.py"`` is the test's scratch space; with a ``..`` or an
    absolute piece it may point anywhere, so it is not.
    """
    texts = folded_strings(nodes)
    if any(".." in t or t.startswith(("/", "~")) for t in texts):
        return False
    return any(isinstance(n, ast.Name) and n.id in _TMP_ROOTS for n in nodes) or any(
        isinstance(n, ast.Call) and (names.resolve(n.func) or "").startswith("tempfile.")
        for n in nodes)


def const_str(node: ast.AST | None) -> str | None:
    """A string literal, with ``"a" + "b"`` folded (a split name is still the name)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        # ast.literal_eval folds only numbers, so the pieces are folded here
        left, right = const_str(node.left), const_str(node.right)
        return left + right if left is not None and right is not None else None
    return None


def truthiness(node: ast.AST) -> bool | None:
    """True/False when ``node`` is a constant-truth expression, else None (unknown)."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return True if len(node.elts) > 1 else None
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return True if node.keys else None if node.values else False
    if isinstance(node, ast.JoinedStr):
        literal = "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
        return True if literal else None
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truthiness(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [truthiness(v) for v in node.values]
        if isinstance(node.op, ast.Or):
            return True if True in values else False if all(v is False for v in values) else None
        return False if False in values else True if all(v is True for v in values) else None
    if isinstance(node, ast.IfExp):
        test = truthiness(node.test)
        if test is not None:
            return truthiness(node.body if test else node.orelse)
        both = {truthiness(node.body), truthiness(node.orelse)}
        return both.pop() if len(both) == 1 else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and (
        node.func.id in ("all", "any") and not node.keywords
    ):
        if truthiness(node.args[0]) is False:  # all([]) is True, any([]) is False
            return node.func.id == "all"
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _literal_compare(node)
    return None


# The operands are whatever ``ast.literal_eval`` returns, so they are typed ``Any`` on purpose:
# an unorderable or non-container pair raises TypeError, which ``_literal_compare`` turns into
# "unknown". A narrower type would only move that run-time check into a cast.
_OPS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}


def _literal_compare(node: ast.Compare) -> bool | None:
    try:
        left = ast.literal_eval(node.left)
        right = ast.literal_eval(node.comparators[0])
        return bool(_OPS[type(node.ops[0])](left, right))
    except Exception:  # not literals, or an unorderable pair: unknown
        return None


_Func = ast.FunctionDef | ast.AsyncFunctionDef


def decorator_name(deco: ast.expr, names: Names) -> str | None:
    """What a decorator resolves to; ``fx = pytest.fixture(scope=...)`` then ``@fx`` too."""
    target = deco.func if isinstance(deco, ast.Call) else deco
    name = names.resolve(target)
    if name is None and isinstance(target, ast.Name):
        values = names.assigned.get(target.id, [])
        if len(values) == 1 and isinstance(values[0], ast.Call):
            name = names.resolve(values[0].func)
    return name


def is_fixture(func: _Func, names: Names) -> bool:
    """Decorated as a fixture: ``pytest.fixture``, ``fixture``, ``pytest.fixture(...)``, aliases.

    Only names that resolve outside the file count (``pytest.fixture``,
    ``pytest_asyncio.fixture``); a decorator the file defines itself is no fixture,
    whatever its name.
    """
    for deco in func.decorator_list:
        name = decorator_name(deco, names) or ""
        if name.rsplit(".", 1)[-1].endswith("fixture") and not name.startswith("pytest.mark."):
            return True
    return False


