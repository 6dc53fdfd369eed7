"""What a user installs: the wheel ships example_project (`pytest-quest demo` works from any
install); `python -m build` passes `twine check`; the sdist carries tests, docs and the example;
the README works as the PyPI page; the published name and the git URL form both install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pytest_quest import syscalls

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


# ---------------------------------------------- the release: sdist + wheel, as PyPI gets them
@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of this checkout: the sdist and the wheel it builds from it."""
    pytest.importorskip("build", reason="build is not installed (the test extra installs it)")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "-o", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 and "No matching distribution" in done.stdout + done.stderr:
        pytest.skip("no package index to fetch the build backend from")  # pragma: no cover
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    pytest.importorskip("twine", reason="twine is not installed (the test extra installs it)")
    files = sorted(str(p) for p in dist.iterdir())
    # the wheel is this interpreter's and platform's where the C extension was built
    tag = "py3-none-any" if not syscalls.NATIVE else "cp{0}{1}-cp{0}{1}-".format(
        *sys.version_info[:2])
    (wheel, sdist) = [Path(f).name for f in files]
    assert wheel.startswith(f"pytest_quest-0.1.0-{tag}") and wheel.endswith(".whl"), wheel
    assert sdist == "pytest_quest-0.1.0.tar.gz"
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


@pytest.mark.slow
def test_the_sdist_holds_what_a_downstream_packager_needs(dist: Path) -> None:
    import tarfile

    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    tracked = {p.relative_to(REPO).as_posix() for folder in ("tests", "docs", "example_project")
               for p in (REPO / folder).rglob("*")
               if p.is_file() and not set(p.parts) & {"__pycache__", ".quest", "quest"}}
    assert tracked <= names, sorted(tracked - names)[:10]
    assert {"LICENSE", "README.md", "pyproject.toml", "setup.py", ".ci/run",
            "benchmarks/bench_gate.py", "pytest_quest/_kernel.c",
            "pytest_quest/_kernel.pyi"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".so"))
                or n.startswith((".venv", "benchmarks/_work"))]


@pytest.mark.slow
def test_the_wheel_metadata_is_what_pypi_shows(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("pytest_quest-0.1.0.dist-info/METADATA").decode()
        extension = [n for n in archive.namelist() if n.startswith("pytest_quest/_kernel.")]
        assert sorted(n.rsplit(".", 1)[-1] for n in extension) == (
            ["pyi", "so"] if syscalls.NATIVE else ["pyi"])
        assert "pytest_quest-0.1.0.dist-info/licenses/LICENSE" in archive.namelist()
    headers, _, description = metadata.partition("\n\n")
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
    assert "Description-Content-Type: text/markdown" in headers
    assert "Classifier: Programming Language :: Python :: 3.11" in headers
    assert description.strip() == (REPO / "README.md").read_text().strip()


def test_the_readme_works_as_the_pypi_page() -> None:
    """PyPI shows README.md without the repository: no relative link, no editable install."""
    import re

    readme = (REPO / "README.md").read_text()
    targets = re.findall(r"\]\(([^)]+)\)", readme) + re.findall(r'(?:src|href)="([^"]+)"', readme)
    assert [t for t in targets if not t.startswith("https://")] == []
    assert "pip install -e" not in readme
    assert "pip install pytest-quest" in readme  # the published form, for later


def _install(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                           str(target), *args], capture_output=True, text=True, timeout=900,
                          check=False)


def _version_from(target: Path, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-m", "pytest_quest", "--version"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    where = subprocess.run([sys.executable, "-c", "import pytest_quest as q; print(q.__file__)"],
                           cwd=cwd, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(target))  # the installed copy, not this checkout
    return done.stdout


@pytest.mark.slow
def test_the_published_name_installs_from_an_index(dist: Path, tmp_path: Path) -> None:
    """``pip install pytest-quest`` as it will run against PyPI, against a local index."""
    target = tmp_path / "site"
    done = _install(target, "--no-index", "--find-links", str(dist), "pytest-quest")
    assert done.returncode == 0, done.stderr
    assert "0.1.0" in _version_from(target, tmp_path)


@pytest.mark.slow
def test_the_git_url_form_installs(tmp_path: Path) -> None:
    """The README's install-today form, ``pytest-quest @ git+URL``, from a local clone URL.

    ``file://localhost/...``: pip before 23.3 refuses a ``file:///`` URL in a requirement.
    """
    from tests.test_docs import NOT_IN_A_CLONE, reader_environment

    clone = tmp_path / "pytest-quest"
    shutil.copytree(REPO, clone, ignore=NOT_IN_A_CLONE)
    env = reader_environment(tmp_path, tmp_path)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "release"]):
        subprocess.run(["git", *args], cwd=clone, env=env, check=True, capture_output=True)
    target = tmp_path / "site"
    done = _install(target, f"pytest-quest @ git+file://localhost{clone}@main")
    if done.returncode != 0 and "No matching distribution" in done.stderr:
        pytest.skip("no package index to fetch the build backend from")  # pragma: no cover
    assert done.returncode == 0, done.stderr
    assert "0.1.0" in _version_from(target, tmp_path)


def test_ci_enforces_every_supported_version_and_the_guide_names_them() -> None:
    """The classifiers are the one list of supported versions: ``.ci/run`` tests each one
    present and fails on any failure, and docs/development.md names the same range."""
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    versions = [m.group(1) for c in project["classifiers"]
                if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))]
    assert versions and project["requires-python"] == f">={versions[0]}"
    assert versions == sorted(versions, key=lambda v: int(v.split(".")[1]))
    script = (REPO / ".ci" / "run").read_text()
    assert 'r"Programming Language :: Python :: (3\\.\\d+)"' in script
    assert 'for version in $supported; do' in script
    assert script.count('failed+=("') == 3  # the default's suite, another's install or suite
    assert 'exit 1' in script.split('if [ ${#failed[@]} -gt 0 ]; then', 1)[1].split("fi", 1)[0]
    guide = " ".join((REPO / "docs" / "development.md").read_text().split())
    assert f"classifiers of `pyproject.toml` ({versions[0]} to {versions[-1]})" in guide
