"""What ``next`` hands the agent: the quest, its lines, an example, the last facts.

Everything here is data an agent can act on. The example test is cut from the
project's own suite when one imports the same module (so fixtures and style
match), else it is a small built-in template.
"""

from __future__ import annotations

import ast
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.measure import format_lines
from pytest_quest.paths import default_test_path, module_name
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


def brief(quest: Quest, settings: Settings) -> Brief:
    """Everything ``next`` shows for ``quest``."""
    path = settings.root / quest.path
    try:
        all_lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        all_lines = []
    start = _start_with_decorators(all_lines, quest.lines[0])
    source = "\n".join(all_lines[start - 1 : quest.lines[1]])
    statements = executable_lines(path, quest.body)
    missing = quest.missing if quest.missing is not None and quest.tries else statements
    test_path = default_test_path(quest, settings)
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
    module = module_name(quest.path, settings)
    best: tuple[int, str, str] | None = None
    for test_file in _project_tests(settings):
        try:
            text = test_file.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, SyntaxError, ValueError):
            continue
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        mentions = any(
            (isinstance(n, ast.ImportFrom) and n.module and n.module.startswith(module))
            or (isinstance(n, ast.Import) and any(a.name.startswith(module) for a in n.names))
            for n in imports
        )
        tests = [
            n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
        ]
        if not tests:
            continue
        lines = text.splitlines()
        snippet = "\n".join(
            "\n".join(lines[n.lineno - 1 : n.end_lineno]) for n in imports
        ) + "\n\n\n" + "\n".join(lines[tests[0].lineno - 1 : tests[0].end_lineno])
        rank = 0 if mentions else 1
        rel = test_file.relative_to(settings.root).as_posix()
        if best is None or rank < best[0]:
            best = (rank, snippet.strip() + "\n", rel)
        if rank == 0:
            break
    if best is not None:
        return best[1], best[2]
    return _template(quest, module), None


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
