"""Stage 5, mutation: mutants of the target function and the fork loop that runs them.

Two halves. :func:`generate` is pure: from the module's source it makes the
null mutant, the extreme mutants (body -> trivial return) and a capped,
deterministic selection of classic mutants, each as a *code object* for the
target function. :func:`run_stage` runs inside the harness's pytest session
(after the measured run and the reruns, so collection and imports are paid
once): per mutant it forks, swaps ``func.__code__`` in the child, runs the
collected items quietly and reports killed/survived through a pipe.

Why code objects: swapping ``__code__`` keeps the function object, so a test
that did ``from m import f`` runs the mutant without re-importing anything
(see docs/mutation.md for the measurements behind this design).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import hashlib
import json
import math
import os
import select
import signal
import symtable
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Generated",
    "Mutant",
    "MutationError",
    "fingerprint",
    "generate",
    "run_stage",
    "zero_literal",
]

#: Verdicts of one mutant run.
KILLED, SURVIVED, TIMEOUT, CRASHED, ERROR = "killed", "survived", "timeout", "crashed", "error"
DEAD = frozenset({KILLED, TIMEOUT, CRASHED})

#: Zero values for the types a function was seen returning (exact types only:
#: a subclass such as an ``enum.StrEnum`` has no obvious "zero").
_ZEROS: dict[str, str] = {
    "int": "0", "float": "0.0", "complex": "0j", "str": "''", "bytes": "b''", "bool": "False",
    "list": "[]", "dict": "{}", "tuple": "()", "set": "set()", "frozenset": "frozenset()",
}
#: Operator swaps. Each entry is what the brief asks for; the reverse swaps keep
#: the set symmetric so ``<=`` in the source is challenged just like ``<``.
_CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_BIN_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
}
_BOOL_SWAP: dict[type[ast.boolop], type[ast.boolop]] = {ast.And: ast.Or, ast.Or: ast.And}
#: Within one line, the operators most likely to reveal a weak test come first.
_PRIORITY = {"compare": 0, "boolop": 1, "negate": 2, "binop": 3, "return": 4, "bool": 5,
             "number": 6}
_SNIPPET = 60


class MutationError(Exception):
    """The machinery cannot mutate this target (source and function disagree, no code found)."""


@dataclass(frozen=True)
class Mutant:
    """One variant of the target function, ready to be swapped into ``func.__code__``."""

    kind: str  # "null", "extreme" or "classic"
    line: int
    description: str
    code: types.CodeType = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "description": self.description}


@dataclass
class Generated:
    """Everything :func:`generate` made, and how many candidates it dropped and why."""

    null: Mutant
    extreme: list[Mutant]
    classic: list[Mutant]
    candidates: int = 0
    #: Candidates dropped because their bytecode equals the original or an earlier mutant.
    equivalent: int = 0
    #: Of those, extreme mutants equal to the original: its body is already trivial.
    extreme_equivalent: int = 0
    incompatible: int = 0


# ------------------------------------------------------------------ fingerprints
def fingerprint(code: types.CodeType) -> str:
    """A digest of what a code object *does*: bytecode, constants, names; not line numbers.

    Two mutants with the same fingerprint behave the same (Trivial Compiler
    Equivalence), so running both wastes time and counting both skews the score.
    """
    digest = hashlib.sha256()
    _feed(digest, code)
    return digest.hexdigest()


def _feed(digest: Any, code: types.CodeType) -> None:
    digest.update(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                        code.co_flags, code.co_argcount, code.co_kwonlyargcount)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            digest.update(b"<code>")
            _feed(digest, const)
        else:  # type + repr: 1, 1.0 and True are equal as dict keys, not as behaviour
            digest.update(f"{type(const).__qualname__}:{const!r};".encode())


def find_code(module_code: types.CodeType, name: str, firstlineno: int) -> types.CodeType | None:
    """The code object of the function ``name`` defined at ``firstlineno``, at any depth."""
    for const in module_code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == firstlineno:
                return const
            found = find_code(const, name, firstlineno)
            if found is not None:
                return found
    return None


def zero_literal(type_name: str) -> str | None:
    """The zero value's source text for an observed return type name, if it has one."""
    return _ZEROS.get(type_name)


# -------------------------------------------------------------------- the skeleton
_Func = ast.FunctionDef | ast.AsyncFunctionDef


def _skeleton(tree: ast.Module, def_line: int,
              bindings: Sequence[ast.stmt] = ()) -> tuple[ast.Module, _Func]:
    """A module holding only what the target's compilation depends on.

    Class siblings never change how a method compiles (class scopes are
    invisible to methods), and module siblings' *code* never does either, so
    both are dropped to keep each mutant's compile cheap. What a module-level
    name is bound by does matter: CPython 3.11 compiles ``re.sub(...)`` as
    ``LOAD_ATTR`` when ``re`` comes from a module-level import and as
    ``LOAD_METHOD`` otherwise. ``bindings`` (from :func:`_module_bindings`)
    restore those names. ``__future__`` imports stay (they change the
    bytecode), and an enclosing *function* is kept whole because its locals
    decide the target's free variables (closures).
    """
    futures = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]

    def search(body: list[ast.stmt]) -> tuple[list[ast.stmt], _Func] | None:
        for node in body:
            if isinstance(node, _Func) and node.lineno == def_line:
                return [node], node
            if not (node.lineno <= def_line <= (node.end_lineno or node.lineno)):
                continue
            if isinstance(node, ast.ClassDef):
                inner = search(node.body)
                if inner is not None:
                    shell = copy.copy(node)
                    shell.body = inner[0]
                    return [shell], inner[1]
            elif isinstance(node, _Func):
                target = next((n for n in ast.walk(node) if isinstance(n, _Func)
                               and n.lineno == def_line), None)
                if target is not None:
                    return [node], target
            else:  # if/try at module or class level: keep the statement, prune nothing inside
                target = next((n for n in ast.walk(node) if isinstance(n, _Func)
                               and n.lineno == def_line), None)
                if target is not None:
                    return [node], target
        return None

    found = search(tree.body)
    if found is None:
        raise MutationError(f"no function is defined at line {def_line}")
    module = ast.Module(body=[*futures, *bindings, *found[0]], type_ignores=[])
    return module, found[1]


def _module_bindings(source: str, filename: str) -> list[ast.stmt]:
    """Statements that bind every module-level name the way the real module binds it.

    The compiler's symbol table of the real module says, per global name,
    whether an import binds it (anywhere at module level: inside ``if`` and
    ``try`` too) and whether an assignment, ``def`` or ``class`` does. The
    skeleton gets ``import name`` and ``name = None`` for those: they are
    compiled, never executed, so a module that is not installed costs nothing,
    and the flags the compiler consults are the real module's.
    """
    table = symtable.symtable(source, filename, "exec")
    imported = [s.get_name() for s in table.get_symbols() if s.is_imported()]
    assigned = [s.get_name() for s in table.get_symbols() if s.is_assigned()]
    out: list[ast.stmt] = []
    if imported:
        out.append(ast.Import(names=[ast.alias(name=n) for n in imported]))
    if assigned:
        out.append(ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store()) for n in assigned],
                              value=ast.Constant(value=None)))
    for stmt in out:
        for node in ast.walk(stmt):
            node.lineno = node.end_lineno = 1  # type: ignore[attr-defined]
            node.col_offset = node.end_col_offset = 0  # type: ignore[attr-defined]
    return out


# ---------------------------------------------------------------- the candidates
@dataclass
class _Candidate:
    line: int
    col: int
    op: str
    before: str
    after: str
    apply: Callable[[], Callable[[], None]]

    @property
    def description(self) -> str:
        return f"'{_clip(self.before)}' -> '{_clip(self.after)}'"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 3] + "..."


def _setter(obj: Any, attr: str, value: Any) -> Callable[[], Callable[[], None]]:
    """An apply() that sets ``obj.attr`` (or ``obj[attr]``) and returns the undo."""

    def apply() -> Callable[[], None]:
        if isinstance(attr, int):
            old = obj[attr]
            obj[attr] = value

            def undo_item() -> None:
                obj[attr] = old

            return undo_item
        old = getattr(obj, attr)
        setattr(obj, attr, value)

        def undo() -> None:
            setattr(obj, attr, old)

        return undo

    return apply


def _unparse_with(node: ast.AST, attr: str | int, value: Any, holder: Any = None) -> str:
    """Source of ``node`` as it reads with one field changed (the fact's "after" text)."""
    apply = _setter(holder if holder is not None else node, attr, value)
    undo = apply()
    try:
        return ast.unparse(node)
    finally:
        undo()


def _candidates(func: _Func, covered: set[int] | None) -> list[_Candidate]:
    """Every classic mutation on the covered lines of ``func`` (nested functions included)."""
    out: list[_Candidate] = []
    parents: dict[int, ast.AST] = {}
    skip: set[int] = set()
    for node in ast.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        # Annotations and decorators are not behaviour worth testing here.
        for name in ("annotation", "returns"):
            sub = getattr(node, name, None)
            if sub is not None:
                skip.update(id(n) for n in ast.walk(sub))
        if isinstance(node, _Func | ast.ClassDef):
            for dec in node.decorator_list:
                skip.update(id(n) for n in ast.walk(dec))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Constant))
    body_nodes = [n for stmt in func.body for n in ast.walk(stmt)]
    if body_nodes and _is_docstring(func.body[0]):
        skip.update(id(n) for n in ast.walk(func.body[0]))

    def add(node: ast.AST, op: str, before: str, after: str,
            apply: Callable[[], Callable[[], None]]) -> None:
        line = getattr(node, "lineno", None)
        if line is None or (covered is not None and line not in covered):
            return
        out.append(_Candidate(line, getattr(node, "col_offset", 0), op, before, after, apply))

    for node in body_nodes:
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for index, cmp in enumerate(node.ops):
                swap = _CMP_SWAP.get(type(cmp))
                if swap is not None:
                    new = swap()
                    add(node, "compare", ast.unparse(node),
                        _unparse_with(node, index, new, node.ops), _setter(node.ops, index, new))
        elif isinstance(node, ast.BinOp | ast.AugAssign):
            swap = _BIN_SWAP.get(type(node.op))
            if swap is not None:
                new = swap()
                add(node, "binop", ast.unparse(node), _unparse_with(node, "op", new),
                    _setter(node, "op", new))
        elif isinstance(node, ast.BoolOp):
            new = _BOOL_SWAP[type(node.op)]()
            add(node, "boolop", ast.unparse(node), _unparse_with(node, "op", new),
                _setter(node, "op", new))
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            negated = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=node.test), node.test)
            keyword = {ast.If: "if ", ast.While: "while "}.get(type(node), "")
            add(node.test, "negate", keyword + ast.unparse(node.test),
                keyword + ast.unparse(negated), _setter(node, "test", negated))
        elif isinstance(node, ast.Return):
            if node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None
            ):
                none = ast.copy_location(ast.Constant(value=None), node.value)
                add(node, "return", ast.unparse(node), "return None",
                    _setter(node, "value", none))
        elif isinstance(node, ast.Constant):
            value = node.value
            context = parents.get(id(node), node)
            if not isinstance(context, ast.expr):
                context = node
            if isinstance(value, bool):
                add(node, "bool", ast.unparse(context),
                    _unparse_with(context, "value", not value, node), _setter(node, "value",
                                                                              not value))
            elif isinstance(value, int | float) and math.isfinite(value):
                for delta in (1, -1):
                    new_value = value + delta
                    if isinstance(value, float):  # 0.8 - 1 reads -0.2, not -0.19999999999999996
                        new_value = round(new_value, 12)
                    add(node, "number", ast.unparse(context),
                        _unparse_with(context, "value", new_value, node),
                        _setter(node, "value", new_value))
    return out


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _spread(count: int) -> list[int]:
    """0..count-1 in an order that keeps every prefix spread over the range.

    Bit-reversal order (van der Corput): 0, n/2, n/4, 3n/4, ... A cap then
    samples the whole function, not only its first lines.
    """
    if count <= 1:
        return list(range(count))
    bits = max(1, (count - 1).bit_length())
    order = []
    for i in range(1 << bits):
        rev = int(format(i, f"0{bits}b")[::-1], 2)
        if rev < count:
            order.append(rev)
    return order


def _ordered(candidates: list[_Candidate]) -> list[_Candidate]:
    """Round-robin over lines (spread order), each line's candidates by operator priority."""
    by_line: dict[int, list[_Candidate]] = {}
    for cand in candidates:
        by_line.setdefault(cand.line, []).append(cand)
    lines = sorted(by_line)
    for line in lines:
        by_line[line].sort(key=lambda c: (_PRIORITY[c.op], c.col, c.before, c.after))
    line_order = [lines[i] for i in _spread(len(lines))]
    out: list[_Candidate] = []
    depth = 0
    while len(out) < len(candidates):
        for line in line_order:
            if depth < len(by_line[line]):
                out.append(by_line[line][depth])
        depth += 1
    return out


# ------------------------------------------------------------------- generation
def generate(
    source: str,
    filename: str,
    def_line: int,
    *,
    covered: set[int] | None = None,
    max_mutants: int = 20,
    zero_types: Sequence[str] = (),
    original: types.CodeType | None = None,
) -> Generated:
    """Make the null, extreme and (at most ``max_mutants``) classic mutants of one function.

    ``covered`` limits classic mutants to executed lines (None: every line).
    ``zero_types`` are type names the function was seen returning; each with
    a zero value adds an extreme mutant. ``original`` is the live function's
    code: the null mutant must match it, or the source is not what runs and
    every mutant would be a lie (:class:`MutationError`). Deterministic: the
    same arguments give the same mutants in the same order.
    """
    tree = ast.parse(source, filename=filename)
    module, func = _skeleton(tree, def_line, _module_bindings(source, filename))
    first = min([func.lineno] + [d.lineno for d in func.decorator_list])

    def build() -> types.CodeType | None:
        module_code = compile(module, filename, "exec", dont_inherit=True)
        return find_code(module_code, func.name, first)

    null_code = build()
    if null_code is None:
        raise MutationError(f"no code object for {func.name} at line {first}")
    if original is not None and fingerprint(null_code) != fingerprint(original):
        raise MutationError(
            f"{func.name} as compiled from {filename} differs from the function that runs "
            "(generated or rewritten code)"
        )
    reference = original or null_code
    unchanged = fingerprint(reference)
    seen = {unchanged}
    result = Generated(null=_null_mutant(func, build), extreme=[], classic=[])

    def accept(kind: str, line: int, description: str) -> Mutant | None:
        code = build()
        if code is not None and code.co_freevars != reference.co_freevars:
            code = _keeping_freevars(func, reference.co_freevars, build)
        if code is None or code.co_freevars != reference.co_freevars:
            result.incompatible += 1
            return None
        digest = fingerprint(code)
        if digest in seen:
            result.equivalent += 1
            if kind == "extreme" and digest == unchanged:  # `noop`: nothing to take away
                result.extreme_equivalent += 1
            return None
        seen.add(digest)
        return Mutant(kind, line, description, code)

    doc = func.body[:1] if _is_docstring(func.body[0]) else []
    for body, text in _extreme_bodies(func, zero_types):
        old = func.body
        try:
            if doc and _same_as(func, [*doc, *body], build, unchanged):
                result.equivalent += 1
                result.extreme_equivalent += 1
                continue
            func.body = body
            mutant = accept("extreme", func.lineno, f"body replaced by `{text}`")
        finally:
            func.body = old
        if mutant is not None:
            result.extreme.append(mutant)

    candidates = _ordered(_candidates(func, covered))
    result.candidates = len(candidates)
    for cand in candidates:
        if len(result.classic) >= max_mutants:
            break
        undo = cand.apply()
        try:
            ast.fix_missing_locations(module)
            mutant = accept("classic", cand.line, cand.description)
        finally:
            undo()
        if mutant is not None:
            result.classic.append(mutant)
    return result


def _same_as(func: _Func, body: list[ast.stmt], build: Callable[[], types.CodeType | None],
             digest: str) -> bool:
    """Does ``func`` with this body compile to ``digest`` (the original's fingerprint)?

    An extreme mutant drops the docstring, which is a constant of the code
    object, so a docstring plus ``return None`` (``boltons.funcutils.noop``)
    never fingerprints equal to its own ``return None`` mutant. Asked with the
    docstring kept, the answer is "the body already is trivial": that mutant
    cannot be killed and proves nothing, so it is dropped, not "survived".
    """
    old = func.body
    func.body = body
    try:
        code = build()
    finally:
        func.body = old
    return code is not None and fingerprint(code) == digest


def _keeping_freevars(func: _Func, names: tuple[str, ...],
                      build: Callable[[], types.CodeType | None]) -> types.CodeType | None:
    """Rebuild with ``if False: (k, ...)`` so a mutant still closes over the same cells.

    ``func.__code__`` only accepts code with the function's free variables, in
    order. A mutant that stopped reading one (``return x * k`` -> ``return
    None``) gets a dead reference: the compiler drops the branch but the
    symbol table keeps the names, so the closure cells line up again.
    """
    if not names:
        return None
    where = func.body[0]
    keeper = ast.parse(f"if False:\n    ({', '.join(names)},)").body[0]
    for node in ast.walk(keeper):
        node.lineno = node.end_lineno = where.lineno  # type: ignore[attr-defined]
        node.col_offset = node.end_col_offset = where.col_offset  # type: ignore[attr-defined]
    start = 1 if _is_docstring(where) and len(func.body) > 1 else 0
    func.body.insert(start, keeper)
    try:
        return build()
    finally:
        func.body.pop(start)


def _null_mutant(func: _Func, build: Callable[[], types.CodeType | None]) -> Mutant:
    """The original behaviour in a code object that is neither identical nor equal to it.

    A dead store to a fresh local changes the bytecode, the names and the
    constants' neighbourhood the way a real mutant does, and nothing a caller
    can observe. A test that "kills" it compares code objects, not results.
    """
    marker = ast.parse("__pytest_quest_null__ = None").body[0]
    start = 1 if _is_docstring(func.body[0]) and len(func.body) > 1 else 0
    anchor = func.body[start]
    for node in ast.walk(marker):
        node.lineno = node.end_lineno = anchor.lineno  # type: ignore[attr-defined]
        node.col_offset = node.end_col_offset = anchor.col_offset  # type: ignore[attr-defined]
    func.body.insert(start, marker)
    try:
        code = build()
    finally:
        func.body.pop(start)
    if code is None:  # pragma: no cover - build() found the same function a moment ago
        raise MutationError(f"no code object for the null mutant of {func.name}")
    return Mutant("null", func.lineno, "unchanged behaviour (null mutant)", code)


def _extreme_bodies(func: _Func, zero_types: Sequence[str]) -> Iterator[tuple[list[ast.stmt], str]]:
    """Trivial bodies: ``return None``, then a zero of each observed type (not generators)."""
    where = {"lineno": func.body[0].lineno, "col_offset": func.body[0].col_offset}

    def located(stmts: list[ast.stmt]) -> list[ast.stmt]:
        for stmt in stmts:
            for node in ast.walk(stmt):
                node.lineno = node.end_lineno = where["lineno"]  # type: ignore[attr-defined]
                node.col_offset = node.end_col_offset = where["col_offset"]  # type: ignore[attr-defined]
        return stmts

    generator = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(func))
    if generator:
        # ``return`` then an unreachable ``yield``: still a generator, yields nothing.
        yield located(ast.parse("return\nyield").body), "return; yield (empty generator)"
        return
    yield located([ast.Return(value=ast.Constant(value=None))]), "return None"
    if isinstance(func, ast.AsyncFunctionDef):
        return
    done: set[str] = set()
    for name in zero_types:
        literal = zero_literal(name)
        if literal is None or literal in done:
            continue
        done.add(literal)
        yield located(ast.parse(f"return {literal}").body), f"return {literal}"


def _own_nodes(func: _Func) -> Iterator[ast.AST]:
    """Nodes of ``func`` itself, not of nested functions, lambdas or classes."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _Func | ast.Lambda | ast.ClassDef):
                stack.append(child)


# ----------------------------------------------------------------------- running
@dataclass
class Outcome:
    """How one mutant fared."""

    verdict: str
    by: str | None = None
    seconds: float = 0.0
    types: list[str] = field(default_factory=list)
    error: str | None = None
    #: Calls of the target while the tests ran (recorded runs only; None: not known).
    calls: int | None = None


class _Target:
    """The live function and the knobs a mutant run turns on it."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.func = session.original
        self.code: types.CodeType = session.original_code

    def caches(self) -> list[Any]:
        """``functools.lru_cache`` wrappers around the target: stale results hide mutants."""
        found = []
        target = self.session.target
        owner: Any = sys.modules.get(target["module"])
        for part in target["owner"]:
            owner = getattr(owner, part, None)
        holder = getattr(owner, "__dict__", None)
        value = holder.get(target["name"]) if holder is not None else None
        value = getattr(value, "__func__", value)
        for _ in range(20):
            if value is None:
                break
            if callable(getattr(value, "cache_clear", None)):
                found.append(value)
            value = getattr(value, "__wrapped__", None)
        return found

    @contextlib.contextmanager
    def swapped(self, code: types.CodeType) -> Iterator[None]:
        self.func.__code__ = code
        for cache in self.caches():
            cache.cache_clear()
        try:
            yield
        finally:
            self.func.__code__ = self.code
            for cache in self.caches():
                cache.cache_clear()


def _run_items(items: Sequence[Any],
               record: types.CodeType | None = None) -> tuple[str | None, list[str], int | None]:
    """Run the collected items quietly: the first failing nodeid (or None), returned types, calls.

    ``record``: watch that code object with a profile hook (the baseline run).
    Its returns tell which zero value to try; its calls tell whether the tests
    run the target at all. Zero calls while coverage says every line ran means
    the body ran only while modules were imported (``x = make()`` at module or
    class level): no mutant swapped in afterwards can reach it. The count is
    None when it cannot be trusted (something replaced the hook meanwhile).
    """
    import threading

    from _pytest.runner import runtestprotocol

    seen: list[str] = []
    calls = 0

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if frame.f_code is not record:
            return
        if event == "call":
            calls += 1
        elif event == "return" and arg is not None:
            # An exception also ends a frame with a None "return": None says nothing here.
            name = type(arg).__name__ if type(arg).__module__ == "builtins" else "?"
            if name not in seen and len(seen) < 8:
                seen.append(name)

    def counted() -> int | None:
        return calls if sys.getprofile() is profile else None

    if record is not None:
        sys.setprofile(profile)
        threading.setprofile(profile)  # threads the tests start count too
    try:
        with _cheap_failures(items):
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                reports = runtestprotocol(item, nextitem=following, log=False)
                if any(r.failed for r in reports):
                    return item.nodeid, seen, counted()
        return None, seen, counted()
    finally:
        if record is not None:
            sys.setprofile(None)
            threading.setprofile(None)


def _short_failure(*_args: Any, **_kwargs: Any) -> str:
    return "failed under a mutant"


@contextlib.contextmanager
def _cheap_failures(items: Sequence[Any]) -> Iterator[None]:
    """Skip pytest's traceback formatting: only "failed or not" matters for a mutant.

    Formatting a failure costs about twice a whole small test (notes/mutation.md),
    and most mutants fail, so it is replaced on the item instances while they run.
    """
    patched = []
    for item in items:
        if "repr_failure" in vars(item) or "_repr_failure_py" in vars(item):
            continue
        item.repr_failure = _short_failure
        item._repr_failure_py = _short_failure
        patched.append(item)
    try:
        yield
    finally:
        for item in patched:
            del item.repr_failure
            del item._repr_failure_py


class ForkRunner:
    """One forked child per mutant: nothing a mutant does can leak into the next one."""

    mode = "fork"

    def __init__(self, session: Any, items: Sequence[Any], target: _Target) -> None:
        self.session = session
        self.items = items
        self.target = target

    def run(self, code: types.CodeType, timeout: float, record: bool = False) -> Outcome:
        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        started = time.monotonic()
        guard = self.session.guard
        with guard.trusted() if guard is not None else contextlib.nullcontext():
            pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, reported through the pipe
            os.close(read)
            self._child(write, code, timeout, record)
        os.close(write)
        chunks: list[bytes] = []
        deadline = started + timeout
        timed_out = False
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([read], [], [], left)
                if not ready:
                    continue
                chunk = os.read(read, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(read)
            if timed_out:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        seconds = time.monotonic() - started
        if timed_out:
            return Outcome(TIMEOUT, seconds=seconds)
        try:
            data = json.loads(b"".join(chunks).decode("utf-8"))
        except ValueError:  # the child died before it could answer: the mutant crashed it
            return Outcome(CRASHED, seconds=seconds)
        if data.get("error"):
            return Outcome(ERROR, seconds=seconds, error=data["error"])
        verdict = KILLED if data.get("by") else SURVIVED
        return Outcome(verdict, by=data.get("by"), seconds=seconds, types=data.get("types", []),
                       calls=data.get("calls"))

    def _child(self, write: int, code: types.CodeType, timeout: float, record: bool) -> None:
        """Runs in the fork: silence the parent's channels, arm backstops, run, answer, exit."""
        answer: dict[str, Any] = {}
        try:
            # Events belong to the parent's run; a mutant's "denied" or
            # "target_replaced" must not reach the events file.
            self.session.emit = _quiet
            self.session.original = None
            if self.session.guard is not None:
                self.session.guard.emit = _quiet
            _backstops(timeout)
            self.target.func.__code__ = code
        except BaseException as exc:  # the machinery failed, not the test: not a kill
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        else:
            try:
                with self.target.swapped(code):
                    by, seen, calls = _run_items(self.items, code if record else None)
                answer = {"by": by, "types": seen, "calls": calls if record else None}
            except BaseException as exc:  # pytest.exit(), errors outside a test: it died
                answer = {"by": f"<{type(exc).__name__}>"}
        try:
            os.write(write, json.dumps(answer).encode("utf-8"))
        finally:
            if self.session.guard is not None:
                # Test code is over; exit hooks (a coverage collector measuring
                # pytest-quest itself) may write their data.
                self.session.guard.paused = True
            os._exit(0)


def _quiet(*_args: Any, **_kwargs: Any) -> None:
    """An emitter that drops events (mutant children and in-process mutants)."""


def _backstops(timeout: float) -> None:
    """In a child: die on its own if the parent's SIGKILL never comes (CPU and wall clock)."""
    with contextlib.suppress(Exception):
        import resource

        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        want = math.ceil(timeout) + 1
        if hard == resource.RLIM_INFINITY or want < hard:
            resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    with contextlib.suppress(Exception):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, timeout + 1.0)


class _MutantTimeout(BaseException):
    """Raised into an in-process mutant that ran past its time."""


class InProcessRunner:
    """Fallback without ``os.fork``: swap, run, restore, one mutant after another.

    Weaker isolation (a mutant can leave module state behind), so it is only
    used where fork does not exist. A looping mutant is stopped by SIGALRM
    where available, else by a trace function that checks a deadline.
    """

    mode = "inprocess"

    def __init__(self, session: Any, items: Sequence[Any], target: _Target) -> None:
        self.session = session
        self.items = items
        self.target = target

    def run(self, code: types.CodeType, timeout: float, record: bool = False) -> Outcome:
        session = self.session
        guard = session.guard
        saved = (session.emit, session.original, getattr(guard, "emit", None),
                 list(getattr(guard, "denied", [])))
        session.emit, session.original = _quiet, None
        if guard is not None:
            guard.emit = _quiet
        started = time.monotonic()
        try:
            with self.target.swapped(code), _deadline(timeout):
                by, seen, calls = _run_items(self.items, code if record else None)
        except _MutantTimeout:
            return Outcome(TIMEOUT, seconds=time.monotonic() - started)
        finally:
            # Stopping at the first failure leaves fixtures set up: the next run needs them gone.
            with contextlib.suppress(Exception):
                self.items[0].session._setupstate.teardown_exact(None)
            session.emit, session.original = saved[0], saved[1]
            if guard is not None:
                guard.emit = saved[2]
                guard.denied[:] = saved[3]
        seconds = time.monotonic() - started
        if by is not None and seconds > timeout:
            return Outcome(TIMEOUT, by=by, seconds=seconds)
        return Outcome(KILLED if by else SURVIVED, by=by, seconds=seconds, types=seen,
                       calls=calls if record else None)


@contextlib.contextmanager
def _deadline(timeout: float) -> Iterator[None]:
    """Raise :class:`_MutantTimeout` into the running code after ``timeout`` seconds."""
    end = time.monotonic() + timeout

    def fire(*_args: Any) -> None:
        raise _MutantTimeout()

    if hasattr(signal, "setitimer"):
        previous = signal.signal(signal.SIGALRM, fire)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return

    def tracer(frame: types.FrameType, event: str, arg: Any) -> Any:  # pragma: no cover
        if time.monotonic() > end:
            raise _MutantTimeout()
        return tracer

    sys.settrace(tracer)  # pragma: no cover - platforms without SIGALRM
    try:  # pragma: no cover
        yield
    finally:  # pragma: no cover
        sys.settrace(None)


# ------------------------------------------------------------------- the stage
def _preconditions(session: Any, items: Sequence[Any]) -> str | None:
    """Why mutation must not run (a failing or flaky or partly covered test), or None."""
    from pytest_quest.measure import measure

    if not items:
        return "no tests were collected"
    if items[0].session.testsfailed:
        return "the measured run failed"
    if any(o != "passed" for o in getattr(session, "rerun_outcomes", [])):
        return "a rerun did not pass"
    if session.guard is not None and session.guard.denied:
        return "the test broke the sandbox rules"
    files = getattr(session, "measured_files", None)
    target = session.target
    if files is None:
        return "no coverage data for the target"
    result = measure(files.get(target["file"]), target["body"], bool(session.spec.get("branch")))
    if not result.statements:
        return "no coverage data for the target"
    if not result.complete:
        return "the target is not fully covered"
    return None


def _budget(session: Any, spec: dict[str, Any]) -> float:
    """Seconds the whole stage may take: inside the sandbox's grace for everything after round 1.

    The sandbox allows 2x the run timeout after the measured round; the
    harness's CPU limit is 4x the timeout + 10 s, so the timeout is recovered
    from it when the spec does not name a budget.
    """
    if spec.get("budget"):
        return float(spec["budget"])
    cpu = (session.spec.get("limits") or {}).get("cpu")
    timeout = (float(cpu) - 10) / 4 if cpu else 60.0
    return max(5.0, 1.5 * timeout)


def run_stage(session: Any, items: Sequence[Any], spec: dict[str, Any]) -> None:
    """Run the mutation stage and emit one ``mutation`` event; never raise.

    A failure of the machinery itself becomes an ``error`` in the event, which
    the rule turns into REVIEW: the gate must not FAIL a test for our fault.
    """
    started = time.monotonic()
    base: dict[str, Any] = {
        "threshold": float(spec.get("threshold", 0.6)),
        "max_mutants": int(spec.get("max_mutants", 20)),
    }
    try:
        reason = _preconditions(session, items)
        if reason is not None:
            session.emit("mutation", skipped=reason, **base)
            return
        data = _stage(session, items, spec, base, started)
    except Exception as exc:  # an internal fault is REVIEW, never a FAIL
        session.emit("mutation", error=f"{type(exc).__name__}: {exc}", **base,
                     seconds=round(time.monotonic() - started, 3))
        return
    session.emit("mutation", **data)


def _stage(session: Any, items: Sequence[Any], spec: dict[str, Any], base: dict[str, Any],
           started: float) -> dict[str, Any]:
    target = _Target(session)
    fork = hasattr(os, "fork") and spec.get("fork", True)
    runner: ForkRunner | InProcessRunner = (
        ForkRunner(session, items, target) if fork else InProcessRunner(session, items, target)
    )
    budget = _budget(session, spec)
    deadline = started + budget
    path = os.path.join(session.spec["sandbox"], session.target["file"])
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    filename = target.code.co_filename
    data: dict[str, Any] = {**base, "mode": runner.mode, "budget": round(budget, 1)}

    # Baseline: the original code, recording the types it returns. It is the
    # first run through the machinery, so a test failing here detects it.
    baseline = runner.run(target.code, timeout=budget / 3, record=True)
    if baseline.verdict == ERROR:
        raise MutationError(f"the baseline mutation run failed: {baseline.error}")
    if baseline.verdict != SURVIVED:
        unchanged = Mutant("null", session.target["lines"][0], "unchanged code (baseline run)",
                           target.code)
        data.update(null=_entry(unchanged, baseline), seconds=round(time.monotonic() - started, 3))
        return data
    data["zero_types"] = baseline.types
    data["calls"] = baseline.calls
    coverage = session.measured_files.get(session.target["file"], {})
    covered = set(coverage.get("executed_lines", ()))
    made = generate(source, filename, session.target["lines"][0], covered=covered,
                    max_mutants=base["max_mutants"], zero_types=baseline.types,
                    original=target.code)
    data.update(candidates=made.candidates, equivalent=made.equivalent,
                extreme_equivalent=made.extreme_equivalent, incompatible=made.incompatible)

    null = runner.run(made.null.code, timeout=max(1.0, 10 * baseline.seconds))
    if null.verdict == ERROR:
        raise MutationError(f"the null mutant could not be swapped in: {null.error}")
    clean = min(baseline.seconds, null.seconds)
    timeout = max(1.0, 10 * clean)
    data.update(clean_seconds=round(clean, 4), timeout=round(timeout, 3),
                null=_entry(made.null, null))
    if null.verdict != SURVIVED:
        data["seconds"] = round(time.monotonic() - started, 3)
        return data
    if baseline.calls == 0:
        # Covered, yet never called while the tests ran: it ran at import time, before
        # any swap. Every mutant would "survive" whatever the test asserts, so none is
        # run and the rule asks a human (the null mutant above still catches detectors).
        data.update(import_time_only=True, extreme=[], classic=[], not_run=0,
                    seconds=round(time.monotonic() - started, 3))
        return data

    def run_all(mutants: list[Mutant]) -> tuple[list[dict[str, Any]], int]:
        entries: list[dict[str, Any]] = []
        skipped = 0
        for mutant in mutants:
            if time.monotonic() + timeout > deadline:
                skipped += 1
                continue
            entries.append(_entry(mutant, runner.run(mutant.code, timeout)))
        return entries, skipped

    data["extreme"], not_run = run_all(made.extreme)
    data["classic"], classic_not_run = [], 0
    if all(e["outcome"] in DEAD for e in data["extreme"]) and not not_run:
        data["classic"], classic_not_run = run_all(made.classic)
    else:
        data["classic_skipped"] = "an extreme mutant survived"
    data["not_run"] = not_run + classic_not_run
    data["seconds"] = round(time.monotonic() - started, 3)
    return data


def _entry(mutant: Mutant, outcome: Outcome) -> dict[str, Any]:
    entry = {**mutant.to_dict(), "outcome": outcome.verdict, "ms": round(outcome.seconds * 1000, 1)}
    if outcome.by:
        entry["by"] = outcome.by
    if outcome.error:
        entry["error"] = outcome.error
    return entry
