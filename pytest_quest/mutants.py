"""Mutants of one function, from its module's source: pure, no pytest, no processes.

:func:`generate` makes the null mutant (the same behaviour in a different
code object), the extreme mutants (body -> trivial return) and a capped,
deterministic selection of classic mutants on the covered lines. Each mutant
is a *whole-module* code object: the pristine module's code with the target
function's code constant replaced, compiled with the module's real filename.
The harness installs it through its import hook before the target module or
the test module is imported, so anything computed at import or collection
time sees the mutant (docs/mutation.md). :mod:`pytest_quest.mutate` runs them.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import hashlib
import math
import symtable
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_quest.astext import unparse

__all__ = [
    "ZERO_TYPES",
    "Generated",
    "Mutant",
    "MutationError",
    "Probe",
    "Reach",
    "find_code",
    "fingerprint",
    "function_node",
    "generate",
    "null_probe",
    "reach_mutants",
    "splice",
    "zero_literal",
]

#: Zero values for the types a function was seen returning (exact types only:
#: a subclass such as an ``enum.StrEnum`` has no obvious "zero").
_ZEROS: dict[str, str] = {
    "int": "0", "float": "0.0", "complex": "0j", "str": "''", "bytes": "b''", "bool": "False",
    "list": "[]", "dict": "{}", "tuple": "()", "set": "set()", "frozenset": "frozenset()",
}
#: Every type with a zero value, for a run whose calls of the target were not heard.
ZERO_TYPES: tuple[str, ...] = tuple(_ZEROS)
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
    """One variant of the target function.

    ``code`` is the whole module with this variant in place (what the
    harness installs at import); ``function`` is the variant's own code
    object, for a module that was imported before the run could install
    anything (then it is swapped into ``func.__code__``).
    """

    #: "null", "classic", or one of the two extreme kinds: "extreme" replaces the whole body,
    #: "returns" only the values returned (the rest of the body kept). Both go in
    #: :attr:`Generated.extreme`; a surviving "returns" mutant is a person's call
    #: (:mod:`pytest_quest.rules.mutation`), a whole-body one a FAIL.
    kind: str
    line: int
    description: str
    code: types.CodeType = field(repr=False, compare=False)
    function: types.CodeType = field(repr=False, compare=False)

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


def splice(module_code: types.CodeType, old: types.CodeType,
           new: types.CodeType) -> types.CodeType:
    """``module_code`` with the constant ``old`` (at any depth) replaced by ``new``.

    Cheap next to compiling the whole mutated module again (a 2,700-line
    module compiles in tens of milliseconds), and exact: every other constant
    is the pristine module's own object.
    """
    consts = list(module_code.co_consts)
    changed = False
    for index, const in enumerate(consts):
        if const is old:
            consts[index] = new
            changed = True
        elif isinstance(const, types.CodeType):
            replaced = splice(const, old, new)
            if replaced is not const:
                consts[index] = replaced
                changed = True
    return module_code.replace(co_consts=tuple(consts)) if changed else module_code


def function_node(source: str, def_line: int) -> tuple[str, int]:
    """Name and first line (decorators included: ``co_firstlineno``) of the def at a line."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, _Func) and node.lineno == def_line:
            return node.name, min([node.lineno] + [d.lineno for d in node.decorator_list])
    raise MutationError(f"no function is defined at line {def_line}")


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
        _locate(stmt, 1, 0)
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


def _setter(obj: Any, attr: str | int, value: Any) -> Callable[[], Callable[[], None]]:
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
        return unparse(node)
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
                cmp_swap = _CMP_SWAP.get(type(cmp))
                if cmp_swap is not None:
                    new_cmp = cmp_swap()
                    add(node, "compare", unparse(node),
                        _unparse_with(node, index, new_cmp, node.ops),
                        _setter(node.ops, index, new_cmp))
        elif isinstance(node, ast.BinOp | ast.AugAssign):
            bin_swap = _BIN_SWAP.get(type(node.op))
            if bin_swap is not None:
                new_op = bin_swap()
                add(node, "binop", unparse(node), _unparse_with(node, "op", new_op),
                    _setter(node, "op", new_op))
        elif isinstance(node, ast.BoolOp):
            new_bool = _BOOL_SWAP[type(node.op)]()
            add(node, "boolop", unparse(node), _unparse_with(node, "op", new_bool),
                _setter(node, "op", new_bool))
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            negated = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=node.test), node.test)
            keywords: dict[type[ast.AST], str] = {ast.If: "if ", ast.While: "while "}
            keyword = keywords.get(type(node), "")
            add(node.test, "negate", keyword + unparse(node.test),
                keyword + unparse(negated), _setter(node, "test", negated))
        elif isinstance(node, ast.Return):
            if node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None
            ):
                none = ast.copy_location(ast.Constant(value=None), node.value)
                add(node, "return", unparse(node), "return None",
                    _setter(node, "value", none))
        elif isinstance(node, ast.Constant):
            value = node.value
            context = parents.get(id(node), node)
            if not isinstance(context, ast.expr):
                context = node
            if isinstance(value, bool):
                add(node, "bool", unparse(context),
                    _unparse_with(context, "value", not value, node), _setter(node, "value",
                                                                              not value))
            elif isinstance(value, int | float) and math.isfinite(value):
                for delta in (1, -1):
                    new_value = value + delta
                    if isinstance(value, float):  # 0.8 - 1 reads -0.2, not -0.19999999999999996
                        new_value = round(new_value, 12)
                    add(node, "number", unparse(context),
                        _unparse_with(context, "value", new_value, node),
                        _setter(node, "value", new_value))
    return out


#: The nodes that carry a source position (``ast.AST`` itself declares none).
_Located = (ast.expr | ast.stmt | ast.excepthandler | ast.arg | ast.keyword | ast.alias
            | ast.pattern)


def _locate(root: ast.AST, lineno: int, col_offset: int) -> None:
    """Put every node of a generated tree at one position: ``compile`` needs one on each,
    and a traceback through the mutant then points at the line the mutant replaces."""
    for node in ast.walk(root):
        if isinstance(node, _Located):
            node.lineno = node.end_lineno = lineno
            node.col_offset = node.end_col_offset = col_offset


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
@dataclass(frozen=True)
class _Target:
    """One function ready to mutate: its skeleton module and its pristine code object.

    Every kind of mutant edits ``func`` (a node of ``module``) in place and
    compiles the skeleton again: :meth:`build`.
    """

    module: ast.Module
    func: _Func
    first: int  #: the first line of the function's code (its first decorator)
    filename: str
    module_code: types.CodeType
    original: types.CodeType

    @classmethod
    def prepare(cls, source: str, filename: str, def_line: int,
                module_code: types.CodeType | None) -> _Target:
        """Parse, find the function at ``def_line`` and its code in ``module_code``.

        ``module_code`` defaults to ``source`` compiled here.
        """
        tree = ast.parse(source, filename=filename)
        module, func = _skeleton(tree, def_line, _module_bindings(source, filename))
        first = min([func.lineno] + [d.lineno for d in func.decorator_list])
        if module_code is None:
            module_code = compile(source, filename, "exec", dont_inherit=True)
        original = find_code(module_code, func.name, first)
        if original is None:
            raise MutationError(f"no code object for {func.name} at line {first}")
        return cls(module, func, first, filename, module_code, original)

    def build(self) -> types.CodeType | None:
        """The function's code as the skeleton, edited or not, compiles now."""
        compiled = compile(self.module, self.filename, "exec", dont_inherit=True)
        return find_code(compiled, self.func.name, self.first)

    def compile_reach(self, probe: Probe) -> types.CodeType | None:
        """:meth:`compile_mutant` with the null mutant's dead probe added where the null
        mutant has it (when ``probe`` knows the null mutant's shape): a reach mutant is the
        null mutant plus its live stop, alike in locals, and in when the local is bound."""
        if probe.shape is None:
            return self.compile_mutant()
        with _null_probe_in(self.func, probe):
            return _pad_stack(self.compile_mutant(), self.original)

    def compile_mutant(self) -> types.CodeType | None:
        """The edited function's code, closing over the original's cells; None if it cannot.

        ``func.__code__`` only takes code with the same free variables, in order.
        """
        names = self.original.co_freevars
        code = self.build()
        if code is not None and code.co_freevars != names:
            code = _keeping_freevars(self.func, names, self.build)
        if code is None or code.co_freevars != names:
            return None
        return code


def generate(
    source: str,
    filename: str,
    def_line: int,
    *,
    module_code: types.CodeType | None = None,
    covered: set[int] | None = None,
    max_mutants: int = 20,
    zero_types: Sequence[str] = (),
    null_name: str = "_unused",
    null_shape: int = 0,
    extremes: bool = True,
) -> Generated:
    """Make the null, extreme and (at most ``max_mutants``) classic mutants of one function.

    ``module_code`` is the pristine module as the harness compiled it
    (default: compiled here from ``source``); each mutant is that module with
    the target's code replaced. ``covered`` limits classic mutants to
    executed lines (None: every line). ``zero_types`` are type names the
    function was seen returning; each with a zero value adds an extreme
    mutant. ``null_name`` is the dead local the null mutant adds and
    ``null_shape`` picks what it stores and before which statement (the harness
    derives both from the secret seed, so no fixed name, value or place gives
    it away). ``extremes=False`` makes none of the extreme mutants (planned
    before the return types are known, made later). The
    unchanged function compiled on its own must match the module's, or every
    mutant would be a lie (:class:`MutationError`). Deterministic: the same
    arguments give the same mutants in the same order.
    """
    target = _Target.prepare(source, filename, def_line, module_code)
    module, func, first = target.module, target.func, target.first
    module_code, original, build = target.module_code, target.original, target.build
    null_code = build()
    if null_code is None:  # pragma: no cover - the skeleton holds the function found above
        raise MutationError(f"no code object for {func.name} at line {first}")
    if fingerprint(null_code) != fingerprint(original):
        raise MutationError(
            f"{func.name} as compiled on its own differs from the module's "
            "(generated or rewritten code)"
        )
    unchanged = fingerprint(original)

    def whole(kind: str, line: int, description: str, code: types.CodeType) -> Mutant:
        return Mutant(kind, line, description, splice(module_code, original, code), code)

    probe = null_probe(null_name, null_shape)
    null = _null_mutant(func, build, null_name, null_shape, target.original)
    result = Generated(null=whole("null", null.line, null.description, null.code),
                       extreme=[], classic=[])
    # What a mutant that changes nothing compiles to: every mutant carries the null mutant's
    # dead probe, where the null mutant has it.
    as_null = fingerprint(null.code)
    seen = {unchanged, as_null}

    def accept(kind: str, line: int, description: str) -> Mutant | None:
        # The probe in every mutant: "has a probe" was the null mutant's mark, so a test
        # reading the installed code passed there and failed every classic and extreme
        # mutant, a PASS for a test that checks nothing (red team 8, finding 04).
        code = target.compile_reach(probe)
        if code is None:
            result.incompatible += 1
            return None
        digest = fingerprint(code)
        if digest in seen:
            result.equivalent += 1
            if kind != "classic" and digest == as_null:  # `noop`: nothing to take away
                result.extreme_equivalent += 1
            return None
        seen.add(digest)
        return whole(kind, line, description, code)

    doc = func.body[:1] if _is_docstring(func.body[0]) else []
    # The annotation's types too: what the run heard it return is the run's word (red team
    # 70 crowded the recorder's few places with other types).
    zero_types = [*zero_types, *_annotated(func)]
    for body, text in _extreme_bodies(func, zero_types) if extremes else ():
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

    for returns, values, text in _zero_returns(func, zero_types) if extremes else ():
        olds = [r.value for r in returns]
        try:
            for r, value in zip(returns, values, strict=True):
                r.value = value
            mutant = accept("returns", func.lineno, text)
        finally:
            for r, old_value in zip(returns, olds, strict=True):
                r.value = old_value
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
    _locate(keeper, where.lineno, where.col_offset)
    start = 1 if _is_docstring(where) and len(func.body) > 1 else 0
    func.body.insert(start, keeper)
    try:
        return build()
    finally:
        func.body.pop(start)


@dataclass(frozen=True)
class Reach:
    """A mutant that stops before one statement: killed exactly when that statement runs.

    The statement is the last one of its block that the coverage says ran, so a run that
    reaches it ran every statement of the block before it. ``lines`` are the lines from that
    statement to the end of the block: a killed classic mutant on one of them proves the
    stop would have been reached just as well.
    """

    mutant: Mutant
    lines: frozenset[int]
    #: A branch check (see :func:`reach_mutants`' ``arcs``): the branching statement's line.
    arc_from: int | None = None


@dataclass(frozen=True)
class Probe:
    """The stop every reach mutant carries, and the null mutant too, dead.

    ``name = value`` then ``if name == value: os._exit(70)``: nothing catches ``os._exit``
    (no ``except``, ``finally``, ``__exit__``, thread or library around the call), and the
    run ends without its answer, a crash, which counts as killed. The null mutant carries the
    same statements with ``!=``, which never stops, so a test that fails whenever the code it
    runs holds a stop (``os``, ``_exit``, the local among its names) kills the null mutant
    too: ``mutation-machinery-detected``. Before, only reach mutants named ``SystemExit`` or
    ``_exit``, and a test that read them in the installed code (``gi_code``, a frame's
    ``f_code``) and failed only there "proved" forged coverage (red team 6, finding 06).
    ``name`` and ``value`` come from the secret seed, as the null mutant's did.
    """

    name: str = "_unused"
    value: str = "None"
    #: The null mutant's shape (``null_probe``): a reach mutant also carries the null
    #: mutant's dead probe where the null mutant has it, so the local is bound at the same
    #: point in both; before, a reach check's local stayed unbound while its block did not
    #: run, and a generator's size (``sys.getsizeof``, the frame's slots) with its frame's
    #: bound locals told a reach check from the null mutant (red team 7, finding 01).
    shape: int | None = None
    #: False: every stop this probe puts in is dead (``!=``), a reach check's *twin*: the same
    #: code but for the comparison. A probe's place moves the bytecode after it, which a
    #: traceback's ``tb_lasti`` shows with no code object read (red team 7, finding 02); a
    #: twin at each checked place makes "a probe sits here" worth nothing to a test.
    live: bool = True

    def stmts(self, line: int, col: int, live: bool = True) -> list[ast.stmt]:
        if not self.name.isidentifier():
            raise MutationError(f"{self.name!r} cannot name the probe's local")
        op = "==" if live and self.live else "!="
        out = ast.parse(f"{self.name} = {self.value}\n"
                        f"if {self.name} {op} {self.value}:\n"
                        "    __import__('os')._exit(70)").body
        for stmt in out:
            _locate(stmt, line, col)
        return out


def reach_mutants(source: str, filename: str, def_line: int, *,
                  module_code: types.CodeType | None = None,
                  covered: set[int] | None = None,
                  arcs: set[tuple[int, int]] | None = None,
                  probe: Probe = Probe()) -> list[Reach]:
    """One mutant per block of the target that stops before its last covered statement.

    Coverage data is written by the process the test runs in, so a test can
    forge it; whether a statement runs is also a *behaviour* no test can fake
    without telling runs apart: a run that stops there fails iff it runs.
    The stop is the :class:`Probe`'s ``os._exit``: nothing the code or the
    test does can catch it (a ``SystemExit`` in unguarded blocks was, in a
    thread). The stop goes before the *last* statement the
    coverage lists, not the first: a statement that raises every time would
    otherwise vouch for the lines after it (red team 4, finding 06). Blocks
    with no statement in ``covered`` are left out; without ``covered``, the
    stop goes before the first statement.

    ``arcs`` (branch mode: the arcs the coverage says were taken): an ``if``,
    ``for`` or ``while`` without an ``else`` whose "not entered" arc is listed
    gets a mutant with an ``else`` that stops: the arc to the next statement
    is also reached from the body, so no line check proves it (red team 4,
    finding 04). Its ``lines`` are empty: only its own run proves it.
    """
    target = _Target.prepare(source, filename, def_line, module_code)
    func = target.func
    out: list[Reach] = []
    for block in _blocks(func.body):
        first = 1 if block is func.body and _is_docstring(block[0]) and len(block) > 1 else 0
        if covered is None:
            at = first
        else:
            ran = [i for i in range(first, len(block)) if block[i].lineno in covered]
            if not ran:
                continue
            at = ran[-1]
        head = block[at]
        with _inserted(block, at, probe.stmts(head.lineno, head.col_offset)):
            code = target.compile_reach(probe)
        if code is None:
            continue
        mutant = Mutant("reach", head.lineno, f"stop at line {head.lineno}",
                        splice(target.module_code, target.original, code), code)
        last = block[-1].end_lineno or block[-1].lineno
        out.append(Reach(mutant, frozenset(range(head.lineno, last + 1))))
    if arcs:
        out += _arc_reaches(target, arcs, probe)
    return out


def _arc_reaches(target: _Target, arcs: set[tuple[int, int]], probe: Probe) -> list[Reach]:
    """One mutant per claimed "not entered" arc of an ``if``/``for``/``while`` with no ``else``,
    and per claimed "no case matched" arc of a ``match``."""
    out: list[Reach] = []
    for block in _blocks(target.func.body):
        for stmt in block:
            if isinstance(stmt, ast.Match):
                out += _match_reach(target, stmt, arcs, probe)
                continue
            if not isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While):
                continue
            first = stmt.body[0]
            entered = {first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))}
            if stmt.lineno in entered:
                out += _same_line_reach(target, stmt, arcs, probe)
                continue
            if stmt.orelse or not any(
                    a == stmt.lineno and b not in entered for a, b in arcs):
                continue
            stmt.orelse = probe.stmts(stmt.lineno, stmt.col_offset)
            try:
                code = target.compile_reach(probe)
            finally:
                stmt.orelse = []
            if code is None:
                continue
            mutant = Mutant("reach", stmt.lineno, f"stop when line {stmt.lineno} is not entered",
                            splice(target.module_code, target.original, code), code)
            out.append(Reach(mutant, frozenset(), arc_from=stmt.lineno))
    return out


def _same_line_reach(target: _Target, stmt: ast.If | ast.For | ast.AsyncFor | ast.While,
                     arcs: set[tuple[int, int]], probe: Probe) -> list[Reach]:
    """A body on its header's line (``if vip: return 1``): when the arcs claim two ways out
    of that line, one of them went through the body, and only a stop at the body's start
    proves it; the line check cannot (the line runs whether the body does or not), and a
    killed mutant of the condition proves the line, not the body (red team 5, finding 04)."""
    if len({b for a, b in arcs if a == stmt.lineno}) < 2:
        return []
    code = _compile_with_stop_first(target, stmt.body, stmt.lineno, probe)
    if code is None:
        return []
    mutant = Mutant("reach", stmt.lineno, f"stop when line {stmt.lineno}'s body is entered",
                    splice(target.module_code, target.original, code), code)
    return [Reach(mutant, frozenset(), arc_from=stmt.lineno)]


def _match_reach(target: _Target, stmt: ast.Match, arcs: set[tuple[int, int]],
                 probe: Probe) -> list[Reach]:
    """A ``match``'s claimed arcs no line check proves.

    A case whose body is on its pattern's line (``case 1: return "one"``), with arcs that
    leave that line two ways, gets a stop at the body's start: the line runs whenever the
    pattern is tried, and a killed mutant of the pattern (``case 2:``) proves the line, not
    the body (red team 6, finding 01). A last case that may not match, whose "no case
    matched" arc the run claims, gets a last ``case _:`` that stops: that arc ends where the
    cases' bodies also go (red team 5, finding 02), also when the last case's body is on its
    pattern's line: then the arcs cannot say which way is which, and two ways out of the line
    are enough (red team 6, finding 02).
    """
    out: list[Reach] = []
    for case in stmt.cases:
        line = case.pattern.lineno
        if case.body[0].lineno == line and len({b for a, b in arcs if a == line}) >= 2:
            out += _case_body_reach(target, case, probe)
    last = stmt.cases[-1]
    if last.guard is None and _irrefutable(last.pattern):
        return out
    line = last.pattern.lineno
    entered = {last.body[0].lineno}
    if line in entered:
        claimed = len({b for a, b in arcs if a == line}) >= 2
    else:
        claimed = any(a == line and b not in entered for a, b in arcs)
    if not claimed:
        return out
    case = ast.match_case(pattern=ast.MatchAs(), guard=None,
                          body=probe.stmts(line, last.pattern.col_offset))
    _locate(case.pattern, line, last.pattern.col_offset)
    stmt.cases.append(case)
    try:
        code = target.compile_reach(probe)
    finally:
        stmt.cases.pop()
    if code is None:
        return out
    mutant = Mutant("reach", line, f"stop when no case of line {stmt.lineno} matches",
                    splice(target.module_code, target.original, code), code)
    return [*out, Reach(mutant, frozenset(), arc_from=line)]


def _compile_with_stop_first(target: _Target, body: list[ast.stmt], line: int,
                             probe: Probe) -> types.CodeType | None:
    """The target compiled with the probe's stop as the first statement of ``body``, which
    is given back unchanged (the tree is shared by every mutant)."""
    with _inserted(body, 0, probe.stmts(line, body[0].col_offset)):
        return target.compile_reach(probe)


def _case_body_reach(target: _Target, case: ast.match_case, probe: Probe) -> list[Reach]:
    """A stop at the start of a case's body that sits on its pattern's line."""
    line = case.pattern.lineno
    code = _compile_with_stop_first(target, case.body, line, probe)
    if code is None:
        return []
    mutant = Mutant("reach", line, f"stop when the case at line {line} matches",
                    splice(target.module_code, target.original, code), code)
    return [Reach(mutant, frozenset(), arc_from=line)]


def _irrefutable(pattern: ast.pattern) -> bool:
    """``case _``, ``case name`` or an or-pattern with one of them: it always matches."""
    if isinstance(pattern, ast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, ast.MatchOr):
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


def _blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """Every statement list of a function body, nested functions and classes included.

    Leaving nested scopes out let forged coverage claim a callback's body no test ran
    (red team 5, finding 01). Every block's stop is the same ``os._exit``, which nothing
    around it catches (a ``try``, a ``with``, whatever calls a callback).
    """
    if not body:
        return
    yield body
    for stmt in body:
        if isinstance(stmt, _Func | ast.ClassDef):
            yield from _blocks(stmt.body)
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _blocks(handler.body)
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _blocks(case.body)


#: What the null mutant's dead store may store (``null_shape`` picks one).
_NULL_VALUES = ("None", "0", "()", "''", "False", "1", "-1", "0.0")


def _null_mutant(func: _Func, build: Callable[[], types.CodeType | None], name: str,
                 shape: int = 0, original: types.CodeType | None = None) -> Mutant:
    """The original behaviour in a code object that is neither identical nor equal to it.

    The :class:`Probe` of the reach mutants, dead (``if name != value``): a
    fresh local and a stop that never runs change the bytecode, the names and
    the constants the way a real mutant does, and nothing a caller can
    observe. A test that "kills" it compares code objects, or looks for the
    reach checks' stop, not results. ``shape`` varies the stored value and the
    top-level statement it goes before (red team 2, finding 07 spotted a fixed
    shape).
    """
    with _null_probe_in(func, null_probe(name, shape)):
        code = build()
    if code is None:  # pragma: no cover - build() found the same function a moment ago
        raise MutationError(f"no code object for the null mutant of {func.name}")
    if original is not None:
        code = _pad_stack(code, original) or code
    return Mutant("null", func.lineno, "unchanged behaviour (null mutant)", code, code)


#: Stack slots a probe may need past what its statement's enclosing blocks hold.
_PROBE_STACK = 4


def _pad_stack(code: types.CodeType | None, original: types.CodeType
               ) -> types.CodeType | None:
    """One stack size for the null mutant and every reach mutant of a function.

    A frame's slots (locals and stack) are in ``sys.getsizeof`` of a generator or frame; a
    live probe deep in a loop needed a slot more than the null mutant's at the top, so the
    size told them apart (red team 7, finding 01). Every enclosing block's items fit in the
    original's stack, and a probe adds fewer than ``_PROBE_STACK``.
    """
    if code is None:
        return None
    return code.replace(co_stacksize=max(code.co_stacksize,
                                         original.co_stacksize + _PROBE_STACK))


def null_probe(name: str, shape: int = 0) -> Probe:
    """The probe the null mutant (dead) and the reach mutants (live) of one schedule share."""
    return Probe(name, _NULL_VALUES[shape % len(_NULL_VALUES)], shape)


def _null_probe_in(func: _Func, probe: Probe) -> contextlib.AbstractContextManager[None]:
    """``probe``, dead, before the top-level statement its ``shape`` picks, as the null mutant
    has it (and every reach mutant, so the local is bound at the same point in both)."""
    first = 1 if _is_docstring(func.body[0]) and len(func.body) > 1 else 0
    shape = probe.shape or 0
    start = first + (shape // len(_NULL_VALUES)) % (len(func.body) - first)
    # Never after a statement that leaves the body (an extreme mutant's ``return; yield``):
    # the compiler may drop what it cannot reach, and every mutant must carry the probe.
    start = next((i for i in range(first, start)
                  if isinstance(func.body[i], ast.Return | ast.Raise)), start)
    anchor = func.body[start]
    return _inserted(func.body, start, probe.stmts(anchor.lineno, anchor.col_offset, live=False))


@contextlib.contextmanager
def _inserted(body: list[ast.stmt], at: int, stmts: list[ast.stmt]) -> Iterator[None]:
    """``stmts`` in ``body`` at ``at`` while the block runs, then gone: the tree is shared by
    every mutant of the function."""
    body[at:at] = stmts
    try:
        yield
    finally:
        del body[at:at + len(stmts)]


def _extreme_bodies(func: _Func, zero_types: Sequence[str]) -> Iterator[tuple[list[ast.stmt], str]]:
    """Trivial bodies: ``return None``, then a zero of each observed type (not generators)."""
    where = func.body[0]

    def located(stmts: list[ast.stmt]) -> list[ast.stmt]:
        for stmt in stmts:
            _locate(stmt, where.lineno, where.col_offset)
        return stmts

    if _is_generator(func):
        # ``return`` then an unreachable ``yield``: still a generator, yields nothing.
        yield located(ast.parse("return\nyield").body), "return; yield (empty generator)"
        return
    yield located([ast.Return(value=ast.Constant(value=None))]), "return None"
    if isinstance(func, ast.AsyncFunctionDef):
        return
    for literal in _zero_literals(zero_types):
        yield located(ast.parse(f"return {literal}").body), f"return {literal}"


def _zero_literals(zero_types: Sequence[str]) -> list[str]:
    """The zero values of ``zero_types`` that have one, each once, in order."""
    return list(dict.fromkeys(z for z in map(zero_literal, zero_types) if z is not None))


def _annotated(func: _Func) -> list[str]:
    """The types with a zero its return annotation names (``-> float``, ``-> int | None``,
    ``-> Optional[str]``); none for a string annotation or a class of the project."""
    if func.returns is None:
        return []
    return [n.id for n in ast.walk(func.returns) if isinstance(n, ast.Name) and n.id in _ZEROS]


def _zero_returns(func: _Func, zero_types: Sequence[str]
                  ) -> Iterator[tuple[list[ast.Return], list[ast.expr], str]]:
    """Every value the function returns replaced by a zero of each observed type, the rest of
    the body kept: the extreme mutants take the checks of what it raises or changes with the
    body, so a test that checks only those and never the value returned killed them all
    (red team 69: a validator's ``return nights`` went unchecked, score 1.0). The returned
    expression is still evaluated, its value dropped (``return (round(rate, 2), 0.0)[1]``): a
    test whose every call raises in it killed a mutant that skipped it (red team 71). Yields
    the returns, the new value of each, and the description. Not for generators and
    coroutines. A returned tuple display also gets its arity kept and each element replaced
    by the zero of its own type, ``type(element)()`` (``None`` and ``()`` were killed by
    unpacking the result and by using an element unchecked: red teams 70 and 71)."""
    if isinstance(func, ast.AsyncFunctionDef) or _is_generator(func):
        return
    returns = [n for n in _own_nodes(func) if isinstance(n, ast.Return) and n.value is not None
               and not (isinstance(n.value, ast.Constant) and n.value.value is None)]
    if not returns:
        return

    def dropped(at: ast.Return, zero: ast.expr) -> ast.expr:
        assert at.value is not None
        _locate(zero, at.lineno, at.col_offset)
        new = ast.Subscript(value=ast.Tuple(elts=[at.value, zero], ctx=ast.Load()),
                            slice=ast.Constant(value=1), ctx=ast.Load())
        _locate_new(new, at)
        return new

    for literal in _zero_literals(zero_types):
        yield returns, [dropped(r, ast.parse(literal, mode="eval").body) for r in returns], \
            f"every value returned replaced by `{literal}`"
    for size in sorted({len(r.value.elts) for r in returns if isinstance(r.value, ast.Tuple)
                        and not any(isinstance(e, ast.Starred) for e in r.value.elts)}):
        same = [r for r in returns if isinstance(r.value, ast.Tuple) and len(r.value.elts) == size]
        values: list[ast.expr] = []
        for r in same:
            assert isinstance(r.value, ast.Tuple)
            zeros = [ast.Call(func=ast.Call(func=ast.Name(id="type", ctx=ast.Load()), args=[e],
                                            keywords=[]), args=[], keywords=[])
                     for e in r.value.elts]
            values.append(ast.Tuple(elts=list(zeros), ctx=ast.Load()))
            _locate_new(values[-1], r)
        yield same, values, (f"every element of the {size}-tuples returned replaced by the "
                             "zero of its type")


def _locate_new(node: ast.AST, at: ast.Return) -> None:
    """Positions for the nodes a returned-values mutant adds around the original expression
    (which keeps its own): the line of the ``return``."""
    for child in ast.walk(node):
        if isinstance(child, _Located) and not hasattr(child, "lineno"):
            child.lineno = child.end_lineno = at.lineno
            child.col_offset = child.end_col_offset = at.col_offset


def _is_generator(func: _Func) -> bool:
    """It yields: its ``return`` ends the iteration, and its extreme mutant is an empty
    generator."""
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(func))


def _own_nodes(func: _Func) -> Iterator[ast.AST]:
    """Nodes of ``func`` itself, not of nested functions, lambdas or classes."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _Func | ast.Lambda | ast.ClassDef):
                stack.append(child)
