"""What ``next`` hands the agent: the quest, its lines, an example, the last facts.

Everything here is data an agent can act on. The example test is cut from the
project's own suite when one imports the same module (so fixtures and style
match), else it is a small built-in template.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_quest.astext import unparse
from pytest_quest.config import Settings
from pytest_quest.errors import PARSE_ERRORS
from pytest_quest.measure import format_lines
from pytest_quest.paths import default_test_path, locked_by_others, module_name
from pytest_quest.quest import Quest

__all__ = ["Brief", "brief", "executable_lines"]


@dataclass(frozen=True)
class Brief:
    """One quest, ready to show."""

    quest: Quest
    source: str
    first_line: int
    statements: tuple[int, ...]
    missing: tuple[int, ...]
    test_path: str
    example: str
    example_from: str | None
    submit_command: str
    max_tries: int

    def to_dict(self) -> dict[str, Any]:
        q = self.quest
        return {
            "quest": q.id,
            "path": q.path,
            "qualname": q.qualname,
            "kind": q.kind,
            "lines": list(q.lines),
            "statements": list(self.statements),
            "missing_lines": list(self.missing),
            "tries": q.tries,
            "max_tries": self.max_tries,
            "tries_left": max(0, self.max_tries - q.tries),
            "test_path": self.test_path,
            "facts": [f.to_dict() for f in q.facts],
            "example": self.example,
            "example_from": self.example_from,
            "submit": self.submit_command,
            "source": self.source,
            "prompt": self.text(),
        }

    def text(self) -> str:
        """The plain-text prompt: what an agent needs, in the order it needs it."""
        q = self.quest
        lines = [
            f"Quest {q.id} ({q.kind}), lines {q.lines[0]}-{q.lines[1]} of {q.path}.",
            f"Write a pytest file at {self.test_path} whose tests, run alone, execute every "
            f"line of {q.qualname} and fail if its behaviour changes.",
            f"Lines not yet executed by your test: {format_lines(self.missing) or 'none'}.",
            f"Tries used: {q.tries} of {self.max_tries}. Only a FAIL spends a try.",
        ]
        if q.facts:
            lines.append("Facts of your last try:")
            lines.extend(f"  - {f.line()}" for f in q.facts)
        lines += [
            "Rules: do not edit sources, existing tests or configs; no skip/xfail; no mocking "
            "of the function itself; real assertions on exact values (mutants must fail).",
            "Source:",
            self.numbered_source(),
            f"Example ({self.example_from or 'template'}):",
            self.example,
            f"Then run: {self.submit_command}",
            "A line no input can reach (defensive code): add --unreachable LINE:\"REASON\" "
            "to that command; a human reviews the claim (REVIEW) instead of a FAIL.",
        ]
        return "\n".join(lines)

    def numbered_source(self) -> str:
        out = []
        missing = set(self.missing)
        for offset, text in enumerate(self.source.splitlines()):
            number = self.first_line + offset
            mark = ">" if number in missing else " "
            out.append(f"{mark}{number:5d}  {text}")
        return "\n".join(out)


def executable_lines(path: Path, body: tuple[int, int]) -> tuple[int, ...]:
    """The lines coverage.py counts as statements inside ``body`` (the span if unparsable)."""
    from pytest_quest.lines import statements

    try:
        found = statements(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        found = frozenset()
    if not found:
        return tuple(range(body[0], body[1] + 1))
    return tuple(sorted(x for x in found if body[0] <= x <= body[1]))


def brief(quest: Quest, settings: Settings, quest_ids: Iterable[str] = (),
          records: Iterable[Mapping[str, Any]] = ()) -> Brief:
    """Everything ``next`` shows for ``quest``; ``quest_ids``: the ledger's, for its test path.

    ``records``: the ledger's raw quest records, so the test path is never a file another
    quest is locked on (:func:`pytest_quest.paths.default_test_path`).

    Without them the test path is the readable name even where another quest
    shares it (see :func:`pytest_quest.paths.quest_file_name`): ``next``,
    ``submit`` and the MCP server pass them.
    """
    path = settings.root / quest.path
    try:
        all_lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        all_lines = []
    start = _start_with_decorators(all_lines, quest.lines[0])
    source = "\n".join(all_lines[start - 1 : quest.lines[1]])
    statements = executable_lines(path, quest.body)
    missing = quest.missing if quest.missing is not None and quest.tries else statements
    test_path = default_test_path(quest, settings, quest_ids,
                                  locked_by_others(records, quest.id))
    example, origin = _example(quest, settings)
    command = f"pytest-quest submit {shlex.quote(quest.id)} --test {shlex.quote(test_path)}"
    return Brief(quest, source, start, statements, missing, test_path, example, origin, command,
                 settings.max_tries)


def _start_with_decorators(lines: list[str], def_line: int) -> int:
    start = def_line
    while start > 1 and lines[start - 2].lstrip().startswith("@"):
        start -= 1
    return start


def _example(quest: Quest, settings: Settings) -> tuple[str, str | None]:
    """A test cut from the project's own suite that would pass the static rules as a quest test.

    The example is what the agent copies, so it must work where the agent's
    file goes: every import resolves from the quest folder (no
    ``from common import skip`` that only works beside the original file), no
    name, helper or fixture is left behind in the original module, and the
    gate's static stage accepts it (a benchmark test with no assertion does
    not). A test that calls the target wins; then one from a file importing its
    module; then any other test that qualifies (it still shows the project's
    style); a small template only when none does.
    """
    module = module_name(quest.path, settings)
    name = quest.qualname.split("@")[0].split(".")[0]
    context = _ExampleContext(settings)
    best: tuple[int, str, str] | None = None
    for test_file in _project_tests(settings):
        try:
            text = test_file.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, *PARSE_ERRORS):
            continue
        rel = test_file.relative_to(settings.root).as_posix()
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        mentions = any(
            (isinstance(n, ast.ImportFrom) and n.module and n.module.startswith(module))
            or (isinstance(n, ast.Import) and any(a.name.startswith(module) for a in n.names))
            for n in imports
        )
        local = _module_names(tree) - {bound for n in imports for bound in _bound(n)}
        lines = text.splitlines()
        for test in (n for n in tree.body
                     if isinstance(n, ast.FunctionDef) and n.name.startswith("test")):
            used = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
            rank = 0 if name in used else (1 if mentions else 2)
            if best is not None and rank >= best[0]:
                continue
            snippet = context.snippet(test, imports, local, used, lines, test_file)
            if snippet is not None and context.passes_static(quest, snippet):
                best = (rank, snippet, rel)
        if best is not None and best[0] == 0:
            break
    if best is not None:
        return best[1], best[2]
    return _template(quest, module), None


def _bound(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names an import statement binds."""
    return [(a.asname or a.name).split(".")[0] for a in node.names]


def _module_names(tree: ast.Module) -> set[str]:
    """Names a test module defines at its top level (functions, classes, assignments)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update(_bound(node))
    return out


#: Fixtures pytest itself provides (a quest test may use them anywhere).
_BUILTIN_FIXTURES = frozenset({
    "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "monkeypatch", "capsys",
    "capsysbinary", "capfd", "capfdbinary", "caplog", "recwarn", "request", "pytestconfig",
    "cache", "record_property", "record_testsuite_property", "record_xml_attribute",
    "doctest_namespace", "subtests",
})


class _ExampleContext:
    """What an example may rely on from the quest folder: importable modules, conftest fixtures."""

    def __init__(self, settings: Settings) -> None:
        import importlib.util
        import sys

        self.settings = settings
        self._find_spec = importlib.util.find_spec
        self._stdlib = sys.stdlib_module_names
        self._importable: dict[str, bool] = {}
        self.fixtures = _conftest_fixtures(settings)

    def importable(self, top: str, test_file: Path) -> bool:
        """Can the quest folder's test import ``top``? Not a module beside the original test."""
        key = f"{test_file.parent}:{top}"
        if key not in self._importable:
            self._importable[key] = self._resolve(top, test_file)
        return self._importable[key]

    def _resolve(self, top: str, test_file: Path) -> bool:
        from pytest_quest.paths import import_roots

        root = self.settings.root
        for base in import_roots(self.settings):
            folder = root if base == "." else root / base
            if (folder / f"{top}.py").is_file() or (folder / top).is_dir():
                return True
        if (test_file.parent / f"{top}.py").is_file() or (test_file.parent / top).is_dir():
            return False  # found only beside the original test (rootdir-relative import)
        if top in self._stdlib:
            return True
        try:
            return self._find_spec(top) is not None
        except (ImportError, ValueError):
            return False

    def snippet(self, test: ast.FunctionDef, imports: list[ast.Import | ast.ImportFrom],
                local: set[str], used: set[str], lines: list[str], test_file: Path) -> str | None:
        """Imports the test uses plus the test itself, or None when it needs what stays behind."""
        for decorator in test.decorator_list:
            used |= {n.id for n in ast.walk(decorator) if isinstance(n, ast.Name)}
        if used & local:
            return None  # a helper, constant or fixture of the original module
        params = [a.arg for a in (*test.args.posonlyargs, *test.args.args, *test.args.kwonlyargs)]
        parametrized = {n.value for d in test.decorator_list for n in ast.walk(d)
                        if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        for param in params:
            names = {p.strip() for text in parametrized for p in text.split(",")}
            if param not in _BUILTIN_FIXTURES and param not in self.fixtures and (
                param not in names
            ):
                return None  # a fixture the quest folder may not see (a plugin's, a module's)
        kept = []
        for node in imports:
            if not set(_bound(node)) & used:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level or not node.module:
                    return None  # relative to the original test's package
                tops = [node.module.split(".")[0]]
            else:
                tops = [a.name.split(".")[0] for a in node.names]
            if not all(self.importable(top, test_file) for top in tops):
                return None
            kept.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
        first = min([test.lineno, *(d.lineno for d in test.decorator_list)])
        body = "\n".join(lines[first - 1 : test.end_lineno])
        head = "\n".join(kept)
        return (f"{head}\n\n\n{body}\n" if head else f"{body}\n").lstrip("\n")

    def passes_static(self, quest: Quest, snippet: str) -> bool:
        """Would the gate's static stage accept ``snippet`` as this quest's test file?"""
        from pytest_quest.facts import FAIL
        from pytest_quest.rules import static
        from pytest_quest.submission import Submission, parse

        sub = parse(Submission(settings=self.settings, quest=quest,
                               # Any file in the quest folder does for the static stage.
                               test_rel=default_test_path(quest, self.settings, ()),
                               test_bytes=snippet.encode("utf-8"), snapshot={}))
        return not any(f.level == FAIL for f in static.check(sub))


def _conftest_fixtures(settings: Settings) -> frozenset[str]:
    """Fixtures defined in the conftests a test in the quest folder sees (root down to it)."""
    found: set[str] = set()
    folder = settings.root
    for part in ("", *settings.test_dir.strip("/").split("/")):
        folder = folder / part if part else folder
        try:
            tree = ast.parse((folder / "conftest.py").read_text(encoding="utf-8"))
        except (OSError, *PARSE_ERRORS):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                "fixture" in unparse(d) for d in node.decorator_list
            ):
                found.add(node.name)
    return frozenset(found)


def _project_tests(settings: Settings) -> list[Path]:
    quest_dir = (settings.root / settings.test_dir).resolve()
    found = []
    for folder in ("tests", "test", "."):
        base = settings.root / folder
        if not base.is_dir():
            continue
        pattern = "test_*.py" if folder == "." else "**/test_*.py"
        for path in sorted(base.glob(pattern)):
            if quest_dir in path.resolve().parents:
                continue
            from pytest_quest.scanner import is_test_file  # only where there are tests

            rel = path.relative_to(settings.root).as_posix()
            if is_test_file(rel):
                found.append(path)
        if found:
            break
    return found[:50]


def _template(quest: Quest, module: str) -> str:
    parts = quest.qualname.split("@")[0].split(".")
    if parts[-1] in ("setter", "deleter"):
        parts.pop()
    top = parts[0]
    call = ".".join(parts) if len(parts) == 1 else f"{parts[0]}(...).{'.'.join(parts[1:])}"
    name = "_".join(p.lower() for p in parts)
    return (
        f"import pytest\n\nfrom {module} import {top}\n\n\n"
        f"def test_{name}_returns_expected_value():\n"
        f"    assert {call}(...) == ...  # exact expected value\n\n\n"
        f"def test_{name}_rejects_bad_input():\n"
        f"    with pytest.raises(ValueError):\n"
        f"        {call}(...)\n"
    )
