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
