"""Shared fixtures: a fresh, scanned copy of the bundled example project; the ``slow`` guard.

``slow`` means "starts real processes" (the sandbox harness, pytest, git,
multiprocessing). It is enforced, not remembered: an audit hook makes a test
that is not marked ``slow`` fail the moment it starts one, and a test that
asks for a scanned example project is marked ``slow`` because the fixture
runs the project's suite in a sandbox (once per session, in whichever test
comes first).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_quest.config import Settings, load_settings
from pytest_quest.scan import scan
from pytest_quest.submit import Result, submit

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"

# When this suite runs under coverage, also measure pytest-quest's own code in
# the sandbox subprocesses it starts (see docs/development.md).
os.environ.setdefault("PYTEST_QUEST_MEASURE_SELF", "1")

_SCANNED: dict[bool, Path] = {}

#: Fixtures that start processes when they are set up.
_SPAWNING_FIXTURES = frozenset({"project", "settings", "submit_test"})
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty",
                           "os.exec", "os.spawn", "os.system"})
_guarded: dict[str, str | None] = {"test": None}


def _refuse_processes_in_fast_tests(event: str, args: tuple[object, ...]) -> None:
    test = _guarded["test"]
    if test is not None and event in _SPAWN_EVENTS:
        _guarded["test"] = None  # once: pytest's own reporting must not trip it again
        raise RuntimeError(f"{test} starts a process ({event}) but is not marked slow")


sys.addaudithook(_refuse_processes_in_fast_tests)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _SPAWNING_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _fast_tests_start_no_process(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("slow") is None:
        _guarded["test"] = request.node.nodeid
    try:
        yield
    finally:
        _guarded["test"] = None


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".quest", "__pycache__", ".pytest_cache", "quest")}


@pytest.fixture(autouse=True, scope="session")
def _only_the_builtin_rules() -> Iterator[None]:
    """In-process judging sees the built-in rules only, whatever this environment has installed.

    A ``pytest_quest`` plugin installed in the developer's venv must not change
    what this suite asserts; test_hookspecs installs one on purpose, in fresh
    processes.
    """
    import pytest_quest.rules

    manager = pytest_quest.rules.new_manager()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pytest_quest.rules, "plugin_manager", lambda: manager)
        yield


@pytest.fixture
def deep_tree() -> Callable[[Path], None]:
    """``deep_tree(folder)`` nests 1500 folders ``d/d/...`` in it: red team 2 finding 13's tree.

    Deeper than any recursive walk survives (``rglob``, ``shutil.rmtree``).
    """

    def build(folder: Path) -> None:
        here = os.getcwd()
        os.chdir(folder)
        try:
            for _ in range(1500):
                os.mkdir("d")
                os.chdir("d")
        finally:
            os.chdir(here)

    return build


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """An unscanned copy of example_project."""
    target = tmp_path / "example_project"
    shutil.copytree(EXAMPLE, target, ignore=_ignore)
    return target


@pytest.fixture
def project(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A copy of example_project already scanned with its baseline (scanned once per session)."""
    if True not in _SCANNED:
        base = tmp_path_factory.mktemp("scanned") / "example_project"
        shutil.copytree(EXAMPLE, base, ignore=_ignore)
        scan(load_settings(base))
        _SCANNED[True] = base
    target = tmp_path / "example_project"
    shutil.copytree(_SCANNED[True], target)
    return target


@pytest.fixture
def settings(project: Path) -> Settings:
    return load_settings(project)


@pytest.fixture
def submit_test(project: Path, settings: Settings) -> Callable[..., Result]:
    """``submit_test(quest_id, source)`` writes the test where `next` says and submits it
    (``source`` as bytes: written as they are, whatever their encoding)."""
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path

    def run(quest_id: str, source: str | bytes, **kwargs: object) -> Result:
        ledger = Ledger.load(Ledger.for_root(project).path)
        rel = default_test_path(ledger.get(quest_id), settings, ledger.quests)
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, bytes):
            path.write_bytes(source)
        else:
            path.write_text(source, encoding="utf-8")
        return submit(settings.with_overrides(**kwargs.pop("overrides", {})), quest_id,
                      test=path, **kwargs)

    return run
