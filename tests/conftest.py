"""Shared fixtures: a fresh, scanned copy of the bundled example project."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
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


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".quest", "__pycache__", ".pytest_cache", "quest")}


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
    """``submit_test(quest_id, source)`` writes the test where `next` says and submits it."""
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path

    def run(quest_id: str, source: str, **kwargs: object) -> Result:
        quest = Ledger.load(Ledger.for_root(project).path).get(quest_id)
        rel = default_test_path(quest, settings)
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        return submit(settings.with_overrides(**kwargs.pop("overrides", {})), quest_id,
                      test=path, **kwargs)

    return run
