"""Bug 12: the wheel ships example_project, so `pytest-quest demo` works from any install."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                           str(out), str(REPO)], capture_output=True, text=True, timeout=600,
                          check=False)
    if done.returncode != 0 and "No matching distribution" in done.stderr:
        pytest.skip("no package index to fetch the build backend from")  # pragma: no cover
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("pytest_quest-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_ships_the_example_project(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n.removeprefix("pytest_quest/example_project/") for n in names
               if n.startswith("pytest_quest/example_project/")}
    here = {p.relative_to(REPO / "example_project").as_posix()
            for p in (REPO / "example_project").rglob("*")
            if p.is_file() and not set(p.parts) & {"__pycache__", ".quest", "quest",
                                                   ".pytest_cache"}}
    assert here <= shipped
    assert "hotel/pricing.py" in shipped and "tests/conftest.py" in shipped


@pytest.mark.slow
def test_demo_runs_from_the_installed_wheel_outside_any_checkout(wheel: Path,
                                                                 tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = "import pytest_quest; print(pytest_quest.__file__)"
    check = subprocess.run([sys.executable, "-c", where], cwd=elsewhere, env=env,
                           capture_output=True, text=True, check=True)
    assert check.stdout.startswith(str(target))  # the wheel's copy, not the checkout
    done = subprocess.run([sys.executable, "-m", "pytest_quest", "demo"], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "PASS hotel/pricing.py::nightly_rate -> PASS" in done.stdout
    assert list(elsewhere.iterdir()) == []  # the demo works in a temporary copy
