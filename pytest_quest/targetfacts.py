"""What the judge needs to know of the target's text before the runs, learned in a child.

Every run is forked from the zygote, which is forked from the judge: whatever
the judge's heap held at that fork, every run's heap holds too, freed or not.
A run read the shipped text back from its own memory and compiled a clean
copy of the function to compare the installed one (a mutant) with (red team
10, finding 01). So the judge does not read the target's file before that
fork. A child forked for the purpose reads it, works out what the judge
needs from it, and answers with names and numbers only:

- the modules outside the project the target imports (the judge imports them
  once, so no run pays for them);
- the def's name and first line (how a run finds the function's code);
- the code watch's fingerprints of the def and its body (hashes of lines,
  never text: :func:`pytest_quest.scrub.fingerprint`);
- coverage.py's statements and branch arcs of the body (what each measured
  run must account for, :mod:`pytest_quest.runtrust`).

The child's memory ends with it. The judge reads the file itself once the
zygote exists (to compile the module and the mutants), or earlier when a
conftest imports the module: then the runs inherit the text, and
docs/security.md says what that leaves open.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import warnings
from dataclasses import asdict, dataclass
from typing import Any

from pytest_quest.mutants import MutationError, function_node
from pytest_quest.scrub import fingerprint

__all__ = ["Known", "TargetFacts", "body_coverage", "learn", "read_apart",
           "third_party_imports"]

#: coverage.py's statements of the body, and its branch arcs (branch mode).
Known = tuple[tuple[int, ...], tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class TargetFacts:
    """The target's text as the judge may know it: names and numbers, no text."""

    imports: tuple[str, ...]
    #: The def at the quest's line, and its first line (decorators included); "" and 0 where
    #: there is no def there (generated code): no recorder, mutation says why.
    name: str
    first_line: int
    #: :func:`pytest_quest.scrub.fingerprint` of the def: what the code watch compares with.
    function: tuple[int, ...]
    body: tuple[int, ...]
    known: Known | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TargetFacts:
        known = data["known"]
        return cls(tuple(data["imports"]), data["name"], int(data["first_line"]),
                   tuple(data["function"]), tuple(data["body"]),
                   None if known is None else (tuple(known[0]),
                                               tuple((a, b) for a, b in known[1])))


def learn(text: str, path: str, lines: tuple[int, int], body: tuple[int, int],
          sandbox: str, branch: bool, cov: Any) -> TargetFacts:
    """The facts, from the text of the target's file at ``path`` (the child's work)."""
    try:
        name, first_line = function_node(text, lines[0])
    except MutationError:
        name, first_line = "", 0
    function, function_body = fingerprint(
        "".join(text.splitlines(keepends=True)[lines[0] - 1:lines[1]]))
    return TargetFacts(tuple(third_party_imports(text, sandbox)), name, first_line, function,
                       function_body, body_coverage(cov, path, body, branch))


def read_apart(path: str, lines: tuple[int, int], body: tuple[int, int], sandbox: str,
               branch: bool, cov: Any) -> TargetFacts:
    """:func:`learn` in a forked child that reads the file; the judge never holds its text.

    A child that cannot answer (the file is unreadable or no Python) leaves
    it to the judge, which reads the file here and fails the way it would
    have: the same error, from the same place.
    """
    read, write = os.pipe()
    with warnings.catch_warnings():
        # The judge is single-threaded here; the child reads a file and exits.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its work is learn(), tested on its own)
        os.close(read)
        try:
            with open(path, encoding="utf-8") as handle:
                facts = learn(handle.read(), path, lines, body, sandbox, branch, cov)
            payload = json.dumps(asdict(facts)).encode()
        except BaseException:
            payload = b""
        view = memoryview(payload)
        while view:
            view = view[os.write(write, view):]
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        answer = handle.read()
    os.waitpid(pid, 0)
    if answer:
        return TargetFacts.from_json(json.loads(answer))
    with open(path, encoding="utf-8") as handle:
        return learn(handle.read(), path, lines, body, sandbox, branch, cov)


def third_party_imports(source: str, sandbox: str) -> list[str]:
    """Modules the target imports that live outside the sandbox (found statically).

    The judge imports them before forking, so each run pays nothing for
    them; the project's own modules stay unimported, so every run loads them
    fresh (with the run's target in place).
    """
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    root = os.path.realpath(sandbox) + os.sep
    out: list[str] = []
    for name in dict.fromkeys(names):
        try:
            found = importlib.util.find_spec(name.split(".", 1)[0])
        except (ImportError, ValueError):
            continue
        origin = getattr(found, "origin", None)
        if found is None or not origin or os.path.realpath(origin).startswith(root):
            continue
        out.append(name)
    return out


def body_coverage(cov: Any, path: str, body: tuple[int, int], branch: bool) -> Known | None:
    """The statements and (branch mode) the branch arcs of the body, from coverage.py's static
    analysis of the file (its parser, the way its reports count them), whatever ran; None
    where coverage cannot say.

    The arcs come from the file reporter, not from an analysis of the data: that one has no
    arcs for a file nothing measured yet (the judge, before any run)."""
    first, last = body
    arcs: list[tuple[int, int]] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = cov.analysis2(path)[1]
            reporter = getattr(cov, "_get_file_reporter", None)
            if branch and reporter is not None:
                parsed = reporter(path)
                exits = parsed.exit_counts()
                no_branch = parsed.no_branch_lines()
                excluded = parsed.excluded_lines()
                arcs = sorted((int(src), int(dst)) for src, dst in parsed.arcs()
                              if first <= src <= last and exits.get(src, 0) > 1
                              and src not in no_branch and dst not in excluded)
    except Exception:
        return None
    inside = tuple(sorted(n for n in found if first <= n <= last))
    if not inside:
        return None
    return inside, tuple(arcs)

