"""Settings from [tool.pytest-quest], flags on top, sources auto-detected."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_quest.config import detect_sources, find_root, load_settings
from pytest_quest.errors import ConfigError


def test_pyproject_table_is_read_and_flags_override(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest-quest]\nsources = ["lib"]\ntest-dir = "t/q"\nmax_tries = 5\n'
        "timeout = 9\nbranch = true\nexclude = [\"data/raw\"]\n"
    )
    settings = load_settings(tmp_path)
    assert (settings.sources, settings.test_dir, settings.max_tries) == (("lib",), "t/q", 5)
    assert (settings.timeout, settings.branch, settings.exclude) == (9, True, ("data/raw",))
    assert settings.with_overrides(timeout=2.0, branch=None).timeout == 2.0
    assert settings.with_overrides(sources=("other",)).sources == ("other",)


@pytest.mark.parametrize(
    "body",
    ['unknown = 1', 'max_tries = "3"', 'branch = "yes"', 'sources = "lib"', "timeout = -1",
     "[[broken"],
)
def test_bad_config_is_a_clear_error(tmp_path: Path, body: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.pytest-quest]\n{body}\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml"):
        load_settings(tmp_path)


def test_sources_outside_the_project_are_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest-quest]\nsources = ["../elsewhere"]\n')
    with pytest.raises(ConfigError, match="outside"):
        load_settings(tmp_path)


def test_detects_src_layout(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    assert detect_sources(tmp_path) == ("src",)


def test_detects_flat_packages_and_modules(tmp_path: Path) -> None:
    for rel in ["pkg/__init__.py", "tests/__init__.py", "docs/__init__.py", "tool.py",
                "setup.py", "conftest.py", "test_x.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert detect_sources(tmp_path) == ("pkg", "tool.py")


def test_find_root_prefers_the_quest_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert find_root(tmp_path / "a" / "b") == tmp_path
    (tmp_path / "a" / ".quest").mkdir()
    assert find_root(tmp_path / "a" / "b") == tmp_path / "a"


def test_recorded_scan_settings_fill_what_pyproject_leaves_out(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest-quest]\nbranch = false\n')
    (tmp_path / "lib").mkdir()
    recorded = {"sources": ["lib"], "test_dir": "t/q", "branch": True, "timeout": 1}
    settings = load_settings(tmp_path, recorded)
    assert settings.sources == ("lib",) and settings.test_dir == "t/q"
    assert settings.branch is False  # pyproject wins
    assert settings.timeout == 60.0  # only sources, test_dir and branch are remembered
    assert load_settings(tmp_path, {"branch": "yes"}).branch is False  # bad values are ignored
