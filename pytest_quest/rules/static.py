"""Stage 1, static: what can be judged from the test file's text alone (tier 0).

Cheap and precise: a false FAIL costs the agent a try, so every rule names
exactly what it saw and on which line, and each rule targets a class of
trick (ending the process, skipping, hooking pytest, blinding coverage,
replacing the target, rewriting sources) rather than one spelling of it:
names are resolved through imports, aliases, ``getattr`` and ``__import__``.
The assertion rules live in :mod:`pytest_quest.rules.assertions`, the name
resolver all of them share in :mod:`pytest_quest.rules.names`.

:func:`check_after_run` is the one check here that needs the run: the
pristine sources in the sandbox must hash as they were copied.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from pytest_quest import safeio
from pytest_quest.astext import unparse
from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import CATALOG, Rule
from pytest_quest.paths import module_name
from pytest_quest.rules import escapes, hidden
from pytest_quest.rules.assertions import check_assertions, patched_asserts
from pytest_quest.rules.names import (
    Names,
    const_str,
    expand,
    folded_strings,
    in_tmp,
    is_fixture,
    quote,
    rooted,
    truthiness,
)
from pytest_quest.submission import MAX_DEPTH, Submission, nesting

__all__ = ["MAX_TREE_DEPTH", "PARSES", "SOURCES_MODIFIED", "check", "check_after_run",
           "sources_check"]

_COVERAGE = ("coverage-lines", "coverage-branches")

PARSES = CATALOG.add(
    "test-file-parses", FAIL, "static",
    "The submitted test file is valid Python.",
    "Fix the syntax error on the line named in the fact.",
    supersedes=_COVERAGE,
)
SKIP = CATALOG.add(
    "static-skip", FAIL, "static",
    "No unconditional skip or xfail anywhere in the file (pytest.mark.skip, skipif/xfail with "
    "no or a constant-true condition, importorskip, pytest.skip()/xfail() calls, unittest skip, "
    "pytestmark skips): a skipped or xfailed test checks nothing. A skipif/xfail with a real "
    "condition is judged by the run (run-skipped).",
    "Remove the skip/xfail marker or call; test behaviour that runs here.",
    supersedes=_COVERAGE,
)
EXIT = CATALOG.add(
    "static-process-exit", FAIL, "static",
    "The test does not end or signal the process (os._exit, sys.exit, exit(), quit(), os.kill, "
    "os.abort, signal.*, also as another module's attribute (subprocess.signal.setitimer), "
    "atexit, pytest.exit, raise SystemExit/KeyboardInterrupt): an ended process hides the "
    "outcome, and a signal handler receives whatever frame is running.",
    "Do not exit, kill or signal the process; let pytest report every test.",
    supersedes=_COVERAGE,
)
HOOKS = CATALOG.add(
    "static-pytest-hooks", FAIL, "static",
    "The test file defines no pytest hooks (def pytest_*), loads no plugins (pytest_plugins, "
    "pluginmanager, hookimpl) and does not reach into _pytest or run pytest.main: a hook can "
    "rewrite reports.",
    "Delete the hook or plugin; a quest test contains tests and fixtures only.",
    supersedes=_COVERAGE,
)
PRAGMA = CATALOG.add(
    "static-coverage-pragma", FAIL, "static",
    "The submission contains no coverage pragma (# pragma: no cover / no branch).",
    "Delete the pragma comment.",
    supersedes=_COVERAGE,
)
TAMPER = CATALOG.add(
    "static-tracing-tamper", FAIL, "static",
    "The test does not touch the measuring machinery: coverage, pytest_cov, sys.settrace/"
    "setprofile/gettrace, sys.monitoring, threading.settrace, _thread, sys.addaudithook, "
    "pytest_quest. (Frames and the object graph: static-reflective-access; ctypes and "
    "cffi: static-native-code.)",
    "Remove the import or call named; test the function's behaviour, not the tool.",
    supersedes=_COVERAGE,
)
BUILTINS = CATALOG.add(
    "static-builtins-patched", FAIL, "static",
    "The test does not replace builtins (assignment, setattr, monkeypatch or mock.patch on "
    "builtins, __builtins__): that changes every module, the harness included.",
    "Pass the collaborator in as an argument or patch it in the module under test instead.",
    supersedes=_COVERAGE,
)
TARGET = CATALOG.add(
    "static-target-replaced", FAIL, "static",
    "The quest's function itself is not replaced or reloaded: monkeypatch.setattr, mock.patch("
    ".object), setattr, assignment, del, __code__ assignment, sys.modules swap or "
    "importlib.reload of its module.",
    "Call the real function; mock its collaborators, never the function under test.",
    supersedes=_COVERAGE,
)
SOURCE_WRITE = CATALOG.add(
    "static-source-write", FAIL, "static",
    "The test writes, moves or deletes no Python source (.py/.pyc/.pth, __file__, the target's "
    "file) outside tmp_path.",
    "Write files only under tmp_path; never modify the project's sources.",
    supersedes=_COVERAGE,
)
SOURCES_MODIFIED = CATALOG.add(
    "run-sources-modified", FAIL, "run",
    "After the run the sandbox's protected files (sources, tests, configs) hash exactly as they "
    "were copied, and no new .py/.pth file appeared next to them.",
    "Do not write to the project's files from the test; use tmp_path.",
    supersedes=_COVERAGE,
)

#: Dotted-name prefixes that are cheats wherever they are referenced.
_BANNED: dict[str, Rule] = {
    **dict.fromkeys((
        "pytest.skip", "pytest.xfail", "pytest.importorskip", "pytest.mark.skip",
        "pytest.mark.skipif", "pytest.mark.xfail", "unittest.skip", "unittest.skipIf",
        "unittest.skipUnless", "unittest.expectedFailure", "unittest.SkipTest",
        "unittest.case.SkipTest", "unittest.case.skip", "unittest.case.skipIf",
        "unittest.case.skipUnless", "unittest.case.expectedFailure",
    ), SKIP),
    **dict.fromkeys((
        "os._exit", "os.kill", "os.killpg", "os.abort", "posix._exit", "posix.kill",
        "posix.abort", "sys.exit", "exit", "quit", "builtins.exit", "builtins.quit", "signal",
        "_signal", "atexit", "pytest.exit", "_thread.interrupt_main", "faulthandler",
        "os.pidfd_open", "os.pthread_kill",
    ), EXIT),
    **dict.fromkeys((
        "pytest.hookimpl", "pytest.hookspec", "pluggy", "_pytest", "pytest.main",
        "pytest.Config.pluginmanager", "pytest.PytestPluginManager",
    ), HOOKS),
    **dict.fromkeys((
        "coverage", "sys.settrace", "sys.setprofile", "sys.gettrace", "sys.getprofile",
        "sys.monitoring", "threading.settrace", "threading.setprofile",
        "threading.settrace_all_threads", "threading.setprofile_all_threads",
        "threading.gettrace", "threading.getprofile", "_thread", "sys.addaudithook",
        "pytest_quest", "pytest_cov",
    ), TAMPER),
    "__builtins__": BUILTINS,
    **escapes.BANNED,
}
_EXIT_EXCEPTIONS = frozenset({"SystemExit", "KeyboardInterrupt", "builtins.SystemExit",
                              "builtins.KeyboardInterrupt"})
#: Matched on a line with its runs of blanks made one space: each ``\s?`` then takes one or
#: none, and the search is linear (``\s*no\s*[-_]?\s*`` on a line of a million blanks
#: backtracked for hours: red team 52 hung ``submit`` so).
_PRAGMA = re.compile(r"# ?pragma ?:? ?no ?[-_]? ?(cover|branch)", re.IGNORECASE)


def check(sub: Submission) -> Iterator[Fact]:
    """Every tier-0 rule over the parsed file; all facts at once so one try fixes them all."""
    if sub.syntax_error is not None:
        err = sub.syntax_error
        yield PARSES.fact(
            f"{sub.test_rel}:{err.lineno or 1}",
            "a test file that parses",
            f"SyntaxError: {err.msg}",
        )
        return
    if sub.unanalysable is not None:
        yield PARSES.fact(sub.test_rel, "a test file the gate can analyse", sub.unanalysable)
        return
    tree = sub.tree
    assert tree is not None
    module, parts = _target_parts(sub)
    names = Names(tree, own=module)
    yield from _references(sub, tree, names)
    yield from _dynamic_code(sub, tree, names)
    yield from hidden.check(sub, tree, names)
    yield from _pragmas(sub)
    yield from _builtins(sub, tree, names)
    yield from _target(sub, tree, names)
    yield from _source_writes(sub, tree, names)
    full = f"{module}.{'.'.join(parts)}"
    packages = {module.split(".")[0]} | {
        Path(s).name.removesuffix(".py") for s in sub.settings.sources}
    yield from escapes.check_escapes(
        sub, tree, names, escapes.Target(full, module, sub.quest.path, frozenset(packages)))
    yield from patched_asserts(sub, tree, names)
    yield from check_assertions(sub, tree, names, full)


def _call_func(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _at(sub: Submission, node: ast.AST) -> str:
    return f"{sub.test_rel}:{getattr(node, 'lineno', 1)}"


def _banned(name: str | None) -> tuple[Rule, str] | None:
    if not name:
        return None
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        rule = _BANNED.get(".".join(parts[:i]))
        if rule is not None:
            return rule, name
    return None


#: Markers that skip or xfail only while a condition holds. "if": pytest's rule (every
#: positional argument, or ``condition=``, is a condition; none means always); "unless":
#: unittest.skipUnless skips while its condition is false.
_CONDITIONAL = {
    "pytest.mark.skipif": "if", "pytest.mark.xfail": "if", "unittest.skipIf": "if",
    "unittest.case.skipIf": "if", "unittest.skipUnless": "unless",
    "unittest.case.skipUnless": "unless",
}


def _always_skips(call: ast.Call, name: str) -> bool:
    """A conditional marker whose condition is missing, constant-true or hidden (``*args``)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return True  # conditions the gate cannot see
    by_keyword = [k.value for k in call.keywords if k.arg == "condition"]
    if by_keyword:
        conditions = by_keyword
    elif name.startswith("pytest."):
        conditions = list(call.args)
    else:  # unittest.skipIf(condition, reason)
        conditions = list(call.args[:1])
    if not conditions:
        return True
    truths = [truthiness(c) for c in conditions]
    if _CONDITIONAL[name] == "unless":
        truths = [None if t is None else not t for t in truths]
    return True in truths


def _conditional_markers(tree: ast.AST, names: Names) -> tuple[set[int], dict[int, ast.Call]]:
    """Conditional skip/xfail markers: the nodes to leave alone, and the calls to quote.

    ``skipif(cond)``/``xfail(cond)``/``unittest.skipIf(cond)`` with a condition that
    is not a constant skips only where the condition holds (a version guard on an
    unrelated test); the run stage fails every test that does skip or xfail
    (``run-skipped``), so a condition crafted to be true in the sandbox is caught
    there. A marker without a condition, with a constant-true one (``True``, ``1``,
    ``"x"``, ``not False``) or with one the gate cannot see stays a ``static-skip``
    hit. An alias (``skip_if = pytest.mark.skipif``) is judged where it is used.
    """
    exempt: set[int] = set()
    calls: dict[int, ast.Call] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = (names.resolve(node.func) or "").removesuffix(".with_args")
            if name not in _CONDITIONAL:
                continue
            calls[id(node.func)] = node
            if not _always_skips(node, name):
                exempt.update(id(n) for n in ast.walk(node.func))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
            node.targets[0], ast.Name
        ) and node.targets[0].id != "pytestmark":
            assigned = names.resolve(node.value)
            if assigned in _CONDITIONAL and names.resolve(node.targets[0]) == assigned:
                exempt.update(id(n) for n in ast.walk(node))
    return exempt, calls


def _references(sub: Submission, tree: ast.Module, names: Names,
                quiet: bool = False) -> Iterator[Fact]:
    """Banned names referenced anywhere (imports, calls, decorators, bare references).

    ``quiet``: ``actual`` names the hit only (for code that is not the file's own text).
    """
    hits: dict[tuple[str, int], tuple[str, ast.AST]] = {}
    exempt, calls = _conditional_markers(tree, names)
    stubs = _stub_raises(tree, names)

    def hit(rule: Rule, name: str, node: ast.AST) -> None:
        key = (rule.id, getattr(node, "lineno", 1))
        if key not in hits or len(name) > len(hits[key][0]):
            hits[key] = (name, node)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            base = "." * getattr(node, "level", 0) + (getattr(node, "module", None) or "")
            for alias in node.names:
                full = alias.name if isinstance(node, ast.Import) else f"{base}.{alias.name}"
                if full in _CONDITIONAL:
                    continue  # judged where it is used
                # the last part is judged where it is used (``from blinker import signal``)
                found = _banned(rooted(full, end=False, own=names.own))
                if found:
                    hit(found[0], found[1], node)
        elif isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
            resolved = names.resolve(node)
            found = None if id(node) in exempt else _banned(resolved)
            if found and id(node) in calls:  # a conditional marker that always skips
                hit(found[0], f"{found[1]} with a constant or no condition", calls[id(node)])
            elif found:
                hit(found[0], found[1], node)
            if isinstance(node, ast.Attribute) and node.attr == "skipTest":
                hit(SKIP, "skipTest", node)
            if isinstance(node, ast.Attribute) and node.attr == "pluginmanager":
                hit(HOOKS, "pluginmanager", node)
        elif isinstance(node, ast.Raise) and node.exc is not None and id(node) not in stubs:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if names.resolve(exc) in _EXIT_EXCEPTIONS:
                hit(EXIT, f"raise {names.resolve(exc)}", node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "pytest_"
        ) and not is_fixture(node, names):
            hits[(HOOKS.id, node.lineno)] = (f"def {node.name}", node)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "pytest_plugins":
                    hits[(HOOKS.id, node.lineno)] = ("pytest_plugins", node)
    seen: set[tuple[str, str]] = set()
    for (rule_id, _line), (name, node) in sorted(hits.items()):
        if (rule_id, name) in seen:
            continue
        seen.add((rule_id, name))
        rule = CATALOG.get(rule_id)
        assert rule is not None
        actual = name if quiet else f"`{quote(sub, node)}`"
        yield rule.fact(_at(sub, node), f"no {name} in a quest test", actual)


#: Functions pytest itself calls by name: a raise in them is the test's own, never a stub's.
_PYTEST_CALLED = ("test", "setup", "teardown", "asyncsetup", "asyncteardown")


def _stub_raises(tree: ast.Module, names: Names) -> set[int]:
    """``raise SystemExit/KeyboardInterrupt`` statements that belong to a stub (their ids).

    A stub is a function the test hands to the code under test (``monkeypatch.setattr(mod,
    "prompt", interrupted)``, a method of a fake object) so that the target meets Ctrl-C or an
    exit and must handle it: click turns ``KeyboardInterrupt`` at a prompt into ``Abort``. Its
    raise is a stub's when the innermost function around it is not one pytest runs (a test,
    a fixture, a setup/teardown) and the file never calls it by name (``interrupted()``,
    ``fake.read()``): then only the code it is passed to can run it. Module-level raises and
    raises directly in a test stay hits. A stub the test calls some other way (through a list,
    ``getattr``) and that really ends the run is the run stage's: pytest reports a
    ``SystemExit`` as a failed test (``run-exit-code``), and a ``KeyboardInterrupt`` that
    nothing catches ends the run before its report (``run-no-report``).
    """
    called: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                called.add(func.id)
            elif isinstance(func, ast.Attribute):
                called.add(func.attr)
    out: set[int] = set()

    def visit(node: ast.AST, stub: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = stub
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = (not child.name.lower().startswith(_PYTEST_CALLED)
                         and not is_fixture(child, names) and child.name not in called)
            elif isinstance(child, ast.Raise) and stub:
                out.add(id(child))
            visit(child, inner)

    visit(tree, False)
    return out


_DYNAMIC = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval",
                      "builtins.compile"})


def _dynamic_code(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """Code hidden in an ``exec("...")`` string is checked like the file itself."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and names.resolve(node.func) in _DYNAMIC):
            continue
        text = const_str(node.args[0]) if node.args else None
        if text is None:
            continue
        try:
            inner = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        except (RecursionError, MemoryError):
            inner = None
        if inner is None or nesting(inner) > MAX_DEPTH:
            yield PARSES.fact(_at(sub, node), "code in a string the gate can analyse",
                              f"`{quote(sub, node)}` runs code that nests too deep to analyse "
                              f"(at most {MAX_DEPTH} levels)")
            continue
        for fact in _references(sub, inner, Names(inner, names.own), quiet=True):
            rule = CATALOG.get(fact.rule)
            assert rule is not None
            yield rule.fact(_at(sub, node), fact.expected,
                            f"`{quote(sub, node)}` runs code that uses {fact.actual}")


def _pragmas(sub: Submission) -> Iterator[Fact]:
    for number, line in enumerate(sub.test_text.splitlines(), start=1):
        match = _PRAGMA.search(" ".join(line.split())) if "#" in line else None
        if match:
            yield PRAGMA.fact(f"{sub.test_rel}:{number}", "no coverage pragma",
                              f"`{match.group(0)}`")


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(
        func, ast.Name) else ""


_PATCHERS = frozenset({"setattr", "delattr", "setitem", "delitem", "patch", "object", "dict",
                       "multiple"})


def _builtins(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """Writes to builtins; reading them (``builtins.len``) is fine."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = (node.targets if isinstance(node, ast.Assign | ast.Delete)
                       else [node.target])
        bad = any((names.resolve(t.value if isinstance(t, ast.Subscript) else t) or ""
                   ).startswith("builtins.") or names.resolve(t) == "builtins"
                  for t in targets if isinstance(t, ast.Attribute | ast.Subscript))
        if isinstance(node, ast.Call) and _call_name(node) in _PATCHERS and node.args:
            first = node.args[0]
            text = first.value if isinstance(first, ast.Constant) else None
            resolved = names.resolve(first) or ""
            bad = bad or (isinstance(text, str) and text.startswith("builtins.")) or (
                resolved in ("builtins", "builtins.__dict__"))
        if bad:
            yield BUILTINS.fact(_at(sub, node), "builtins left as they are",
                                f"`{quote(sub, node)}`")


def _target_parts(sub: Submission) -> tuple[str, list[str]]:
    """The target's module and its qualname parts (``Room.capacity.setter`` -> Room, capacity)."""
    module = module_name(sub.quest.path, sub.settings)
    parts = sub.quest.qualname.split("@", 1)[0].split(".")
    if len(parts) > 1 and parts[-1] in ("setter", "deleter", "getter"):
        parts.pop()
    return module, parts


def _target(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """The target replaced by name; precise, as the run catches it too (run-target-replaced)."""
    module, parts = _target_parts(sub)
    name, owner = parts[-1], ".".join([module, *parts[:-1]])
    full, qual = f"{module}.{'.'.join(parts)}", ".".join(parts)
    imported = {k for k, v in names.imports.items() if v == full}

    def is_target_path(text: object) -> bool:
        return isinstance(text, str) and (text == full or text.endswith("." + qual))

    def holder(node: ast.expr) -> bool:
        return names.resolve(node) in (owner, f"{owner}.__dict__")

    for node in ast.walk(tree):
        why = None
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Attribute) and leaf.attr == "__code__":
                        why = "assigns __code__"
                    elif isinstance(leaf, ast.Attribute) and names.resolve(leaf) == full:
                        why = f"rebinds {qual} in its module"
                    elif isinstance(leaf, ast.Name) and leaf.id in imported:
                        why = f"rebinds the imported {leaf.id}"
                    elif isinstance(leaf, ast.Subscript):
                        key = _const(leaf.slice)
                        base = names.resolve(leaf.value)
                        if base == "sys.modules" and key == module:
                            why = f"swaps {module} in sys.modules"
                        elif key == name and holder(leaf.value):
                            why = f"rebinds {qual} through __dict__"
        elif isinstance(node, ast.Call):
            why = _target_call(node, names, module, name, holder, is_target_path)
        if why:
            yield TARGET.fact(_at(sub, node), f"the real {sub.quest.qualname} is called",
                              f"the test {why}: `{quote(sub, node)}`")


def _const(node: ast.AST | None) -> object:
    folded = const_str(node)
    if folded is not None:
        return folded
    return node.value if isinstance(node, ast.Constant) else None


def _target_call(node: ast.Call, names: Names, module: str, name: str,
                 holder: object, is_target_path: object) -> str | None:
    """Why a call replaces the target (monkeypatch/mock/setattr/reload/sys.modules), or None."""
    assert callable(holder) and callable(is_target_path)
    call, args = _call_name(node), node.args
    resolved = names.resolve(node.func) or ""
    if call in ("setattr", "delattr", "object") and args:
        if is_target_path(_const(args[0])):
            return f"patches {_const(args[0])}"
        if len(args) >= 2 and _const(args[1]) == name and holder(args[0]):
            return f"patches {name} on {unparse(args[0])}"
        if len(args) >= 2 and _const(args[1]) == "__code__":
            return "assigns __code__"
    if call == "patch" and args and is_target_path(_const(args[0])):
        return f"patches {_const(args[0])}"
    if call == "multiple" and args and (holder(args[0]) or _const(args[0]) == module) and any(
        k.arg == name for k in node.keywords
    ):
        return f"patches {name} with patch.multiple"
    if call in ("setitem", "delitem", "dict") and args and names.resolve(args[0]) == "sys.modules":
        keys = [_const(a) for a in args[1:2]]
        if len(args) > 1 and isinstance(args[1], ast.Dict):
            keys = [_const(k) for k in args[1].keys]
        if module in keys:
            return f"swaps {module} in sys.modules"
    if call in ("setitem", "delitem") and len(args) >= 2 and _const(args[1]) == name and holder(
        args[0]
    ):
        return f"rebinds {name} through __dict__"
    if resolved in ("importlib.reload", "imp.reload") and args:
        what = names.resolve(args[0])
        if what and (what == module or module.startswith(what + ".")):
            return f"reloads {what}"
    return None


_SOURCE_SUFFIXES = (".py", ".pyc", ".pyo", ".pth", ".pyw")
_SOURCE_HINTS = frozenset({"__file__", "__spec__", "__cached__"})
_WRITE_FLAGS = frozenset({"os.O_WRONLY", "os.O_RDWR", "os.O_APPEND", "os.O_TRUNC", "os.O_CREAT"})
#: Functions whose argument positions are paths written/removed; -1: every positional.
_PATH_WRITERS = {
    "os.remove": (0,), "os.unlink": (0,), "os.rename": (0, 1), "os.replace": (0, 1),
    "os.truncate": (0,), "os.utime": (0,), "os.chmod": (0,), "os.symlink": (1,),
    "os.link": (1,), "shutil.copy": (1,), "shutil.copy2": (1,), "shutil.copyfile": (1,),
    "shutil.move": (0, 1), "shutil.rmtree": (0,), "shutil.copytree": (1,),
    "py_compile.compile": (0,), "compileall.compile_file": (0,), "compileall.compile_dir": (0,),
}
_PATH_METHODS = frozenset({"write_text", "write_bytes", "touch", "unlink", "rename", "replace",
                           "symlink_to", "hardlink_to", "chmod", "rmdir"})


def _source_writes(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """Writes to Python sources from the test (the run re-checks the hashes afterwards)."""
    target_file = Path(sub.quest.path).name
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        paths: list[ast.expr] = []
        resolved = names.resolve(node.func) or ""
        call = _call_name(node)
        if resolved in ("open", "io.open", "builtins.open", "codecs.open") and node.args:
            if _writes(_mode(node, 1), names):
                paths.append(node.args[0])
        elif resolved == "os.open" and len(node.args) >= 2 and _flags_write(node.args[1], names):
            paths.append(node.args[0])
        elif resolved in _PATH_WRITERS:
            paths += [node.args[i] for i in _PATH_WRITERS[resolved] if i < len(node.args)]
        elif isinstance(node.func, ast.Attribute) and (
            (call in _PATH_METHODS and not (call == "replace" and len(node.args) != 1))
            or (call == "open" and _writes(_mode(node, 0), names))
        ):  # str.replace(old, new) takes two arguments, Path.replace(target) one
            paths.append(node.func.value)
            if call in ("rename", "replace") and node.args:
                paths.append(node.args[0])
        for path in paths:
            if _is_source_path(path, names, target_file):
                yield SOURCE_WRITE.fact(_at(sub, node), "no writes to Python sources",
                                        f"`{quote(sub, node)}`")
                break


def _mode(node: ast.Call, index: int) -> ast.expr | None:
    for k in node.keywords:
        if k.arg == "mode":
            return k.value
    return node.args[index] if len(node.args) > index else None


def _writes(mode: ast.expr | None, names: Names) -> bool:
    if isinstance(mode, ast.Name) and len(names.assigned.get(mode.id, [])) == 1:
        mode = names.assigned[mode.id][0]
    value = _const(mode)
    return isinstance(value, str) and any(c in value for c in "wax+")


def _flags_write(node: ast.expr, names: Names) -> bool:
    return any(names.resolve(n) in _WRITE_FLAGS for n in ast.walk(node))


def _is_source_path(path: ast.expr, names: Names, target_file: str) -> bool:
    nodes = expand(path, names)
    texts = folded_strings(nodes)
    if in_tmp(nodes, names):
        return False
    if any(t.lower().rstrip().endswith(_SOURCE_SUFFIXES) or t.endswith(target_file)
           for t in texts):
        return True
    hinted = any(
        (isinstance(n, ast.Name) and n.id in _SOURCE_HINTS)
        or (isinstance(n, ast.Attribute) and n.attr in _SOURCE_HINTS | {"origin"})
        or (isinstance(n, ast.Call) and names.resolve(n.func) in (
            "inspect.getfile", "inspect.getsourcefile", "inspect.getmodule"))
        for n in nodes)
    other_suffix = any(re.search(r"\.[A-Za-z0-9]{1,5}$", t) for t in texts)
    return hinted and not other_suffix


#: How deep the sandbox copy may nest after a run; deeper is a change the gate cannot check.
MAX_TREE_DEPTH = 100


def check_after_run(sub: Submission) -> Iterator[Fact]:
    """After the run: the sandbox's pristine copies are unchanged, no new sources appeared.

    The static rules catch the obvious writes; this catches the rest (paths
    built at run time) by hashing, while the sandbox still exists.
    """
    box = sub.sandbox
    if box is None or sub.run is None:
        return
    for rel, digest in sorted(box.hashes.items()):
        now = box.current_hash(rel)
        if now != digest:
            yield SOURCES_MODIFIED.fact(
                rel, f"unchanged during the run (sha256 {digest[:12]})",
                "deleted" if now is None else f"changed ({now[:12]})",
            )
    # Walked without recursion and to a bounded depth: the run controls this tree (red
    # team 2, finding 13: 1500 nested folders made rglob raise RecursionError here).
    files, too_deep = safeio.walk_files(box.path, MAX_TREE_DEPTH)
    for rel in files:
        if "__pycache__" in rel.split("/") or not rel.endswith((".py", ".pth")):
            continue
        if rel not in box.hashes and rel != sub.test_rel:
            yield SOURCES_MODIFIED.fact(rel, "no new Python file in the project",
                                        "created during the run")
    if too_deep is not None:
        yield SOURCES_MODIFIED.fact(
            too_deep.split("/", 1)[0], f"a project tree the gate can check (at most "
            f"{MAX_TREE_DEPTH} folders deep)",
            f"the test left a tree over {MAX_TREE_DEPTH} folders deep")


#: The stage function the gate runs right after ``run`` (see rules/__init__.py).
sources_check = check_after_run
