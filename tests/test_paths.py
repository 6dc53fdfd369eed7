"""Where a quest's test file goes, and how user-given paths map into the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_quest.config import Settings
from pytest_quest.errors import UsageError
from pytest_quest.paths import default_test_path, project_relative
from pytest_quest.quest import Quest


def _quest(path: str, qualname: str) -> Quest:
    return Quest(id=f"{path}::{qualname}", path=path, qualname=qualname)


@pytest.mark.parametrize(("path", "qualname", "expected"), [
    ("hotel/pricing.py", "nightly_rate", "tests/quest/test_hotel_pricing__nightly_rate.py"),
    ("hotel/rooms.py", "Room.rate", "tests/quest/test_hotel_rooms__Room_rate.py"),
    ("hotel/rooms.py", "Room.capacity.setter",
     "tests/quest/test_hotel_rooms__Room_capacity_setter.py"),
    ("m.py", "f@12", "tests/quest/test_m__f_12.py"),
])
def test_default_test_path(path: str, qualname: str, expected: str, tmp_path: Path) -> None:
    settings = Settings(root=tmp_path, sources=(".",), test_dir="tests/quest/")
    assert default_test_path(_quest(path, qualname), settings) == expected


def test_underscores_are_kept_so_names_never_collide(tmp_path: Path) -> None:
    settings = Settings(root=tmp_path, sources=(".",))
    private = default_test_path(_quest("m.py", "_double"), settings)
    public = default_test_path(_quest("m.py", "double"), settings)
    assert private != public


def test_relative_paths_are_read_from_the_current_folder_inside_the_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests" / "quest").mkdir(parents=True)
    settings = Settings(root=tmp_path, sources=(".",))
    monkeypatch.chdir(tmp_path / "tests")
    assert project_relative("quest/test_a.py", settings) == "tests/quest/test_a.py"
    assert project_relative(tmp_path / "m.py", settings) == "m.py"


def test_relative_paths_from_outside_the_project_are_read_from_its_root(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(tmp_path)
    assert project_relative("tests/quest/t.py", Settings(root=root, sources=(".",))) == (
        "tests/quest/t.py")


def test_a_path_outside_the_project_is_a_usage_error(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(UsageError, match="outside the project"):
        project_relative(tmp_path / "elsewhere.py", Settings(root=root, sources=(".",)))
    with pytest.raises(UsageError):
        project_relative("../escape.py", Settings(root=root, sources=(".",)))
