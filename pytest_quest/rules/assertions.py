"""Tier 0, part two: does every test check something that can fail?

Coverage is a proxy: a test that calls the function and checks nothing
covers every line. These rules look at each collected test function and the
assertions that can actually fail it: ones that are reachable, not constant
true, not tautologies, and not swallowed by a ``try/except``. Same-file
helpers and fixtures are followed, because moving the ``assert`` into a helper
is good style and must not cost a try. Names are resolved by
:mod:`pytest_quest.rules.names`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pytest_quest.astext import unparse
from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import CATALOG, Rule
from pytest_quest.rules.names import (
    Names,
    const_str,
    decorator_name,
    is_fixture,
    quote,
    truthiness,
)
from pytest_quest.submission import Submission

__all__ = [
    "MEMBERSHIP", "NOOP_ASSERT", "NO_ASSERTION", "SWALLOWED", "TRIVIAL", "Assertions",
    "check_assertions", "patched_asserts",
]

_COVERAGE = ("coverage-lines", "coverage-branches")

NO_ASSERTION = CATALOG.add(
    "static-no-assertion", FAIL, "static",
    "Every test function checks something: an assert, pytest.raises/warns, self.assert*, "
    "a mock assert_* call, or a same-file helper or fixture that does. Calling the function "
    "and checking nothing covers every line and proves nothing.",
    "Assert the exact result (or the exception) of the call in the test named in the fact.",
    supersedes=_COVERAGE,
)
TRIVIAL = CATALOG.add(
    "static-trivial-assertion", FAIL, "static",
    "A test's assertions are not all constant-true (assert True, assert 1, assert (x, 'msg')) "
    "or tautologies (assert f(x) == f(x), x is x, compare with mock.ANY or an object whose "
    "__eq__ always returns True).",
    "Compare the function's result with an expected value written out in the test.",
    supersedes=_COVERAGE,
)
SWALLOWED = CATALOG.add(
    "static-swallowed-assertion", FAIL, "static",
    "No assertion sits inside a try whose except (AssertionError, Exception, BaseException, "
    "bare) or contextlib.suppress swallows its failure without re-raising, nor in a try whose "
    "finally returns.",
    "Remove the try/except around the assertion; use pytest.raises for expected exceptions.",
    supersedes=_COVERAGE,
)

NOOP_ASSERT = CATALOG.add(
    "static-noop-assert-method", FAIL, "static",
    "The test file defines or patches no assertion method that can never fail: an "
    "assert*/fail method or function whose body does nothing (pass, return a value, print), "
    "a lambda in its place, or a patch of an assertion method (unittest.TestCase.assertEqual, "
    "a mock's assert_called_*) on a framework or same-file class. Every check through it "
    "passes whatever the function returns.",
    "Use the real assertions: a plain assert, or unittest's and mock's own assert methods.",
    supersedes=_COVERAGE,
)
MEMBERSHIP = CATALOG.add(
    "static-membership-tautology", FAIL, "static",
    "A test's assertions are not all membership tautologies: x in [x], x in (x, y), "
    "x in {x}, x in {x: ...} and assertIn(x, [x, ...]) hold for any x.",
    "Compare the function's result with the expected value (or the set of allowed values) "
    "written out in the test.",
    supersedes=_COVERAGE,
)

#: Exceptions an ``assert`` (or a unittest/mock assert call) raises on failure.
_ASSERT_CATCHERS = frozenset({"AssertionError", "Exception", "BaseException", "*"})
#: What catches pytest.raises/pytest.fail failures (``Failed`` is a BaseException).
_OUTCOME_CATCHERS = frozenset(
    {"BaseException", "*", "Failed", "OutcomeException", "pytest.fail.Exception",
     "_pytest.outcomes.Failed", "_pytest.outcomes.OutcomeException"}
)
_RAISES = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail"})
_SUPPRESS = frozenset({"contextlib.suppress"})


_Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Site:
    """One place that can fail a test: an assert, a raises block, an assert call."""

    node: ast.AST
    #: "assert" (raises AssertionError) or "outcome" (pytest.raises/fail: a BaseException).
    kind: str
    trivial: str | None = None
    #: The try/suppress that swallows it, as a line of code, or None.
    swallowed: str | None = None
    #: Where it was reached from in the test (the helper call), when not directly.
    via: ast.AST | None = None
    #: The rule that names why it is trivial (None: static-trivial-assertion).
    rule: Rule | None = None


@dataclass(frozen=True)
class _Guard:
    """What the enclosing try/suppress blocks swallow: exception names, and how it looks."""

    catches: frozenset[str] = frozenset()
    label: str | None = None


def _flat(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module or class body, also those inside its blocks.

    A ``def`` or ``class`` inside a module-level ``if``/``try``/``with``/``for``/
    ``while``/``match`` still binds a module attribute, and pytest collects it.
    Bodies of functions and classes are not entered; an ``if False:`` body is
    skipped, as nothing in it is ever defined.
    """
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, ast.If):
            truth = truthiness(stmt.test)
            if truth is not False:
                yield from _flat(stmt.body)
            if truth is not True:
                yield from _flat(stmt.orelse)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            yield from _flat(stmt.body)
            for handler in stmt.handlers:
                yield from _flat(handler.body)
            yield from _flat(stmt.orelse)
            yield from _flat(stmt.finalbody)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            yield from _flat(stmt.body)
        elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            yield from _flat(stmt.body)
            yield from _flat(stmt.orelse)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _flat(case.body)



_NOT_A_TEST = frozenset({"property", "functools.cached_property", "nose.tools.nottest",
                         "nose.tools.nontrivial.nottest"})


def _test_attrs(stmts: list[ast.stmt]) -> dict[str | None, bool | None]:
    """The last ``__test__ = ...`` of a body (key None) and of its names (``f.__test__ = ...``)."""
    found: dict[str | None, bool | None] = {}
    for stmt in _flat(stmts):
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            if isinstance(target, ast.Name) and target.id == "__test__":
                found[None] = truthiness(stmt.value)
            elif isinstance(target, ast.Attribute) and target.attr == "__test__" and isinstance(
                target.value, ast.Name
            ):
                found[target.value.id] = truthiness(stmt.value)
    return found


class Assertions:
    """Collect the assertion sites of test functions, following same-file helpers."""

    def __init__(self, sub: Submission, tree: ast.Module, names: Names,
                 target: str | None = None) -> None:
        self.sub, self.names, self.target = sub, names, target
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        #: Methods by (class qualname, name); classes by qualname (``Outer.Inner``).
        self.methods: dict[tuple[str, str], ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.always_equal = _always_equal_classes(tree)
        #: Assertion methods/functions defined in the file that can never fail, by name;
        #: only names every same-file definition of which is inert.
        self.noop: dict[str, ast.AST] = _noop_asserts(tree)
        self.autouse: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.class_autouse: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in _flat(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = node
                if self._is_autouse(node):
                    self.autouse.append(node)
            elif isinstance(node, ast.ClassDef):
                self._add_class(node.name, node)
        self._mros: dict[str, list[str]] = {}
        self._cache: dict[tuple[int, str | None], list[Site]] = {}
        self._active: set[tuple[int, str | None]] = set()
        #: The module's helpers whose sites no class changes (they call no method), once
        #: :meth:`_warm` has followed them (None: not yet).
        self._warmed: frozenset[int] | None = None

    def _add_class(self, qual: str, node: ast.ClassDef) -> None:
        self.classes[qual] = node
        for item in _flat(node.body):
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                self.methods[(qual, item.name)] = item
                if self._is_autouse(item):
                    self.class_autouse.setdefault(qual, []).append(item)
            elif isinstance(item, ast.ClassDef):
                self._add_class(f"{qual}.{item.name}", item)

    def _is_autouse(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for deco in func.decorator_list:
            if isinstance(deco, ast.Call) and any(
                k.arg == "autouse" and truthiness(k.value) is True for k in deco.keywords
            ):
                return True
        return False

    def _mro(self, qual: str) -> list[str]:
        """The class and its same-file bases, breadth first (imported bases are not seen)."""
        if qual in self._mros:
            return self._mros[qual]
        order: list[str] = []
        stack = [qual]
        while stack:
            name = stack.pop(0)
            if name in order or name not in self.classes:
                continue
            order.append(name)
            stack += [unparse(b) for b in self.classes[name].bases]
        self._mros[qual] = order
        return order

    def _method(self, cls: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for owner in self._mro(cls):
            if (owner, name) in self.methods:
                return self.methods[(owner, name)]
        return None

    def _is_testcase(self, qual: str) -> bool:
        return any((self.names.resolve(b) or "").endswith("TestCase")
                   for owner in self._mro(qual) for b in self.classes[owner].bases)

    def _collectable(self, func: _Func) -> bool:
        """pytest collects it: no fixture, property or ``nottest`` decorator."""
        if is_fixture(func, self.names):
            return False
        for deco in func.decorator_list:
            name = decorator_name(deco, self.names) or ""
            if name in _NOT_A_TEST or (isinstance(deco, ast.Attribute) and deco.attr in (
                "setter", "getter", "deleter")
            ):
                return False
        return True

    def tests(self, tree: ast.Module) -> Iterator[tuple[str | None, _Func]]:
        """What pytest collects by default: ``test*`` functions, ``test*`` methods of ``Test*``
        classes (nested ones, inherited methods) and of ``TestCase`` subclasses, also when
        defined inside a module-level ``if``/``try``/``with`` block.

        Not tests: fixtures (``@pytest.fixture def test_url``), properties, anything
        marked ``__test__ = False``, ``Test*`` classes with an ``__init__``/``__new__``.
        """
        seen: set[int] = set()  # an inherited test is judged once, where it is first collected
        switches = _test_attrs(tree.body)
        for node in _flat(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ) and self._collectable(node) and switches.get(node.name) is not False:
                yield None, node
            elif isinstance(node, ast.ClassDef):
                for cls, func in self._class_tests(node.name):
                    if id(func) not in seen:
                        seen.add(id(func))
                        yield cls, func

    def _class_tests(self, qual: str) -> Iterator[tuple[str, _Func]]:
        node = self.classes[qual]
        unittest = self._is_testcase(qual)
        if not (node.name.startswith("Test") or unittest):
            return
        for owner in self._mro(qual):
            switch = _test_attrs(self.classes[owner].body).get(None)
            if switch is not None:
                if switch is False:
                    return
                break
        if not unittest and any((o, m) in self.methods for o in self._mro(qual)
                                for m in ("__init__", "__new__")):
            return  # pytest: "cannot collect test class because it has a __init__ constructor"
        seen: set[str] = set()
        for owner in self._mro(qual):
            for item in _flat(self.classes[owner].body):
                if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                if item.name in seen:
                    continue
                seen.add(item.name)
                if isinstance(item, ast.ClassDef):
                    if not unittest:
                        yield from self._class_tests(f"{owner}.{item.name}")
                elif item.name.startswith("test") and self._collectable(item):
                    yield qual, item

    def of_test(self, cls: str | None, func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Site]:
        """Sites of a test: its body, the fixtures it requests from this file (its class's
        first), autouse fixtures (the module's and its class's)."""
        self._warm()
        sites = self.of_function(func, cls)
        params = [a.arg for a in func.args.args + func.args.kwonlyargs]
        fixtures: list[tuple[_Func, str | None]] = []
        for param in params:
            method = self._method(cls, param) if cls is not None else None
            if method is not None and is_fixture(method, self.names):
                fixtures.append((method, cls))
            elif param in self.functions:
                fixtures.append((self.functions[param], None))
        fixtures += [(f, None) for f in self.autouse]
        if cls is not None:
            fixtures += [(m, cls) for owner in self._mro(cls)
                         for m in self.class_autouse.get(owner, [])]
        for fixture, owner in fixtures:
            if fixture is not func:
                sites += [replace(s, via=s.via or func) for s in self.of_function(fixture, owner)]
        return sites

    def _warm(self) -> None:
        """Follow the module's helpers callees first, so that following one from a test is a
        single hop: a valid file with a chain of 900 helpers calling each other took a few of
        our frames per hop, and Python's stack ran out (the file went to a person for our
        fault). Only helpers that reach no cycle of calls and call no method: for those the
        order changes nothing (in a cycle, the first one followed sees the others partly), nor
        does the class of the test that calls them (only ``self.x()`` reads it)."""
        if self._warmed is not None:
            return
        order = [self.functions[name] for name in _callees_first(self.functions)]
        self._warmed = frozenset(id(func) for func in order)
        for func in order:
            self.of_function(func, None)

    def of_function(self, func: _Func, cls: str | None) -> list[Site]:
        if self._warmed is not None and id(func) in self._warmed:
            cls = None  # the same sites whatever the class (:meth:`_warm`)
        key = (id(func), cls)
        if key in self._cache:
            return self._cache[key]
        if key in self._active:  # recursion: the outer call collects
            return []
        self._active.add(key)
        local = {n.name: n for stmt in func.body for n in ast.walk(stmt)
                 if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        sites = list(self._block(func.body, _Guard(), cls, local))
        self._active.discard(key)
        self._cache[key] = sites
        return sites

    def _block(self, stmts: list[ast.stmt], guard: _Guard, cls: str | None,
               local: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> Iterator[Site]:
        for stmt in stmts:
            yield from self._stmt(stmt, guard, cls, local)
            if isinstance(stmt, ast.Return | ast.Raise | ast.Continue | ast.Break):
                return  # what follows is unreachable

    def _stmt(self, stmt: ast.stmt, guard: _Guard, cls: str | None,
              local: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> Iterator[Site]:
        blk = self._block
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return  # a nested definition checks nothing until it is called
        if isinstance(stmt, ast.Assert):
            yield self._site(stmt, "assert", self.trivial(stmt.test), guard)
            yield from self._exprs(stmt.test, guard, cls, local)
        elif isinstance(stmt, ast.If):
            truth = truthiness(stmt.test)
            yield from self._exprs(stmt.test, guard, cls, local)
            if truth is not False:
                yield from blk(stmt.body, guard, cls, local)
            if truth is not True:
                yield from blk(stmt.orelse, guard, cls, local)
        elif isinstance(stmt, ast.While):
            if truthiness(stmt.test) is not False:
                yield from blk(stmt.body, guard, cls, local)
            yield from blk(stmt.orelse, guard, cls, local)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            yield from self._exprs(stmt.iter, guard, cls, local)
            if not _empty_iterable(stmt.iter):
                yield from blk(stmt.body, guard, cls, local)
            yield from blk(stmt.orelse, guard, cls, local)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            inner = self._try_guard(stmt, guard)
            yield from blk(stmt.body, inner, cls, local)
            final = self._finally_guard(stmt, guard)
            for handler in stmt.handlers:
                yield from blk(handler.body, final, cls, local)
            yield from blk(stmt.orelse, final, cls, local)
            yield from blk(stmt.finalbody, guard, cls, local)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            inner = guard
            for item in stmt.items:
                name = self.names.resolve(_call_func(item.context_expr))
                if name in _RAISES:
                    raises_only = bool(stmt.body) and all(
                        isinstance(b, ast.Raise) for b in stmt.body)
                    why = "the block raises by itself" if raises_only else None
                    yield self._site(item.context_expr, "outcome", why, guard)
                elif name in _SUPPRESS:
                    assert isinstance(item.context_expr, ast.Call)
                    caught = {self._exc_name(a) for a in item.context_expr.args}
                    inner = _Guard(inner.catches | frozenset(caught),
                                   quote(self.sub, item.context_expr))
                else:
                    yield from self._exprs(item.context_expr, guard, cls, local)
            yield from blk(stmt.body, inner, cls, local)
        elif isinstance(stmt, ast.Raise):
            if stmt.exc is not None and (self.names.resolve(_call_func(stmt.exc)) or "").endswith(
                "AssertionError"
            ):
                yield self._site(stmt, "assert", None, guard)
            elif stmt.exc is not None:
                yield from self._exprs(stmt.exc, guard, cls, local)
        elif isinstance(stmt, ast.Match):
            yield from self._exprs(stmt.subject, guard, cls, local)
            for case in stmt.cases:
                yield from blk(case.body, guard, cls, local)
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    yield from self._exprs(child, guard, cls, local)

    def _exprs(self, expr: ast.expr, guard: _Guard, cls: str | None,
               local: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> Iterator[Site]:
        """Assertion calls and helper calls inside an expression (lambdas included)."""
        for node in ast.walk(expr):
            if not isinstance(node, ast.Call):
                continue
            helper = self._helper(node.func, cls, local)
            for given in (*node.args, *(keyword.value for keyword in node.keywords)):
                # a helper handed on to be called (``map(check, cases)``,
                # ``pool.submit(check).result()``: red team 61's false FAILs); whether it
                # really fails the test is the run's and the mutants' to show
                passed = self._helper(given, cls, local) if isinstance(given, ast.Name) else None
                if passed is not None and passed is not helper:
                    for site in self.of_function(passed, cls):
                        yield replace(site, via=node,
                                      swallowed=site.swallowed or self._swallows(guard, site.kind))
            last = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            inert = self.noop.get(last)
            if inert is not None and (helper is None or helper is inert):
                yield replace(self._site(node, "assert", (
                    f"`{last}` defined on line {getattr(inert, 'lineno', '?')} never fails"),
                    guard), rule=NOOP_ASSERT)
                continue
            if helper is not None:
                for site in self.of_function(helper, cls):
                    swallowed = site.swallowed or self._swallows(guard, site.kind)
                    yield replace(site, swallowed=swallowed, via=node)
                continue
            name = self.names.resolve(node.func)
            if name in _RAISES:
                yield self._site(node, "outcome", None, guard)
            elif last.startswith("assert") or (
                last == "fail" and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
            ):
                yield self._site(node, "assert", self._trivial_call(last, node), guard)

    def _helper(self, func: ast.expr, cls: str | None,
                local: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
                ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if isinstance(func, ast.Name):
            return local.get(func.id) or self.functions.get(func.id)
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls") and cls is not None):
            return self._method(cls, func.attr)
        return None

    def _site(self, node: ast.AST, kind: str, trivial: str | None, guard: _Guard) -> Site:
        rule = MEMBERSHIP if trivial == _IN_ITSELF else None
        return Site(node=node, kind=kind, trivial=trivial, swallowed=self._swallows(guard, kind),
                    rule=rule)

    @staticmethod
    def _swallows(guard: _Guard, kind: str) -> str | None:
        catchers = _ASSERT_CATCHERS if kind == "assert" else _OUTCOME_CATCHERS
        return guard.label if guard.catches & catchers else None

    def _exc_name(self, node: ast.expr) -> str:
        name = self.names.resolve(node) or ""
        return name.removeprefix("builtins.")

    def _try_guard(self, stmt: ast.Try | ast.TryStar, guard: _Guard) -> _Guard:
        final = self._finally_guard(stmt, guard)
        caught: set[str] = set(final.catches)
        label = final.label
        for handler in stmt.handlers:
            if _reraises(handler.body, self.names):
                continue
            if handler.type is None:
                names = {"*"}
            elif isinstance(handler.type, ast.Tuple):
                names = {self._exc_name(e) for e in handler.type.elts}
            else:
                names = {self._exc_name(handler.type)}
            if names & (_ASSERT_CATCHERS | _OUTCOME_CATCHERS):
                caught |= names
                label = label or f"line {handler.lineno}: " + (
                    "except:" if handler.type is None
                    else f"except {quote(self.sub, handler.type)}:")
        return _Guard(frozenset(caught), label)

    def _finally_guard(self, stmt: ast.Try | ast.TryStar, guard: _Guard) -> _Guard:
        """A ``return``/``break``/``continue`` in ``finally`` discards any exception."""
        for node in _walk_shallow(stmt.finalbody):
            if isinstance(node, ast.Return | ast.Break | ast.Continue):
                return _Guard(guard.catches | {"*"},
                              guard.label or f"line {node.lineno}: {unparse(node)} in finally")
        return guard

    def trivial(self, test: ast.expr) -> str | None:
        """Why an assert's condition can never fail, or None."""
        if truthiness(test) is True:
            return "always true"
        if isinstance(test, ast.BoolOp):
            reasons = [self.trivial(v) for v in test.values]
            if isinstance(test.op, ast.Or) and any(reasons):
                return next(r for r in reasons if r)
            if isinstance(test.op, ast.And) and all(reasons):
                return reasons[0]
            return None
        if self.target and self.names.resolve(test) == self.target:
            return "a function object is always true"
        if isinstance(test, ast.Call) and self.names.resolve(test.func) == "callable" and (
            test.args and self.names.resolve(test.args[0]) == self.target
        ):
            return "the function is always callable"
        if isinstance(test, ast.Call) and self.names.resolve(test.func) == "isinstance" and (
            len(test.args) == 2 and self.names.resolve(test.args[1]) == "object"
        ):
            return "everything is an instance of object"
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = _unwrap_approx(test.left, self.names), _unwrap_approx(
                test.comparators[0], self.names)
            op = test.ops[0]
            if isinstance(op, ast.Eq | ast.Is | ast.LtE | ast.GtE) and _same(left, right):
                return "compares an expression with itself"
            if isinstance(op, ast.In) and _contains_itself(left, right):
                return _IN_ITSELF
            if isinstance(op, ast.Eq):
                for side in (left, right):
                    name = self.names.resolve(side) or ""
                    if name.endswith("mock.ANY"):
                        return "mock.ANY equals anything"
                    if isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and (
                        side.func.id in self.always_equal
                    ):
                        return f"{side.func.id}.__eq__ always returns True"
        return None

    def _trivial_call(self, name: str, call: ast.Call) -> str | None:
        if name in ("assertTrue", "assert_") and call.args and truthiness(call.args[0]) is True:
            return "always true"
        if name in ("assertFalse",) and call.args and truthiness(call.args[0]) is False:
            return "always false, asserted false"
        if name == "assertIn" and len(call.args) >= 2 and _contains_itself(call.args[0],
                                                                          call.args[1]):
            return _IN_ITSELF
        if name.startswith(("assertEqual", "assertIs", "assertAlmostEqual", "assertCountEqual",
                            "assertListEqual", "assertDictEqual")) and len(call.args) >= 2 and (
            name not in ("assertIsNone", "assertIsNotNone", "assertIsInstance")
        ) and _same(call.args[0], call.args[1]):
            return "compares an expression with itself"
        return None


#: Why ``x in [x, ...]`` is trivial (the membership rule's sites carry exactly this).
_IN_ITSELF = "x in [x, ...] holds for any x"


def _contains_itself(item: ast.expr, container: ast.expr) -> bool:
    """``container`` is a literal list/tuple/set (or dict's keys) that holds ``item`` itself."""
    if isinstance(container, ast.List | ast.Tuple | ast.Set):
        elements: list[ast.expr | None] = list(container.elts)
    elif isinstance(container, ast.Dict):
        elements = list(container.keys)
    else:
        return False
    return any(e is not None and _same(item, e) for e in elements)


#: Calls an inert assertion method may make: they print or convert, they never fail a test.
_HARMLESS = frozenset({"print", "repr", "str", "len", "bool", "id", "hash", "isinstance",
                       "issubclass", "type", "format", "sorted", "list", "tuple", "set", "dict",
                       "abs", "min", "max", "sum", "any", "all", "round", "int", "float",
                       "callable", "vars", "dir", "iter", "next", "zip", "map", "filter"})


def _is_assert_name(name: str) -> bool:
    """``assertEqual``, ``assert_called``, ``assert_``, ``fail``, ``failUnless``; not
    ``assertion_data`` or ``failing_case``."""
    return re.match(r"(assert|fail)([A-Z_]|$)", name) is not None


def _inert(body: list[ast.stmt] | ast.expr) -> bool:
    """Nothing in ``body`` can fail: no assert, raise or call other than :data:`_HARMLESS`."""
    nodes = _walk_shallow(body) if isinstance(body, list) else ast.walk(body)
    for node in nodes:
        if isinstance(node, ast.Raise | ast.Assert | ast.Await | ast.Yield | ast.YieldFrom):
            return False
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _HARMLESS
        ):
            return False
    return True


def _noop_asserts(tree: ast.Module) -> dict[str, ast.AST]:
    """Same-file ``assert*``/``fail*`` definitions (def, or a lambda bound to such a name) that
    can never fail, by name; a name with one real definition in the file is left out."""
    inert: dict[str, ast.AST] = {}
    real: set[str] = set()
    for node in ast.walk(tree):
        found: list[tuple[str, ast.AST, bool]] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_assert_name(
            node.name
        ):
            found.append((node.name, node, _inert(node.body)))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            found += [(t.id, node, _inert(node.value.body)) for t in node.targets
                      if isinstance(t, ast.Name) and _is_assert_name(t.id)]
        for name, where, is_inert in found:
            if is_inert:
                inert.setdefault(name, where)
            else:
                real.add(name)
    return {name: node for name, node in inert.items() if name not in real}


def patched_asserts(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """Assertion methods replaced at run time: ``TestCase.assertEqual = ...``,
    ``setattr(self, "assertEqual", ...)``, ``monkeypatch.setattr(unittest.TestCase,
    "assertEqual", ...)``, ``mock.patch.object(TestCase, "assertEqual")``,
    ``mock.patch("unittest.TestCase.assertEqual")``, on ``self``, a framework class or a
    same-file class (a project function that happens to be called ``assert_x`` may be
    stubbed like any collaborator)."""
    local_classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}

    def framework(owner: ast.expr) -> bool:
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls", *local_classes):
            return True
        name = names.resolve(owner) or ""
        return name.split(".")[0] in ("unittest", "mock", "pytest") or name in local_classes

    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            hit = any(isinstance(t, ast.Attribute) and _is_assert_name(t.attr)
                      and framework(t.value) for t in targets)
        elif isinstance(node, ast.Call) and node.args:
            call = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            first = const_str(node.args[0])
            second = const_str(node.args[1]) if len(node.args) > 1 else None
            if call in ("setattr", "object") and second and _is_assert_name(second):
                hit = framework(node.args[0])
            elif call in ("setattr", "patch") and first and "." in first:
                owner, _, attr = first.rpartition(".")
                hit = _is_assert_name(attr) and owner.split(".")[0] in ("unittest", "mock")
        if hit:
            yield NOOP_ASSERT.fact(
                f"{sub.test_rel}:{getattr(node, 'lineno', 1)}",
                "assertion methods left as they are",
                f"the test replaces an assertion method: `{quote(sub, node)}`")


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, annotate_fields=False) == ast.dump(b, annotate_fields=False)


def _unwrap_approx(node: ast.expr, names: Names) -> ast.expr:
    if isinstance(node, ast.Call) and names.resolve(node.func) == "pytest.approx" and node.args:
        return node.args[0]
    return node


def _call_func(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _empty_iterable(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict | ast.Constant):
        return truthiness(node) is False
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant) and node.args[0].value in (0, False))


def _walk_shallow(stmts: list[ast.stmt]) -> Iterator[ast.AST]:
    """Nodes of ``stmts`` without descending into nested functions, classes or loops' bodies."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                              | ast.Lambda):
                stack.append(child)


def _reraises(body: list[ast.stmt], names: Names) -> bool:
    """The handler raises again, fails the test, or asserts: the failure is not lost."""
    for node in _walk_shallow(body):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Assert) and truthiness(node.test) is not True:
            return True
        if isinstance(node, ast.Call):
            name = names.resolve(node.func) or ""
            last = name.rsplit(".", 1)[-1]
            if name == "pytest.fail" or last.startswith("assert") or last == "fail":
                return True
    return False


def _always_equal_classes(tree: ast.Module) -> set[str]:
    """Classes in the file whose ``__eq__`` returns a constant true value."""
    out = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__eq__":
                returns = [n for n in _walk_shallow(item.body) if isinstance(n, ast.Return)]
                if returns and all(r.value is not None and truthiness(r.value) is True
                                   for r in returns):
                    out.add(cls.name)
            elif isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__eq__" for t in item.targets
            ) and isinstance(item.value, ast.Lambda) and truthiness(item.value.body) is True:
                out.add(cls.name)
    return out


def _callees_first(functions: dict[str, _Func]) -> list[str]:
    """The names of ``functions`` that reach no cycle of calls among them (a function calling
    itself is no cycle) and call no method (``self.x()``, ``cls.x()``), each after every one
    it names: a depth-first walk with its own stack, not Python's."""
    named = {name: sorted({n.id for n in ast.walk(func) if isinstance(n, ast.Name)
                           and n.id in functions and n.id != name})
             for name, func in functions.items()}
    clean = {name: not any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                           and n.value.id in ("self", "cls") for n in ast.walk(func))
             for name, func in functions.items()}
    order: list[str] = []
    state: dict[str, int] = {}  # 1: on the walk's stack, 2: done
    for root in functions:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(named[root]))]
        while stack:
            name, callees = stack[-1]
            callee = next(callees, None)
            if callee is None:
                stack.pop()
                state[name] = 2
                if clean[name]:
                    order.append(name)
                elif stack:
                    clean[stack[-1][0]] = False
                continue
            if state.get(callee) == 1 or (state.get(callee) == 2 and not clean[callee]):
                clean[name] = False  # a cycle, or a callee that reaches one
            elif callee not in state:
                state[callee] = 1
                stack.append((callee, iter(named[callee])))
    return order


def check_assertions(sub: Submission, tree: ast.Module, names: Names,
                     target: str | None = None) -> Iterator[Fact]:
    """One fact per test without a real assertion, and per swallowed assertion.

    ``target`` is the quest function's dotted name: asserting the function
    object itself (``assert nightly_rate``) is always true.
    """
    finder = Assertions(sub, tree, names, target)
    for cls, func in finder.tests(tree):
        label = f"{cls}.{func.name}" if cls else func.name
        sites = finder.of_test(cls, func)
        for site in sites:
            if site.swallowed and not site.trivial:
                where = site.via if site.via is not None else site.node
                yield SWALLOWED.fact(
                    f"{sub.test_rel}:{getattr(where, 'lineno', func.lineno)}",
                    f"a failure of `{quote(sub, site.node, 80)}` fails {label}",
                    f"it is swallowed by {site.swallowed}",
                )
        if any(s.swallowed and not s.trivial for s in sites):
            continue
        if any(not s.trivial for s in sites):
            continue
        trivial = [s for s in sites if s.trivial]
        by_rule: dict[str, list[Site]] = {}
        for site in trivial:
            by_rule.setdefault((site.rule or TRIVIAL).id, []).append(site)
        for rule_id, group in by_rule.items():
            rule = CATALOG.get(rule_id)
            assert rule is not None
            shown = "; ".join(f"`{quote(sub, s.node, 60)}` ({s.trivial})" for s in group[:3])
            yield rule.fact(
                f"{sub.test_rel}:{func.lineno}",
                f"{label} asserts something that can fail",
                f"its only assertions can never fail: {shown}",
            )
        if not trivial:
            yield NO_ASSERTION.fact(
                f"{sub.test_rel}:{func.lineno}",
                f"{label} checks a result (assert, pytest.raises, ...)",
                "no reachable assertion in the test or the helpers it calls",
            )
