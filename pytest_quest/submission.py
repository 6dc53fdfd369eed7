"""Everything the gate's rules may look at for one submission, and how each stage fills it.

A :class:`Submission` is frozen: rules only read it. What is expensive to
know (the sandbox copy, the run) is filled in by the preparation of the stage
that owns it, which returns a new submission, so a stage that FAILs early
saves the cost of the later ones and no rule can leave notes for another:

- ``static`` parses the file (:func:`parse`);
- ``scope`` copies the project into a sandbox, hashing what it copies, and
  hashes the other quests' locked tests (:func:`copy_project`);
- ``run`` runs the test in the sandbox (:func:`run_tests`); the target's
  coverage (:attr:`Submission.measured`) is read from that run.

The sandbox is registered in :attr:`Submission.resources`, which the caller
closes when the verdict is reached (or when a preparation raises).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import cached_property

from pytest_quest import safeio
from pytest_quest.config import Settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.measure import Measured, measure
from pytest_quest.protocol import EventKind, HarnessSpec
from pytest_quest.quest import Quest
from pytest_quest.sandbox import RunResult, Sandbox, file_sha256
from pytest_quest.sandbox import run as run_sandbox

__all__ = ["MAX_BYTES", "MAX_DEPTH", "Claim", "Submission", "copy_project", "nesting", "parse",
           "run_tests", "stray_files"]

#: How deep a submitted file's syntax tree may nest. The static rules walk it with recursive
#: visitors; real test files stay near 20 levels. Deeper is a FAIL, never a traceback (red
#: team 2, finding 11: 3000 levels made ``ast.parse`` itself raise ``RecursionError``).
MAX_DEPTH = 100
#: How large a submitted file may be. The static stage runs in the caller's process with no
#: time limit; real test files stay far below (boltons' largest is 60 KB). Larger is a FAIL
#: before any rule reads it (red team 52 hung a rule on a line of a million blanks).
MAX_BYTES = 1 << 20
#: One line of text with its end, as the syntax tree counts lines (no form feed splits one).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass(frozen=True)
class Claim:
    """An agent's claim that a line cannot be reached; only a human can accept it."""

    line: int
    reason: str


@dataclass(frozen=True)
class Submission:
    """One test file offered for one quest, as far as the gate has looked at it."""

    settings: Settings
    quest: Quest
    #: Test path from the project root (posix).
    test_rel: str
    test_bytes: bytes
    #: Protected files and their hashes at the last scan.
    snapshot: Mapping[str, str]
    #: Test files locked by other PASS quests -> sha256.
    locked_tests: Mapping[str, str] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()
    #: A dry run: nothing is recorded, and its schedule is not the recorded submission's.
    preview: bool = False
    #: What the harness is asked to do in the sandbox (built by the submit service).
    spec: HarnessSpec | None = None
    #: Closes what the preparations opened (the sandbox); owned by the caller.
    resources: ExitStack = field(default_factory=ExitStack, compare=False, repr=False)
    # --- static
    tree: ast.Module | None = None
    syntax_error: SyntaxError | None = None
    #: Why a file that may be valid Python cannot be analysed (it nests too deep).
    unanalysable: str | None = None
    # --- scope
    #: Files the agent left in the quest test folder besides its test.
    stray_files: tuple[str, ...] = ()
    #: Protected files in the working tree now -> sha256 (hashed while copied into the sandbox).
    working_tree: Mapping[str, str] = field(default_factory=dict)
    #: Those of them that are data, not code: a new one changes no test (``sandbox.runs_code``).
    data_files: frozenset[str] = frozenset()
    #: The other quests' locked tests now -> sha256 (None: the file is gone).
    locked_now: Mapping[str, str | None] = field(default_factory=dict)
    sandbox: Sandbox | None = None
    # --- run
    run: RunResult | None = None

    @cached_property
    def test_text(self) -> str:
        """The test file's text as Python reads it (its coding cookie, else UTF-8): the syntax
        tree's offsets count in it (a file decoded otherwise than its tree was quoted a node
        past a character's bytes: red team 51 crashed ``submit`` with a latin-1 cookie).
        Bytes that do not decode are replaced."""
        try:
            return importlib.util.decode_source(self.test_bytes)
        except (SyntaxError, UnicodeDecodeError, LookupError):
            return self.test_bytes.decode("utf-8", errors="replace")

    @cached_property
    def test_lines(self) -> list[str]:
        """:attr:`test_text` split into lines as the syntax tree counts them (``\\r\\n``,
        ``\\n``, ``\\r``; ends kept), once: a fact quotes its node from them, where
        ``ast.get_source_segment`` splits the whole text again for every fact (red team 62:
        57,000 facts on a file of 1 MB kept ``submit`` busy for hours)."""
        return _LINE.findall(self.test_text)

    @cached_property
    def measured(self) -> Measured | None:
        """The target's coverage in this run, or None when coverage saw nothing (or no run)."""
        if self.run is None or self.run.coverage_files is None:
            return None
        entry = self.run.coverage_files.get(self.quest.path)
        if entry is None:
            return None
        return measure(entry, self.quest.body, self.settings.branch)


def nesting(tree: ast.AST, limit: int = MAX_DEPTH) -> int:
    """How deep ``tree`` nests, counted without recursion; stops counting past ``limit``."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse(sub: Submission) -> Submission:
    """The ``static`` stage's preparation: the file's syntax tree, or why it has none.

    A file larger than :data:`MAX_BYTES`, one the parser cannot hold
    (``RecursionError``, ``MemoryError``) or whose tree nests deeper than
    :data:`MAX_DEPTH` gets no tree: the rules would work through it in this
    unconfined process.
    """
    too_deep = f"the test file nests too deep to analyse (at most {MAX_DEPTH} levels)"
    if len(sub.test_bytes) > MAX_BYTES:
        return replace(sub, unanalysable=f"the test file has {len(sub.test_bytes)} bytes "
                                          f"(at most {MAX_BYTES} are analysed)")
    try:
        tree = ast.parse(sub.test_bytes, filename=sub.test_rel)
    except SyntaxError as exc:
        return replace(sub, syntax_error=exc)
    except ValueError as exc:  # null bytes
        return replace(sub, syntax_error=SyntaxError(str(exc), (sub.test_rel, 1, 0, "", 1, 0)))
    except (RecursionError, MemoryError):
        return replace(sub, unanalysable=too_deep)
    if nesting(tree) > MAX_DEPTH:
        return replace(sub, unanalysable=too_deep)
    return replace(sub, tree=tree)


def copy_project(sub: Submission) -> Submission:
    """The ``scope`` stage's preparation: the sandbox copy and the hashes the scope rule judges.

    The copy hashes each protected file as it copies it, so the scope rule
    judges exactly the bytes the test will run against.
    """
    settings = sub.settings
    box = Sandbox.create(settings, {sub.test_rel: sub.test_bytes})
    sub.resources.callback(box.cleanup)
    root = settings.root
    return replace(
        sub,
        sandbox=box,
        working_tree=dict(box.hashes),
        data_files=frozenset(box.data),
        locked_now={rel: file_sha256(root / rel) for rel in sub.locked_tests},
        stray_files=stray_files(settings, sub.test_rel, sub.locked_tests),
    )


def run_tests(sub: Submission) -> Submission:
    """The ``run`` stage's preparation: the test in the sandbox, with coverage and mutants.

    Raises :class:`EnvironmentFault` when the unchanged project cannot run
    there: that is our problem, not the agent's, and must not spend a try.
    """
    if sub.sandbox is None or sub.spec is None:
        return sub
    settings = sub.settings
    result = run_sandbox(
        sub.sandbox, settings, sub.spec, settings.timeout, grace=settings.timeout * 2,
        preview=sub.preview,
    )
    _raise_env_fault(sub.quest, result)
    return replace(sub, run=result)


def stray_files(settings: Settings, test_rel: str, locked: Mapping[str, str]) -> tuple[str, ...]:
    """Files in the quest folder that could change how tests run (conftests, helpers, configs)."""
    folder = settings.root / settings.test_dir
    if not folder.is_dir():
        return ()
    out = []
    # Agents write here: walked without recursion, to a bounded depth (red team 2, finding 13).
    names, too_deep = safeio.walk_files(folder, MAX_DEPTH)
    prefix = folder.relative_to(settings.root).as_posix()
    for inner in names:
        path = folder / inner
        if "__pycache__" in inner.split("/") or not path.is_file():
            continue
        rel = f"{prefix}/{inner}"
        name = path.name
        if rel == test_rel or rel in locked or name == "__init__.py":
            continue
        if name == "conftest.py" or (name.endswith(".py") and not name.startswith("test_")) or (
            name.endswith((".pth", ".ini", ".cfg", ".toml"))
        ):
            out.append(rel)
    if too_deep is not None:  # what it holds cannot be checked: a stray like any other
        out.append(f"{prefix}/{too_deep}")
    return tuple(out)


def _raise_env_fault(quest: Quest, run: RunResult) -> None:
    if run.tampered is not None or run.first(EventKind.TAMPERED) is not None:
        return  # the run rule says FAIL; a forged env_error must not buy a free try
    env = run.first(EventKind.ENV_ERROR)
    if env is not None:
        raise EnvironmentFault(
            f"could not verify {quest.id}: the unchanged project does not import in the "
            f"sandbox ({env['message']}); no try was spent"
        )
    early = [e["what"] for e in run.of(EventKind.DENIED) if e.get("before_test")]
    if early:  # issue 8 bug 2: a plugin or conftest, not the test, did it
        raise EnvironmentFault(
            f"could not verify {quest.id}: the sandbox refused {early[0]} before the test "
            "started, so the project's plugins or conftest did it, not the test (processes are "
            f"allowed only under kernel confinement; here: {run.isolation}, see `pytest-quest "
            "doctor`); no try was spent"
        )
    if not run.started and not run.timed_out:
        # The run's output is never echoed here: a fault costs no try, so whatever a run
        # prints into it would be a free channel out (and it once carried the caller's secrets).
        raise EnvironmentFault(
            f"could not verify {quest.id}: the sandbox did not start (the harness exited "
            f"with code {run.returncode} before reporting; `pytest-quest doctor` checks the "
            "interpreter and the isolation); no try was spent"
        )
