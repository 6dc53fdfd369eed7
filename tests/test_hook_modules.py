"""The modules whose code runs inside a run's audit hooks bind every builtin they use at
import: a test that rebinds one (through any module's ``__builtins__``, the builtins' own
dict) would otherwise run its code in the hook."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect

import pytest

HOOK_MODULES = ["pytest_quest.watch", "pytest_quest.noevent", "pytest_quest.hooked",
                "pytest_quest.pathtext", "pytest_quest.runparts"]


def _builtins_used(source: str) -> set[str]:
    """Builtin names the module loads without binding them anywhere itself."""
    tree = ast.parse(source)
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load) and hasattr(builtins, node.id)
            and node.id not in bound}


@pytest.mark.parametrize("name", HOOK_MODULES)
def test_a_hook_module_binds_each_builtin_it_uses(name: str) -> None:
    module = importlib.import_module(name)
    used = _builtins_used(inspect.getsource(module))
    unbound = sorted(n for n in used if vars(module).get(n) is not getattr(builtins, n))
    assert used and unbound == []


def test_the_check_sees_a_builtin_left_to_the_builtins() -> None:
    assert _builtins_used("def f(x):\n    return len(x)\n") == {"len"}
    assert _builtins_used("len = 1\ndef f(x):\n    return len\n") == set()


#: Reads of an imported module's attribute in the hook modules' functions, each made before
#: test code (a constructor, the readers' set-up, ``close``, the seal's own set-up) or by code
#: that never runs inside the hook (runparts' channel, loader and coverage helpers).
BEFORE_OR_OUTSIDE = {
    # the import folders, taken as the watch is made (before test code)
    "pytest_quest.watch": {("__init__", "os.path"), ("__init__", "os.sep"),
                           ("__init__", "sys.path"), ("_codes_of", "types.CodeType"),
                           ("_modules", "sys.modules"),
                           ("readers", "types.CodeType"), ("readers", "types.coroutine"),
                           ("_modules", "types.ModuleType"),
                           # hypothesis's functions, found as the readers are made
                           ("_loaded_function", "sys.modules"),
                           ("_loaded_function", "types.FunctionType")},
    # folder_prefixes: called as a hook is made (a Guard's or a Watch's constructor)
    "pytest_quest.hooked": {("folder_prefixes", "os.sep"), ("folder_prefixes", "os.path"),
                            ("code", "types.CodeType"), ("code_objects", "types.CodeType"),
                            ("with_nested", "types.CodeType"),
                            ("code_objects", "types.FunctionType"),
                            ("visit", "types.FunctionType")},
    "pytest_quest.runparts": {
        ("__getattr__", "linecache.cache"), ("__init__", "contextlib.suppress"),
        # the folders native code may come from, taken as the guard is made (before test code)
        ("__init__", "sys.prefix"), ("__init__", "sys.base_prefix"),
        ("__init__", "sys.exec_prefix"), ("__init__", "sys.base_exec_prefix"),
        ("__init__", "sys.path"),
        ("__init__", "os.path"), ("__init__", "os.sep"), ("__init__", "os.set_inheritable"),
        ("close", "contextlib.suppress"), ("close", "os.close"), ("coverage_entries", "os.sep"),
        ("emit", "os.write"), ("is_package", "os.path"), ("read", "os.path"),
        ("resolve", "sys.modules"), ("resolve", "types.FunctionType")},
    "pytest_quest.pathtext": set(),
    "pytest_quest.noevent": {("close", "_imp.create_builtin"), ("close", "_signal.getsignal"),
                             ("close", "_signal.signal"), ("close", "gc.set_debug")},
    "pytest_quest.seal": {("run_modules", "sys.modules"), ("seal", "sys.modules"),
                          ("seal", "_thread.get_ident"),
                          ("seal", "operator.is_"), ("seal", "os._exit"), ("seal", "os.fstat"),
                          ("seal", "os.write")},
}


def _module_reads(source: str) -> set[tuple[str, str]]:
    """(function, ``module.attribute``) for each read of an imported module's attribute in a
    function's body (annotations aside: they are strings here)."""
    tree = ast.parse(source)
    imported = {(alias.asname or alias.name).split(".")[0] for node in tree.body
                if isinstance(node, ast.Import) for alias in node.names}
    annotations = {id(part) for node in ast.walk(tree)
                   for root in ([node.returns] if isinstance(node, ast.FunctionDef) else
                                [node.annotation] if isinstance(node, ast.arg | ast.AnnAssign)
                                else [])
                   if root is not None for part in ast.walk(root)}
    return {(function.name, ast.unparse(node)) for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef) for node in ast.walk(function)
            if id(node) not in annotations and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id in imported}


@pytest.mark.parametrize("name", sorted(BEFORE_OR_OUTSIDE))
def test_no_hook_code_looks_a_module_attribute_up_when_it_runs(name: str) -> None:
    """A module's attribute is the test's to replace (red team 41 replaced ``os.path.dirname``,
    which the watch called inside the hook, and switched the watch off there): what the hooks
    use is bound at import."""
    module = importlib.import_module(name)
    assert _module_reads(inspect.getsource(module)) <= BEFORE_OR_OUTSIDE[name]


def test_the_module_check_sees_a_lookup_at_run_time() -> None:
    source = "import os\ndef root(name: os.PathLike) -> str:\n    return os.path.dirname(name)\n"
    assert _module_reads(source) == {("root", "os.path")}
