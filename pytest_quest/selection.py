"""Which tests of the submitted file cannot reach the target, read from the source alone.

Why: a library's own test file (hundreds of tests, most about other functions) made every
run of the gate run all of them, though a mutant can only be told apart by a test that calls
the mutated function. The first schedule (``M``, the controls, the null and classic mutants:
:mod:`pytest_quest.mutate`) runs only the tests that may reach it.

Why from the source and not from what a run did: every run of the first schedule must
look alike and learn nothing from the others. A selection read from a clean run's calls
would be that run's message to every later one (a test calls the target or not, as a bit of
the shipped answers it saw); one read from the files is the same for every run and says
nothing a run could not read itself.

The reading is conservative. A test is left out only when nothing in it names the target,
or anything that names it: a name of the target's module whose code names it (one hop after
another, in that module), a helper, constant, fixture or class of the test file that does,
or a fixture this file does not define (a ``conftest.py`` or plugin fixture may call it). A
file where the target is reached in ways a name does not show (module-level code of the
test file, an autouse fixture, ``setup_module``, a decorated target) is run whole. What the
reading misses (a call through another module of the project, ``getattr`` with a computed
name) costs time, never a verdict: a first schedule that does not end in a clean pass is run
again with every test (:func:`pytest_quest.mutate.run_stage`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

__all__ = ["MAX_TEST_BYTES", "item_key", "unreachable_tests"]

#: pytest's own fixtures (none of them calls project code).
BUILTIN_FIXTURES = frozenset({
    "cache", "capfd", "capfdbinary", "caplog", "capsys", "capsysbinary", "doctest_namespace",
    "monkeypatch", "pytestconfig", "pytester", "record_property", "record_testsuite_property",
    "record_xml_attribute", "recwarn", "request", "subtests", "testdir", "tmp_path",
    "tmp_path_factory", "tmpdir", "tmpdir_factory",
})
#: Decorators that leave a function called by its name (anything else may register it, and a
#: framework calls it by a route, a command, an event).
PLAIN_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "cached_property", "cache", "lru_cache",
    "wraps", "abstractmethod", "overload", "override", "setter", "getter", "deleter",
})
#: Module-level functions of a test file that pytest or unittest calls without a name in a
#: test: if one of them reaches the target, every test may depend on what it did.
IMPLICIT = frozenset({
    "setup_module", "teardown_module", "setUpModule", "tearDownModule", "setup_function",
    "teardown_function", "setup", "teardown",
})

_Def = ast.FunctionDef | ast.AsyncFunctionDef


def item_key(nodeid: str) -> str:
    """``tests/test_x.py::TestA::test_b[1-2]`` -> ``TestA::test_b``: a test function as the
    file defines it, whatever its parameters."""
    _, _, rest = nodeid.partition("::")
    return rest.split("[", 1)[0]


#: A test file larger than this is run whole: reading it is not worth its time.
MAX_TEST_BYTES = 1 << 20


def unreachable_tests(test_source: str | bytes, target_source: str | bytes, def_line: int
                      ) -> frozenset[str]:
    """Keys (:func:`item_key`) of the test file's functions that cannot reach the target.

    Empty when every test may reach it, or when the reading cannot tell (then the gate runs
    every test, as it would without this module). ``def_line`` is the target's ``def`` line
    (or that of its first decorator) in ``target_source``. Bytes are decoded as Python
    decodes a source file (its coding cookie), as the test's import will. Linear in the
    files' size: every node is read once (a chain of helpers one hop after another made a
    first version quadratic, and a 97 KB file took 100 s: red team 67).
    """
    if len(test_source) > MAX_TEST_BYTES:
        return frozenset()
    try:
        target_tree = ast.parse(target_source)
        test_tree = ast.parse(test_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    found = _find_def(target_tree, def_line)
    if found is None:
        return frozenset()
    func, owner = found
    if func.name.startswith("__") or not _plain(func):
        return frozenset()  # called implicitly, or registered somewhere
    try:
        names = _reaching(target_tree.body, {func.name})
        if owner is not None and owner.name in names:
            names.add(owner.name)
        names = _reaching(test_tree.body, names, imports=True)
        return _unreachable(test_tree, names)
    finally:
        _WORDS.clear()


def _find_def(tree: ast.Module, line: int) -> tuple[_Def, ast.ClassDef | None] | None:
    """The function whose ``def`` (or first decorator) is on ``line``, and its class."""
    def matches(node: ast.AST) -> bool:
        return isinstance(node, _Def) and line in (
            node.lineno, *(d.lineno for d in node.decorator_list[:1]))

    for node in tree.body:
        if matches(node):
            assert isinstance(node, _Def)
            return node, None
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if matches(item):
                    assert isinstance(item, _Def)
                    return item, node
    return None


def _plain(func: _Def) -> bool:
    for decorator in func.decorator_list:
        core = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = core.attr if isinstance(core, ast.Attribute) else \
            core.id if isinstance(core, ast.Name) else None
        if name not in PLAIN_DECORATORS:
            return False
    return True


#: Nodes hash by identity: each node's words, while :func:`unreachable_tests` runs.
_WORDS: dict[ast.AST, frozenset[str]] = {}


def _words(node: ast.AST) -> frozenset[str]:
    """What ``node`` names: names, attributes, imported names and strings that could be a
    name (``getattr(mod, "name")``, a fixture asked for by name). Read once per node while
    :func:`unreachable_tests` runs."""
    known = _WORDS.get(node)
    if known is not None:
        return known
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.alias):
            found.add(sub.name.rpartition(".")[2])
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and \
                sub.value.isidentifier():
            found.add(sub.value)
    words = _WORDS[node] = frozenset(found)
    return words


def _mentions(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` names any of ``names`` (:func:`_words`)."""
    return not _words(node).isdisjoint(names)


def _bound(node: ast.stmt) -> Iterator[str]:
    """The names a top-level or class-level statement binds (a def's fixture alias too)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
        for decorator in node.decorator_list:
            for keyword in decorator.keywords if isinstance(decorator, ast.Call) else ():
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    yield str(keyword.value.value)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            yield (alias.asname or alias.name).partition(".")[0]
    else:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                yield sub.id


def _reaching(body: list[ast.stmt], names: set[str], imports: bool = False) -> set[str]:
    """``names`` and every name ``body`` binds to something that mentions one of them, one hop
    after another (a class's methods count, and a class with one counts by its own name)."""
    names = set(names)
    parts: list[tuple[ast.stmt, ast.ClassDef | None]] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not imports:
            continue
        parts.append((node, None))
        if isinstance(node, ast.ClassDef):
            parts += [(item, node) for item in node.body]
    for node, _ in parts:
        for alias in node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else ():
            if alias.name.rpartition(".")[2] in names:  # one import of many names: by name
                names.add(alias.asname or alias.name)
    parts = [(node, owner) for node, owner in parts
             if not isinstance(node, (ast.Import, ast.ImportFrom))]
    # Each part fires once, when a name it mentions becomes reaching: a queue of new names
    # and, for each word, the parts that mention it.
    by_word: dict[str, list[int]] = {}
    for index, (node, _) in enumerate(parts):
        for word in _words(node):
            by_word.setdefault(word, []).append(index)
    fired: set[int] = set()
    queue = list(names)
    while queue:
        for index in by_word.get(queue.pop(), ()):
            if index in fired:
                continue
            fired.add(index)
            node, owner = parts[index]
            for name in (*_bound(node), *([owner.name] if owner is not None else [])):
                if name not in names:
                    names.add(name)
                    queue.append(name)
    return names


def _unreachable(tree: ast.Module, names: set[str]) -> frozenset[str]:
    """The keys of the file's functions that mention none of ``names`` and use no fixture
    that may; empty when module-level code or an implicit function reaches the target."""
    reach = _Reach(tree, names)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef)):
            continue
        if isinstance(node, _Def):
            implicit = node.name in IMPLICIT or node.name.startswith("pytest_") or \
                _autouse(node)
            if implicit and reach(node, method=False):
                return frozenset()
        elif _mentions(node, names) and not set(_bound(node)) & names:
            return frozenset()  # code that runs at import and reaches it, binding nothing
        elif "pytestmark" in set(_bound(node)) and reach.marks(node):
            return frozenset()  # every test asks for a fixture that may reach it
    keys: list[str] = []
    kept = 0  # tests kept: with none, the selected runs would run nothing (red team 68)
    for node in tree.body:
        if isinstance(node, _Def):
            if reach(node, method=False):
                kept += node.name.startswith("test")
            else:
                keys.append(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = [item for item in node.body if isinstance(item, _Def)]
            if _whole_class(node, names, reach):
                kept += sum(1 for method in methods if method.name.startswith("test"))
                continue
            params = _parametrized(node.decorator_list)
            for method in methods:
                if reach(method, method=True, given=params):
                    kept += method.name.startswith("test")
                else:
                    keys.append(f"{node.name}::{method.name}")
    return frozenset(keys) if kept else frozenset()


class _Reach:
    """Whether a function of the test file may reach the target: it names a reaching name,
    or asks for a fixture that may (one of the file's that does, or one it does not define)."""

    def __init__(self, tree: ast.Module, names: set[str]) -> None:
        self.names = names
        #: The file's own functions by every name they bind (a fixture's ``name=`` too).
        self.defs: dict[str, tuple[_Def, bool]] = {}
        #: Every other name the file binds.
        self.bound: set[str] = set()
        for node in tree.body:
            self._add(node, method=False)
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    self._add(item, method=True)
        self._known: dict[int, bool] = {}

    def _add(self, node: ast.stmt, method: bool) -> None:
        for name in _bound(node):
            if isinstance(node, _Def):
                self.defs.setdefault(name, (node, method))
            else:
                self.bound.add(name)

    def marks(self, *nodes: ast.AST) -> bool:
        """Whether a ``usefixtures`` mark anywhere in ``nodes`` asks for a fixture that may
        reach the target (``pytestmark = pytest.mark.usefixtures("rates")``)."""
        asked: set[str] = set()
        for node in nodes:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    asked |= _usefixtures([sub])
        return self._asks(asked, set(BUILTIN_FIXTURES))

    def _asks(self, asked: set[str], given: set[str]) -> bool:
        """Whether one of the fixtures ``asked`` for (less those ``given``) may reach it."""
        for name in asked - given:
            if name in self.defs:
                fixture, in_class = self.defs[name]
                if self(fixture, in_class):
                    return True
            elif name not in self.bound:
                return True  # a fixture of a conftest or plugin: it may call the target
        return False

    def __call__(self, func: _Def, method: bool, given: Iterable[str] = ()) -> bool:
        key = id(func)
        if key not in self._known:
            self._known[key] = True  # a cycle of fixtures: assumed to reach while checked
            self._known[key] = self._check(func, method, set(given))
        return self._known[key]

    def _check(self, func: _Def, method: bool, given: set[str]) -> bool:
        if _mentions(func, self.names):
            return True
        arguments = func.args
        positional = [*arguments.posonlyargs, *arguments.args]
        optional = {a.arg for a in positional[len(positional) - len(arguments.defaults):]}
        optional |= {a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                           strict=True) if d is not None}
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                     for d in func.decorator_list)
        if method and positional and not static:
            positional = positional[1:]  # self or cls
        given = given | optional | _parametrized(func.decorator_list) | BUILTIN_FIXTURES
        asked = {a.arg for a in [*positional, *arguments.kwonlyargs]} | _usefixtures(
            func.decorator_list)
        return self._asks(asked, given)


def _whole_class(node: ast.ClassDef, names: set[str], reach: _Reach) -> bool:
    """A class whose own set-up may reach the target (its bases, decorators, attributes, a
    method pytest or unittest calls by itself): every test of it may depend on that."""
    for base in node.bases:
        plain = (isinstance(base, ast.Name) and base.id in ("object", "TestCase")) or \
            (isinstance(base, ast.Attribute) and base.attr == "TestCase")
        if not plain:
            return True  # methods or set-up from elsewhere
    if node.keywords or any(_mentions(d, names) for d in node.decorator_list) or \
            reach.marks(*node.decorator_list):
        return True
    for item in node.body:
        if "pytestmark" in set(_bound(item)) and reach.marks(item):
            return True
        if isinstance(item, _Def):
            implicit = _autouse(item) or item.name.startswith(
                ("setup", "setUp", "teardown", "tearDown", "__"))
            if implicit and reach(item, method=True):
                return True
        elif _mentions(item, names):
            return True
    return False


def _parametrized(decorators: list[ast.expr]) -> set[str]:
    """Argument names ``pytest.mark.parametrize`` gives (not fixtures)."""
    names: set[str] = set()
    for decorator in decorators:
        if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "parametrize"):
            continue
        spec = decorator.args[0] if decorator.args else next(
            (k.value for k in decorator.keywords if k.arg == "argnames"), None)
        if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
            names.update(part.strip() for part in spec.value.split(","))
        elif isinstance(spec, (ast.List, ast.Tuple)):
            names.update(str(e.value) for e in spec.elts if isinstance(e, ast.Constant))
    return names


def _usefixtures(decorators: list[ast.expr]) -> set[str]:
    """Fixtures asked for by ``pytest.mark.usefixtures("name", ...)``."""
    names: set[str] = set()
    for decorator in decorators:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                and decorator.func.attr == "usefixtures":
            names.update(str(a.value) for a in decorator.args if isinstance(a, ast.Constant))
    return names


def _autouse(func: _Def) -> bool:
    return any(isinstance(d, ast.Call) and any(
        k.arg == "autouse" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in d.keywords) for d in func.decorator_list)
