"""The package's import arrows point one way: each module imports only its own layer or lower ones.

The folders are flat (docs/design.md, "Names and layers", says why); this test is what keeps the
layers real. Every module must be placed in exactly one layer below, so a new module forces the
decision of where it belongs. Imports inside functions count too: a lazy import is still an arrow.
Within a layer the arrows point one way as well: no module imports one that imports it back,
however many modules lie in between (issue 11: forkrun and harness did).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_quest"

#: Lowest first. A module may import from its own layer and from any layer before it.
LAYERS: dict[str, frozenset[str]] = {
    # The vocabulary and the pure rules, plus the small helpers they need (settings, the
    # ledger file and its lock): no test code runs here, and no measuring machinery.
    "core": frozenset({
        "astext", "config", "decisions", "errors", "facts", "gate", "history", "ledger", "lines",
        "measure", "mutants", "paths", "pool", "progress", "protocol", "quest", "ratchet",
        "records", "safeio", "schema", "states", "words",
    }),
    # What reads the sources and runs or measures code: the scanner, the sandbox, the judge.
    "run": frozenset({
        "cgroups", "confine", "forkrun", "gaps", "harness", "mutate", "recorder", "runparts",
        "runstate", "runtrust", "sandbox", "scanner", "schedule", "scrub", "seccomp",
        "submission", "targetfacts", "hooked", "pathtext", "noevent", "seal", "selection",
        "standin", "watch",
        "workers", "syscalls", "ctypescalls",
    }),
    # The gate's catalog and the plugin seam that feeds it.
    "rules": frozenset({
        "hookspecs", "rules", "rules.assertions", "rules.coverage", "rules.escapes",
        "rules.hidden", "rules.mutation", "rules.names", "rules.run", "rules.scope",
        "rules.static",
    }),
    # Read-only views of the ledger (status, show, the HTML page).
    "views": frozenset({"export", "provenance", "report_html"}),
    # The services: one transaction each, used by every front end.
    "services": frozenset({
        "gitbase", "handout", "lockcheck", "loop", "preflight", "prompt", "queue", "recheck",
        "review", "scan", "submit",
    }),
    # The front ends: they parse, call a service and render.
    "adapters": frozenset({
        "__main__", "cli", "cli.check", "cli.config", "cli.demo", "cli.doctor", "cli.export",
        "cli.init", "cli.loop", "cli.mcp", "cli.merge_ledger", "cli.next_", "cli.options",
        "cli.recheck", "cli.review", "cli.rules", "cli.scan", "cli.show", "cli.skip",
        "cli.status", "cli.submit", "cli.terminal", "console", "mcp_server", "plugin",
        "ratchet_plugin",
    }),
}
#: Third-party packages the core may not import: the core must load without them.
NOT_IN_CORE = frozenset({"pytest", "_pytest", "coverage", "rich", "click", "pluggy", "mcp"})
RANK = {module: rank for rank, members in enumerate(LAYERS.values()) for module in members}
LAYER_OF = {module: name for name, members in LAYERS.items() for module in members}


def _modules() -> dict[str, Path]:
    """Our module names without the ``pytest_quest.`` prefix (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _origin(node: ast.ImportFrom, module: str, path: Path) -> str:
    """The absolute name a ``from ... import`` reads from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    base = ["pytest_quest", *package.split(".")] if package else ["pytest_quest"]
    base = base[:len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(module: str, path: Path) -> set[str]:
    """Every absolute name ``module`` imports, with the package prefix kept."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = _origin(node, module, path)
            names.add(origin)
            # ``from pytest_quest.rules import coverage`` imports the module rules.coverage.
            names.update(f"{origin}.{alias.name}" for alias in node.names)
    return names


def _ours(name: str, modules: dict[str, Path]) -> str | None:
    """The module of ours ``name`` refers to (the longest match), None for the root or others."""
    if not name.startswith("pytest_quest."):
        return None
    parts = name.removeprefix("pytest_quest.").split(".")
    for cut in range(len(parts), 0, -1):
        candidate = ".".join(parts[:cut])
        if candidate in modules:
            return candidate
    return None


MODULES = _modules()


def _arrows(module: str, path: Path) -> set[str]:
    """The modules of ours that ``module`` imports, at the top or in a function.

    One arrow per imported name, to the module that defines it:
    ``from pytest_quest.rules import escapes`` points at ``rules.escapes``, not at the
    package. Python runs a package's ``__init__`` before any of its submodules; that order
    is the language's, not an arrow of ours (``rules`` imports its rule modules to register
    them, and they import each other through the package's name). Imports under
    ``TYPE_CHECKING`` count: no cycle needs one today, so none is excused.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [_ours(alias.name, MODULES) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            origin = _origin(node, module, path)
            targets = []
            for alias in node.names:
                sub = _ours(f"{origin}.{alias.name}", MODULES)
                is_module = sub == f"{origin}.{alias.name}".removeprefix("pytest_quest.")
                targets.append(sub if is_module else _ours(origin, MODULES))
        else:
            continue
        found.update(t for t in targets if t is not None and t != module)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that ends where it starts; empty when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str]:
        if node in path:
            return [*path[path.index(node):], node]
        if node in done:
            return []
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if found := visit(target):
                return found
        path.pop()
        done.add(node)
        return []

    for start in sorted(graph):
        if found := visit(start):
            return found
    return []


def test_every_module_has_exactly_one_layer() -> None:
    placed = [m for members in LAYERS.values() for m in members]
    assert len(placed) == len(set(placed)), "a module is placed in two layers"
    assert set(MODULES) == set(placed)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    wrong = sorted(
        f"{target} ({LAYER_OF[target]})"
        for name in _imports(module, MODULES[module])
        if (target := _ours(name, MODULES)) is not None and RANK[target] > RANK[module]
    )
    assert not wrong, f"{module} ({LAYER_OF[module]}) imports a higher layer: {', '.join(wrong)}"


@pytest.mark.parametrize("module", sorted(LAYERS["core"]))
def test_the_core_needs_no_test_runner_nor_measuring_nor_terminal(module: str) -> None:
    third_party = {name.split(".")[0] for name in _imports(module, MODULES[module])}
    assert not third_party & NOT_IN_CORE


def test_the_checker_sees_a_wrong_arrow(tmp_path: Path) -> None:
    # The checker itself: a core module importing a service is caught, relative imports too.
    bad = tmp_path / "quest.py"
    bad.write_text("from . import submit\nfrom .scan import scan\nimport sys\n")
    found = {_ours(n, MODULES) for n in _imports("quest", bad)}
    assert found == {"submit", "scan", None}  # None: the package root and the stdlib
    assert RANK["submit"] > RANK["quest"] and RANK["scan"] > RANK["quest"]


def test_no_import_cycle() -> None:
    # A cycle within a layer passes the layer test; it still makes each module of it load
    # the other (a lazy import too, once it runs) and leaves no order to read them in.
    graph = {module: _arrows(module, path) for module, path in MODULES.items()}
    cycle = _cycle(graph)
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


def test_the_cycle_checker_sees_a_cycle_and_a_package_is_no_arrow(tmp_path: Path) -> None:
    # The checker itself: a lazy import closing a loop through a third module is caught...
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []
    lazy = tmp_path / "runparts.py"
    lazy.write_text("def later():\n    from pytest_quest.harness import main\n")
    assert _arrows("runparts", lazy) == {"harness"}
    # ...and a submodule imported through its package points at the submodule only.
    sibling = tmp_path / "static.py"
    sibling.write_text("from pytest_quest.rules import escapes\nfrom . import names\n"
                       "from pytest_quest.rules import RULES\n")
    assert _arrows("rules.static", sibling) == {"rules.escapes", "rules.names", "rules"}
