"""Every shell block of README.md and docs/*.md runs, literally, or says why it cannot here.

A document a user follows step by step is a promise; this module keeps it.
Each fenced ``console``, ``sh``, ``bash`` or ``shell`` block is one test: it
runs with bash (``set -eo pipefail``) in a fresh copy of the bundled example
project (a git clone on ``main`` with an ``origin``, already scanned, as a user
has it after the README's first steps), or in a fresh copy of this repository,
with this install's ``pytest-quest`` and ``pytest`` first on ``PATH``. In a
``console`` block the lines after ``$ `` are the commands (continued by a
trailing backslash) and the rest is output, each line of which must be printed
(``...`` stands for anything, the project's folder is ``/path/project``);
``sh``/``bash``/``shell`` blocks run as written.

HTML comments right above a block (blank lines between are fine) steer it,
one per line; docs/development.md documents them:

- ``<!-- doc-test skip: needs ... -->``: not runnable here, and why (a network,
  GitHub, the package on PyPI, an agent's account); reported as a skip.
- ``<!-- doc-test in: checkout -->``: run in a copy of this repository instead
  of the example project (install and build commands); ``in: unscanned`` runs
  in an example project that has not been scanned yet.
- ``<!-- doc-test before: COMMAND -->``: a step the reader has already taken
  (a quest test written, a quest sent to REVIEW), run first; repeatable.
- ``<!-- doc-test replace: QUEST_ID => hotel/pricing.py::tax_amount -->``:
  fill in a placeholder; repeatable.
- ``<!-- doc-test tool: pre-commit -->``: a program the test extra installs;
  without it the block is skipped, saying so.
- ``<!-- doc-test file: .pre-commit-config.yaml -->`` above a non-shell
  block: the reader saves it there; the shell blocks below it in the same
  document find it in their project.

Other code blocks must name their language (``text`` for output, ``toml``,
``yaml``, ...) and indented code blocks are refused, so no shell block can
hide from this runner.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.test_history_locks import TAX_TEST
from tests.test_submit import FULL

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
SHELL = frozenset({"console", "sh", "bash", "shell"})
#: Languages a non-shell block may name.
OTHER = frozenset({"text", "toml", "yaml", "json", "python"})
_MARKER = re.compile(r"^<!-- doc-test (skip|in|before|replace|file|tool): (.+?) -->$")
_PLACES = ("example", "unscanned", "checkout")
#: What a copy of this repository leaves out: what a clone would not have.
NOT_IN_A_CLONE = shutil.ignore_patterns(".git", ".venv*", ".ci-venv*", "__pycache__",
                                         "*.egg-info", ".pytest_cache", "build", "dist",
                                         ".quest", "_work", ".ruff_cache")


@dataclass
class Block:
    """One code block of a document, with the markers above it."""

    document: Path
    line: int
    info: str
    text: str
    skip: str = ""
    place: str = "example"
    before: list[str] = field(default_factory=list)
    replace: list[tuple[str, str]] = field(default_factory=list)
    #: Programs the block runs that the test extra installs: skipped, named, when absent.
    tools: list[str] = field(default_factory=list)
    #: A file block: the project path the reader saves it to.
    file: str = ""
    #: The file blocks above this one in its document: path -> content.
    files: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(REPO).as_posix()}:{self.line}"

    def output(self) -> list[str]:
        """The output lines a ``console`` block shows (``...`` stands for anything)."""
        if self.info != "console":
            return []
        shown, continued = [], False
        for line in self.text.splitlines():
            if line.startswith("$ ") or continued:
                continued = line.rstrip().endswith("\\")
            elif line.strip():
                shown.append(line.strip())
        return shown

    def script(self) -> str:
        """The commands a reader types, placeholders filled in."""
        if self.info == "console":
            commands: list[str] = []
            continued = False
            for line in self.text.splitlines():
                if line.startswith("$ ") or continued:
                    commands.append(line[2:] if line.startswith("$ ") else line)
                    continued = line.rstrip().endswith("\\")
            body = "\n".join(commands)
        else:
            body = self.text
        for old, new in self.replace:
            body = body.replace(old, new)
        return body


def blocks(document: Path) -> Iterator[Block]:
    """Every code block of ``document`` (fenced or indented) with its markers."""
    text = document.read_text(encoding="utf-8")
    lines = text.splitlines()
    files: dict[str, str] = {}
    for token in MarkdownIt("commonmark").parse(text):
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        start = token.map[0]
        block = Block(document, start + 1, token.info.strip() if token.type == "fence" else "",
                      token.content)
        above = start - 1
        while above >= 0 and (not lines[above].strip() or _MARKER.match(lines[above].strip())):
            match = _MARKER.match(lines[above].strip())
            above -= 1
            if match is None:
                continue
            key, value = match.groups()
            if key == "skip":
                block.skip = value
            elif key == "in":
                block.place = value
            elif key == "before":
                block.before.insert(0, value)
            elif key == "file":
                block.file = value
            elif key == "tool":
                block.tools.append(value)
            else:
                old, _, new = value.partition(" => ")
                block.replace.append((old, new))
        if block.file:
            files[block.file] = block.text
        block.files = dict(files)
        yield block


ALL = [b for d in DOCUMENTS for b in blocks(d)]
RUNNABLE = [b for b in ALL if b.info in SHELL]


def test_every_code_block_names_its_language_so_no_shell_block_hides() -> None:
    unnamed = [b.name for b in ALL if b.info not in SHELL | OTHER]
    assert unnamed == [], "fence these with ```console/sh (run here) or ```text (output)"


def test_every_marker_is_understood() -> None:
    for block in ALL:
        assert block.place in _PLACES, block.name
        assert all(old and new for old, new in block.replace), block.name
        if block.info not in SHELL:
            assert not (block.skip or block.before or block.replace or block.tools), block.name
        else:
            assert not block.file, block.name
    for document in DOCUMENTS:
        lines = document.read_text().splitlines()
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("<!-- doc-test"):
                assert _MARKER.match(line.strip()), f"{document.name}:{number}: {line}"
                below = next(other.strip() for other in lines[number:]
                             if other.strip() and not _MARKER.match(other.strip()))
                assert below.startswith("```"), f"{document.name}:{number}: steers no block"


def test_a_skip_says_what_it_needs() -> None:
    for block in RUNNABLE:
        assert not block.skip or block.skip.startswith(("needs ", "runs ")), block.name


def test_no_command_hides_a_failure_from_set_e() -> None:
    """bash's ``set -e`` ignores a failure left of ``&&`` or ``||``: one command a line."""
    for block in RUNNABLE:
        if not block.skip:
            assert not re.search(r"&&|\|\|", block.script()), block.name
            assert not [b for b in block.before if "&&" in b], block.name


def test_the_docs_have_shell_blocks_to_run() -> None:
    runnable = [b for b in RUNNABLE if not b.skip]
    assert len(runnable) >= 10 and {b.document.name for b in runnable} >= {"README.md", "ci.md"}


def test_the_console_form_keeps_commands_and_drops_output() -> None:
    block = Block(REPO / "README.md", 1, "console",
                  "$ pytest-quest init\nwrote .gitattributes\n$ echo a \\\n  b\nout\n",
                  replace=[("init", "status")])
    assert block.script() == "pytest-quest status\necho a \\\n  b"
    assert block.output() == ["wrote .gitattributes", "out"]


def _git(cwd: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def reader_environment(home: Path, fixtures: Path) -> dict[str, str]:
    """This install first on PATH; a git identity of its own; the fixtures the markers use."""
    gitconfig = home / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Doc Reader\n\temail = reader@example.invalid\n"
                         "[init]\n\tdefaultBranch = main\n")
    # Not this suite's coverage collector nor its pytest-xdist worker identity: a reader's
    # shell has neither.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COV_CORE_", "COVERAGE_", "PYTEST_")) and k != "VIRTUAL_ENV"}
    env.update({
        "PATH": str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
        "DOC_FIXTURES": str(fixtures),
        "NO_COLOR": "1",
    })
    return env


def clone_as_a_user(project: Path, env: dict[str, str]) -> None:
    """Make ``project`` what a user has: a commit on main, pushed to an origin it tracks."""
    origin = project.parent / "origin.git"
    _git(project.parent, "init", "-q", "--bare", str(origin), env=env)
    _git(project, "init", "-q", "-b", "main", env=env)
    _git(project, "add", "-A", env=env)
    _git(project, "commit", "-q", "-m", "the project", env=env)
    _git(project, "remote", "add", "origin", str(origin), env=env)
    _git(project, "push", "-q", "-u", "origin", "main", env=env)


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_the_block_runs_as_written(block: Block, request: pytest.FixtureRequest,
                                   tmp_path: Path) -> None:
    if block.skip:
        pytest.skip(block.skip)
    for tool in block.tools:
        if shutil.which(tool, path=str(Path(sys.executable).parent) + os.pathsep
                        + os.environ.get("PATH", "")) is None:
            pytest.skip(f"needs {tool} on PATH (pip install -e '.[test]' installs it)")
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    (fixtures / "test_nightly_rate.py").write_text(FULL)
    (fixtures / "test_tax_amount.py").write_text(TAX_TEST)
    env = reader_environment(tmp_path, fixtures)
    if block.place == "checkout":
        where = tmp_path / "pytest-quest"
        shutil.copytree(REPO, where, ignore=NOT_IN_A_CLONE)
    else:
        where = request.getfixturevalue("project" if block.place == "example" else "example_copy")
        clone_as_a_user(where, env)
    for rel, content in block.files.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(content, encoding="utf-8")
    script = "\n".join(["set -eo pipefail", *block.before, block.script()])
    done = subprocess.run(["bash", "-c", script], cwd=where, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    offline = ("No matching distribution", "Could not find a version")
    if done.returncode != 0 and block.place == "checkout" and any(
            words in done.stderr for words in offline):
        pytest.skip("needs a package index: pip could not reach one")  # pragma: no cover
    assert done.returncode == 0, (
        f"{block.name} exited {done.returncode}\n--- script\n{script}\n"
        f"--- stdout (tail)\n{done.stdout[-3000:]}\n--- stderr (tail)\n{done.stderr[-3000:]}"
    )
    printed = {line.strip() for line in
               (done.stdout + done.stderr).replace(str(where), "/path/project").splitlines()}
    for line in block.output():
        pattern = re.compile(".*".join(re.escape(part) for part in line.split("...")))
        assert any(pattern.fullmatch(seen) for seen in printed), f"{block.name}: {line!r}"


def test_the_docs_stand_alone() -> None:
    """No link or path out of the repository: a reader of the sdist or PyPI has nothing else."""
    outside = re.compile(r"\.\./shared|/work/|\]\(\.\./|notes/[a-z]+\.md|DESIGN\.md")
    for document in DOCUMENTS:
        for number, line in enumerate(document.read_text().splitlines(), 1):
            assert not outside.search(line), f"{document.name}:{number}: {line}"


def test_relative_links_in_docs_point_at_files_that_ship() -> None:
    for document in DOCUMENTS:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", document.read_text()):
            if not target.startswith(("https://", "http://", "mailto:")):
                assert (document.parent / target).exists(), f"{document.name}: {target}"


def test_the_counts_in_development_md_are_true() -> None:
    text = (REPO / "docs" / "development.md").read_text()
    found = re.search(r"(\d+) blocks run and (\d+) say\s+what they need", text)
    assert found is not None
    run = sum(1 for b in RUNNABLE if not b.skip)
    assert (int(found.group(1)), int(found.group(2))) == (run, len(RUNNABLE) - run)
