"""Code the static stage cannot read: a test that builds the code it runs is a human's call.

Every static rule reads the test file's text. A test that decodes its code from data and runs
it (``exec(bytes.fromhex(...))``, a code object from ``marshal``, a file run by ``runpy``)
shows the static stage nothing, and every in-process trick of the cheat corpus hides that way.
The run's own defences (the kernel, the guard, the code watch) still judge what such code
does, and a FAIL they find stands; but one of them can be walked around inside the test's own
process (``ctypes`` reads the installed code with no audit event: docs/security.md), so a
machine PASS must not rest on them alone. Hence REVIEW, not FAIL: an honest test may build
code (a code generator's output), and a maintainer can tell which kind it is.

A string written in the file (``exec("x = 1")``, ``"a" + "b"`` folded) is read like the file
itself (:func:`pytest_quest.rules.static.check`); only what the file does not spell out is
flagged here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pytest_quest.facts import REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.rules.names import Names, const_str, quote, rooted
from pytest_quest.submission import Submission

__all__ = ["HIDDEN", "check"]

HIDDEN = CATALOG.add(
    "static-hidden-code", REVIEW, "static",
    "The test runs only code written in its file: no exec, eval or compile of a string built "
    "at run time, no code objects made from data (marshal.loads, types.CodeType, "
    "types.FunctionType), no pickle loaded from anything but pickle.dumps, no file run by "
    "runpy or loaded from a path by importlib or zipimport, no change to where Python imports "
    "from (sys.path, sys.meta_path, sys.path_hooks, monkeypatch.syspath_prepend), no walk of "
    "the names of builtins, sys, gc, inspect and the like (vars(), __dict__, dir(), "
    "inspect.getmembers), no attribute looked up by a name built at run time past every "
    "spelling (__getattribute__, getattr handed on), no compile under a module's file name, "
    "no audit event raised by the test (sys.audit), no timeit given text built at run time "
    "or its template changed.",
    "Write the code in the test file itself. A maintainer reviews a test that must build code.",
)

#: Calls that run (or compile) their first argument: fine when that argument is a literal.
#: ``timeit`` and the profilers and debuggers compile the string they are given (red team 28).
_FROM_TEXT = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval",
                        "builtins.compile", "timeit.timeit", "timeit.repeat", "timeit.Timer",
                        "cProfile.run", "cProfile.runctx", "profile.run", "profile.runctx",
                        "pdb.run", "pdb.runeval", "typing.ForwardRef"})
#: ``timeit``'s callers: the statement and the setup (first and second argument, or ``stmt=``
#: and ``setup=``) are compiled when they are text, and only called when they are callables
#: (``timeit.timeit(lambda: f(1), number=200)``: red team 35's false REVIEW).
_TIMEIT = frozenset({"timeit.timeit", "timeit.repeat", "timeit.Timer"})
#: What else of ``timeit`` compiles text: its command line, the template every statement is
#: formatted into (a template set by the test is compiled with a callable too), the
#: constructor called on an existing timer.
_TIMEIT_STATE = ("timeit.main", "timeit.template", "timeit.reindent", "timeit.dummy_src_name",
                 "timeit.Timer.")
#: Audit events raised by the test: the run's audit hooks then parse objects of its making
#: (red team 35). ``sys.addaudithook`` is ``static-tracing-tamper``.
_AUDITS = frozenset({"sys.audit"})
#: Calls that make runnable code out of data, whatever their arguments.
_FROM_DATA = frozenset({
    "marshal.loads", "marshal.load", "types.CodeType", "types.FunctionType", "types.LambdaType",
    "runpy.run_path", "runpy.run_module", "importlib.util.spec_from_file_location",
    "importlib.machinery.SourceFileLoader", "importlib.machinery.SourcelessFileLoader",
    "code.InteractiveInterpreter", "code.InteractiveConsole", "code.interact",
    "codeop.compile_command", "codeop.Compile", "codeop.CommandCompiler",
    "importlib.util.spec_from_loader", "importlib.machinery.FileFinder",
    "importlib.machinery.ExtensionFileLoader", "zipimport.zipimporter", "imp.load_source",
    "imp.load_compiled", "imp.load_module", "pickle.load", "pickle.Unpickler", "_pickle.load",
    "_pickle.Unpickler", "shelve.open", "shelve.Shelf", "shelve.DbfilenameShelf",
    "doctest.run_docstring_examples", "doctest.testmod", "doctest.testfile",
    "doctest.DocTestRunner", "doctest.DocTestParser", "doctest.DebugRunner",
    "trace.Trace", "bdb.Bdb", "pdb.Pdb", "logging.config.dictConfig",
    "logging.config.fileConfig", "logging.config.listen",
})
#: Everything in these: the debuggers run code they are given and take frames (pdb's setup
#: stored bdb's frames on the test's object: red team 31); the path finder finds a module
#: file the test wrote in any folder it names (red team 31).
_FROM_DATA_BELOW = ("pdb.", "bdb.", "importlib.machinery.PathFinder",
                    "importlib.util.module_from_spec", "importlib.reload", "imp.reload",
                    # pickle's loads under other names (red team 33)
                    "pickle._", "_pickle.", "multiprocessing.reduction", "copyreg.",
                    "zipimport.",
                    # code objects read from a file with marshal.load (red team 34)
                    "pkgutil.read_code", "pstats.",
                    # a second module of a builtin (a second _signal's installer; red team 38
                    # made one with imp.init_builtin and test.support's import_fresh_module)
                    "importlib.machinery.BuiltinImporter", "_imp.", "importlib._bootstrap",
                    "imp.", "test.support")
#: A debugger stopped at a failure, left in a human's test (boltons' test_listutils calls
#: pdb.post_mortem()): its frames stay in its own objects, out of the test's reach.
_DEBUGGER_STOPS = frozenset({"pdb.set_trace", "pdb.post_mortem", "pdb.pm"})
#: A loader's methods that run a module (``spec.loader.exec_module(module)``), on anything.
_LOADS = frozenset({"exec_module", "load_module"})
#: Loads that run any global a pickle names (``REDUCE`` of ``builtins.exec``: red team 28),
#: fine only on what ``pickle.dumps`` made in the file.
_PICKLE_LOADS = frozenset({"pickle.loads", "_pickle.loads"})
_PICKLE_DUMPS = frozenset({"pickle.dumps", "_pickle.dumps"})
#: Where Python imports from: a module written to a temp dir and imported from there runs
#: code the static stage never read (red team 28).
_IMPORT_PLACES = frozenset({"sys.path", "sys.meta_path", "sys.path_hooks",
                            "sys.path_importer_cache"})
#: What runs code when called, also when it is passed on (``map(exec, ...)``); the classes
#: above are named in ``isinstance`` checks too, so only their calls count.
_HANDED = _FROM_TEXT | {"marshal.loads", "marshal.load", "runpy.run_path", "runpy.run_module"}
#: Modules whose names a test may not walk (``vars(builtins).items()`` found ``exec`` by a built
#: key, ``vars(sys)`` ``_current_frames``: red team 29).
_WALKED = frozenset({"builtins", "sys", "gc", "inspect", "os", "importlib", "types", "ctypes",
                     "_thread", "threading", "marshal", "pickle", "operator", "functools",
                     # its template is compiled with every statement (red team 35)
                     "timeit"})
#: Modules (and ``sys.modules``) whose names the rules refuse: put in a container, what is
#: reached through it is no name the rules can read (red team 39).
_LAUNDERED = frozenset({
    "sys", "sys.modules", "gc", "types", "builtins", "os", "posix", "importlib", "inspect",
    "ctypes", "_ctypes", "signal", "_signal", "_imp", "imp", "marshal", "pickle", "_pickle",
    "runpy", "_thread", "threading", "tracemalloc", "faulthandler", "atexit",
})
#: What looks up any attribute by name when handed on (not called here).
_LOOKUPS = frozenset({"getattr", "builtins.getattr", "operator.attrgetter"})
#: Builtins looked up by a literal key (``__builtins__["exec"]``): a call the names miss.
_KEYS = frozenset({"exec", "eval", "compile", "__import__"})


def check(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """One fact per place the file runs code it does not spell out."""
    direct: set[int] = set()
    called: set[int] = set()
    dumped = _dumped_names(tree, names)
    functions = {node.name for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    bound = _bindings(tree)
    written = _written_names(tree)
    dead = _main_only(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in dead:
            continue
        called.add(id(node.func))
        name = names.resolve(node.func)
        if name in _TIMEIT:
            direct.add(id(node.func))
            if not _timeit_code_written(node, names, bound, written):
                yield _fact(sub, node, f"`{quote(sub, node)}` runs code built at run time")
        elif name in _AUDITS:
            direct.add(id(node.func))
            yield _fact(sub, node, f"`{quote(sub, node)}` raises an audit event: the run's "
                        "hooks read objects the test made")
        elif name in _FROM_TEXT:
            direct.add(id(node.func))
            if node.args and const_str(node.args[0]) is None:
                yield _fact(sub, node, f"`{quote(sub, node)}` runs code built at run time")
            elif name.endswith("compile") and not _own_name(node):
                yield _fact(sub, node, f"`{quote(sub, node)}` compiles code under a file name "
                            "that passes for a module's")
        elif _makes_function(node, names, functions):
            yield _fact(sub, node, f"`{quote(sub, node)}` makes code out of data")
        elif _looks_up_by_built_name(node, names):
            direct.add(id(node.func))
            yield _fact(sub, node, f"`{quote(sub, node)}` looks up an attribute by a name "
                        "built at run time")
        elif name in _FROM_DATA or ((name or "").startswith(_FROM_DATA_BELOW) and
                                    name not in _DEBUGGER_STOPS) or (
                isinstance(node.func, ast.Attribute) and node.func.attr in _LOADS):
            direct.add(id(node.func))
            yield _fact(sub, node, f"`{quote(sub, node)}` makes code out of data")
        elif name in _PICKLE_LOADS:
            direct.add(id(node.func))
            if not (node.args and _from_dumps(node.args[0], names, dumped)):
                yield _fact(sub, node, f"`{quote(sub, node)}` loads a pickle that "
                            "pickle.dumps did not make here: it may call any function")
        elif name == "syspath_prepend" or (isinstance(node.func, ast.Attribute) and
                                          node.func.attr == "syspath_prepend"):
            yield _fact(sub, node, f"`{quote(sub, node)}` changes where Python imports from")
    for node in ast.walk(tree):
        if id(node) in dead:
            continue
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in direct and \
                isinstance(getattr(node, "ctx", None), ast.Load) and \
                names.resolve(node) in _HANDED:
            yield _fact(sub, node, f"`{quote(sub, node)}` is handed on: it may run any code")
        elif isinstance(node, ast.Name | ast.Attribute) and id(node) not in direct and \
                names.resolve(node) in _AUDITS:
            yield _fact(sub, node, f"`{quote(sub, node)}` is handed on: it raises audit events")
        elif isinstance(node, ast.Name | ast.Attribute | ast.Subscript) and \
                (names.resolve(node) or "").startswith(_TIMEIT_STATE):
            # timeit.template = built text, then timeit.timeit(lambda: 0) compiles it
            yield _fact(sub, node, f"`{quote(sub, node)}` changes or runs what timeit compiles")
        elif isinstance(node, ast.Call) and any(
                names.resolve(arg) == "timeit"
                for arg in [*node.args, *(k.value for k in node.keywords)]):
            # setattr(timeit, "template", text), monkeypatch.setattr(timeit, ...)
            yield _fact(sub, node, f"`{quote(sub, node)}` hands timeit's module on: it may "
                        "change what timeit compiles")
        elif isinstance(node, ast.Name | ast.Attribute) and id(node) not in called and \
                isinstance(getattr(node, "ctx", None), ast.Load) and \
                names.resolve(node) in _LOOKUPS:
            # map(getattr, [builtins], [name]), functools.reduce(getattr, ...) (red team 30)
            yield _fact(sub, node, f"`{quote(sub, node)}` is handed on: it looks up any "
                        "attribute")
        elif isinstance(node, ast.Subscript) and const_str(node.slice) in _KEYS:
            yield _fact(sub, node, f"`{quote(sub, node)}` looks up a builtin that runs code")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _names_a_runner(node.value):
            # pkgutil.resolve_name("builtins:exec"), pydoc.locate, mock.patch targets, the
            # "()" factories of logging.config (red team 28)
            yield _fact(sub, node, f"`{quote(sub, node)}` names a function that runs code "
                        "or what it compiles")
        elif _launders(node, names):
            # [sys.modules][0]["..."], setattr([types][0], ...): a name taken through a
            # container is lost to every rule that reads names (red team 39)
            yield _fact(sub, node, f"`{quote(sub, node)}` puts a module in a container: what "
                        "is reached through it escapes every rule")
        elif _walks_a_module(node, names):
            yield _fact(sub, node, f"`{quote(sub, node)}` walks the names of a module that can "
                        "run or reach code")
        elif _changes_import_places(node, names):
            yield _fact(sub, node, f"`{quote(sub, node)}` changes where Python imports from")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _names_compiled_code(node.value):
            # a .pyc written to tmp_path and imported: code with no compile to see (red
            # team 32)
            yield _fact(sub, node, f"`{quote(sub, node)}` names a file of compiled code")


def _timeit_code_written(node: ast.Call, names: Names, bound: dict[str, set[str]],
                         written: set[str]) -> bool:
    """The statement and the setup of a ``timeit`` call are each a literal string, a callable
    (:func:`_callable`) or missing; ``*args``/``**kwargs`` hide them."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords):
        return False
    given = [*node.args[:2], *(k.value for k in node.keywords if k.arg in ("stmt", "setup"))]
    return all(const_str(arg) is not None or _callable(arg, names, bound, written)
               for arg in given)


def _callable(node: ast.expr, names: Names, bound: dict[str, set[str]],
              written: set[str]) -> bool:
    """A value that is a callable, never text, so ``timeit`` calls it instead of compiling it:
    a lambda, ``functools.partial(...)``, a name bound only by an undecorated ``def`` of the
    file (not a parameter: a fixture's value may be text) or only by a ``from`` import, or a
    module's attribute reached through the imports (``pricing.nightly_rate``), none of them
    written by the file (``pricing.f = text``, ``setattr(m, "f", text)``, a computed name).
    An attribute of a local object (``self.code``, ``ns.code``) may hold text: not trusted."""
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Call):
        return names.resolve(node.func) == "functools.partial"
    if "*" in written:
        return False
    if isinstance(node, ast.Name):
        return node.id not in written and bound.get(node.id) in ({"def"}, {"import"})
    if isinstance(node, ast.Attribute):
        root: ast.expr = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return node.attr not in written and isinstance(root, ast.Name) and (
            bound.get(root.id) == {"import"}) and names.resolve(node) is not None
    return False


def _bindings(tree: ast.Module) -> dict[str, set[str]]:
    """How each name of the file is bound: ``def`` (undecorated: a decorator may return text),
    ``import`` or ``other``."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        name, kind = None, "other"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name, kind = node.name, "other" if node.decorator_list else "def"
        elif isinstance(node, ast.alias):
            name, kind = node.asname or node.name.split(".")[0], "import"
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            name = node.id
        elif isinstance(node, ast.arg):
            name = node.arg
        elif isinstance(node, ast.ClassDef | ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
            name = node.name
        elif isinstance(node, ast.MatchMapping):
            name = node.rest
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for each in node.names:
                out.setdefault(each, set()).add("other")
        if name:
            out.setdefault(name, set()).add(kind)
    return out


#: Calls that may store a value under a name: ``"*"`` (any name) when none is written out.
_STORES = frozenset({"setattr", "__setattr__", "setitem", "__setitem__", "object", "patch",
                     "multiple", "update", "setdefault", "ior", "__ior__"})


def _written_names(tree: ast.Module) -> set[str]:
    """Names the file may store a value under: attributes and keys it assigns, keyword
    arguments (``SimpleNamespace(code=text)``), every string it writes (``setattr(m, "f",
    text)``, ``{"f": text}``, ``monkeypatch.setattr("hotel.pricing.f", text)``) and its last
    dotted part; ``"*"`` when a call that stores names none, or for ``|=``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            out.add(node.attr)
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            key = const_str(node.slice)
            out.add(key if key is not None else "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.update({node.value, node.value.rsplit(".", 1)[-1]})
        elif isinstance(node, ast.keyword):
            out.add(node.arg or "*")
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr):
            out.add("*")
        elif isinstance(node, ast.Call):
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else (
                func.id if isinstance(func, ast.Name) else "")
            if last in _STORES and not node.keywords and all(
                    const_str(arg) is None for arg in node.args[:2]):
                out.add("*")
    return out


def _main_only(tree: ast.Module) -> set[int]:
    """The nodes of the module's ``if __name__ == "__main__":`` blocks, which never run under
    pytest (boltons' test_listutils times itself there, with built ``timeit`` setup text),
    unless the file names ``__name__`` anywhere else (it could make itself ``__main__``)."""
    blocks = [node for node in tree.body if isinstance(node, ast.If) and _is_main_test(node.test)]
    tests = {id(sub) for block in blocks for sub in ast.walk(block.test)}
    if not blocks or any(
            (isinstance(node, ast.Name) and node.id == "__name__" and id(node) not in tests)
            or (isinstance(node, ast.Constant) and node.value == "__name__")
            or (isinstance(node, ast.Attribute) and node.attr == "__name__"
                and not isinstance(node.ctx, ast.Load))
            for node in ast.walk(tree)):
        return set()
    return {id(node) for block in blocks for statement in block.body
            for node in ast.walk(statement)}


def _is_main_test(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
        test.left.id == "__name__" and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
        and len(test.comparators) == 1 and const_str(test.comparators[0]) == "__main__"


def _own_name(node: ast.Call) -> bool:
    """``compile(text, "<name>", ...)``: a file name written here that no module's code has
    (a module's is absolute, or ``<frozen ...>``), or none given."""
    filename = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "filename"), None)
    if filename is None:
        return True
    text = const_str(filename)
    return text is not None and not text.startswith(("/", "<frozen"))


def _makes_function(node: ast.Call, names: Names, functions: set[str]) -> bool:
    """``type(lambda: None)(code, globals())`` (or ``type(f)`` of a function defined here):
    FunctionType by another spelling, and
    ``f.__code__.replace(...)``: a code object made from another (red team 30)."""
    func = node.func
    if isinstance(func, ast.Call) and names.resolve(func.func) == "type" and \
            len(func.args) == 1 and node.args:
        made = func.args[0]
        root = made
        while isinstance(root, ast.Attribute):
            root = root.value
        # a function of a module (type(json.dumps): red team 34)
        return isinstance(made, ast.Lambda) or (
            isinstance(made, ast.Name) and made.id in functions) or (
            isinstance(root, ast.Name) and root.id in names.imports)
    return isinstance(func, ast.Attribute) and func.attr == "replace" and \
        isinstance(func.value, ast.Attribute) and func.value.attr == "__code__"


def _looks_up_by_built_name(node: ast.Call, names: Names) -> bool:
    """``builtins.__getattribute__(name)``, ``object.__getattribute__(builtins, name)``,
    ``inspect.getmembers(builtins)``: a name picked at run time, past every spelling the
    static stage reads (red team 30)."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("__getattribute__", "__getattr__"):
        return any(const_str(arg) is None for arg in node.args[-1:])
    if names.resolve(func) in ("inspect.getmembers", "inspect.getmembers_static") and \
            node.args:
        return names.resolve(node.args[0]) in _WALKED
    return False


def _names_a_runner(text: str) -> bool:
    """``"builtins:exec"``, ``"builtins.eval"``, ``"marshal.loads"`` as a dotted name."""
    if len(text) > 200 or not text.isascii():
        return False
    # rooted at the module it reaches: "tracemalloc.pickle:loads" is pickle's (red team 37)
    dotted = rooted(text.strip().replace(":", "."), end=True)
    # "sys:audit" for pkgutil.resolve_name, "timeit.template" for monkeypatch.setattr
    return (dotted in _FROM_TEXT | _FROM_DATA | _PICKLE_LOADS | _HANDED | _AUDITS
            or dotted.startswith(_TIMEIT_STATE)) and "." in dotted


def _launders(node: ast.AST, names: Names) -> bool:
    """A list, tuple, set or dict display (or a comprehension) holding one of the modules
    that reach the process or the interpreter, or ``sys.modules`` (not ``functools`` or a
    library's: boltons parametrizes a test over ``(functools, funcutils)``)."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items: list[ast.expr | None] = list(node.elts)
    elif isinstance(node, ast.Dict):
        items = [*node.keys, *node.values]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        items = [node.elt]
    else:
        return False
    for item in items:
        if isinstance(item, ast.Starred):
            item = item.value
        name = names.resolve(item) if isinstance(item, ast.Name | ast.Attribute) else None
        if name in _LAUNDERED:
            return True
    return False


def _walks_a_module(node: ast.AST, names: Names) -> bool:
    """``vars(sys)``, ``builtins.__dict__``, ``dir(builtins)``: every name of such a module,
    picked by a key the file builds."""
    if isinstance(node, ast.Call) and names.resolve(node.func) in ("vars", "dir") and \
            len(node.args) == 1:
        return names.resolve(node.args[0]) in _WALKED
    return isinstance(node, ast.Attribute) and node.attr == "__dict__" and \
        names.resolve(node.value) in _WALKED


def _names_compiled_code(text: str) -> bool:
    """``"probe.pyc"``, ``"__pycache__"``: where compiled modules are read from."""
    return len(text) < 500 and ("__pycache__" in text or text.rstrip().endswith(
        (".pyc", ".pyo")))


def _package_path(node: ast.AST) -> bool:
    """``hotel.__path__``: where a package imports its submodules from (red team 33 put a zip
    archive there)."""
    return isinstance(node, ast.Attribute) and node.attr in (
        "__path__", "submodule_search_locations")  # the same list, through __spec__


def _changes_import_places(node: ast.AST, names: Names) -> bool:
    """``sys.path.insert(...)`` and the like, an assignment to one of the places, or one of
    them handed to a call (``list.append(sys.path, ...)``: red team 32); a package's
    ``__path__`` read at all (red team 57 bound ``email.__path__`` to a name and appended to
    that: a test has no other use for it)."""
    if _package_path(node):
        return True
    if isinstance(node, ast.Call) and any(_package_path(arg) for arg in node.args):
        return True
    if isinstance(node, ast.Assign | ast.AugAssign) and any(
            _package_path(t.value if isinstance(t, ast.Subscript) else t)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
        return True
    if isinstance(node, ast.Call) and any(
            names.resolve(arg) in _IMPORT_PLACES for arg in node.args):
        return names.resolve(node.func) not in ("len", "list", "tuple", "set", "sorted",
                                                 "repr", "str", "print")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return names.resolve(node.func.value) in _IMPORT_PLACES and node.func.attr in (
            "insert", "append", "extend", "__setitem__", "update", "setdefault")
    if isinstance(node, ast.Assign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(names.resolve(target.value if isinstance(target, ast.Subscript) else target)
                   in _IMPORT_PLACES for target in targets)
    return False


def _dumped_names(tree: ast.Module, names: Names) -> set[str]:
    """Names every assignment of which in the file is a ``pickle.dumps(...)`` call."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
    return {name for name, found in values.items() if all(
        isinstance(value, ast.Call) and names.resolve(value.func) in _PICKLE_DUMPS
        for value in found)}


def _from_dumps(node: ast.expr, names: Names, dumped: set[str]) -> bool:
    if isinstance(node, ast.Call):
        return names.resolve(node.func) in _PICKLE_DUMPS
    return isinstance(node, ast.Name) and node.id in dumped


def _fact(sub: Submission, node: ast.AST, actual: str) -> Fact:
    return HIDDEN.fact(f"{sub.test_rel}:{getattr(node, 'lineno', 1)}",
                       "only code written in the test file", actual)
