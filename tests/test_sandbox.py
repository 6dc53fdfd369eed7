"""The sandbox: what is copied, what is protected, how modules are named, the environment."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from pytest_quest.config import Settings
from pytest_quest.paths import import_roots, module_name
from pytest_quest.sandbox import (
    Sandbox,
    _environment,
    is_native,
    is_protected,
    iter_project_files,
    snapshot,
)


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_module_names_for_flat_and_src_layouts(tmp_path: Path) -> None:
    _tree(tmp_path, {"pkg/__init__.py": "", "src/lib/__init__.py": "", "tool.py": "",
                     "scripts/run.py": ""})
    flat = Settings(root=tmp_path, sources=("pkg", "tool.py"))
    assert module_name("pkg/sub/mod.py", flat) == "pkg.sub.mod"
    assert module_name("pkg/__init__.py", flat) == "pkg"
    assert module_name("tool.py", flat) == "tool"
    src = Settings(root=tmp_path, sources=("src",))
    assert import_roots(src) == [".", "src"]
    assert module_name("src/lib/core.py", src) == "lib.core"
    loose = Settings(root=tmp_path, sources=("scripts",))
    assert module_name("scripts/run.py", loose) == "run"


def test_copy_skips_vcs_caches_venvs_and_the_quest_folder(tmp_path: Path) -> None:
    _tree(tmp_path, {"pkg/a.py": "", ".git/config": "", "venv/pyvenv.cfg": "", "x/pyvenv.cfg": "",
                     "pkg/__pycache__/a.pyc": "", "tests/quest/test_q.py": "",
                     "tests/test_a.py": "", "data/rates.csv": "1", ".coverage": ""})
    files = list(iter_project_files(tmp_path, "tests/quest"))
    assert files == ["data/rates.csv", "pkg/a.py", "tests/test_a.py"]
    assert list(iter_project_files(tmp_path, "tests/quest", ("data",))) == [
        "pkg/a.py", "tests/test_a.py"]


def test_copy_skips_installed_distributions_metadata(tmp_path: Path) -> None:
    # Red team 73: a dist-info planted at the root (two data files) named the test module a
    # pytest11 plugin, and pytest loaded it into the judge before the runs and the watch.
    _tree(tmp_path, {"pkg/a.py": "", "rt-0.0.dist-info/METADATA": "Name: rt\n",
                     "rt-0.0.dist-info/entry_points.txt": "[pytest11]\nrt = tests.quest.t\n",
                     "old.egg-info/PKG-INFO": "", "single.egg-info": "", "dev.egg-link": "",
                     "tests/x.dist-info/entry_points.txt": ""})
    assert list(iter_project_files(tmp_path, "tests/quest")) == ["pkg/a.py"]


def test_protected_files(tmp_path: Path) -> None:
    settings = Settings(root=tmp_path, sources=("pkg",))
    assert is_protected("pkg/data.json", settings)
    assert is_protected("tools/x.py", settings)
    assert is_protected("tests/data/in.txt", settings)
    assert is_protected("setup.cfg", settings) and is_protected("sub/conftest.py", settings)
    # pytest reads it before pyproject.toml: planted at the root, its addopts would load any
    # module as a plugin into the judge (as red team 73's dist-info did)
    assert is_protected(".pytest.ini", settings)
    assert not is_protected("docs/index.md", settings)


def test_sandbox_copy_hashes_protected_files_and_adds_extra(tmp_path: Path) -> None:
    _tree(tmp_path, {"pkg/a.py": "x = 1\n", "notes.txt": "n"})
    settings = Settings(root=tmp_path, sources=("pkg",))
    box = Sandbox.create(settings, {"tests/quest/test_a.py": b"def test(): pass\n"})
    try:
        assert (box.path / "pkg/a.py").read_text() == "x = 1\n"
        assert (box.path / "tests/quest/test_a.py").exists()
        assert box.hashes == snapshot(settings) == {"pkg/a.py": box.current_hash("pkg/a.py")}
        (box.path / "pkg/a.py").write_text("x = 2\n")
        assert box.current_hash("pkg/a.py") != box.hashes["pkg/a.py"]
        assert box.current_hash("pkg/gone.py") is None
    finally:
        box.cleanup()
    assert not box.base.exists()


def test_native_code_is_protected_whatever_its_name(tmp_path: Path) -> None:
    # Red team 53: a C extension an agent leaves in the project (outside the sources, under
    # any name: red team 54's ``helper.so.1``) is copied into the sandbox, where the guard
    # lets the run load it. Native code is protected like a source: a new one is a new file.
    elf = b"\x7fELF\x02\x01\x01" + bytes(64)
    _tree(tmp_path, {"pkg/a.py": "x = 1\n", "notes.txt": "n"})
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "speedups.cpython-311-x86_64-linux-gnu.so").write_bytes(elf)
    (tmp_path / "helper.so.1").write_bytes(elf)
    (tmp_path / "fat.bin").write_bytes(b"\xca\xfe\xba\xbe" + bytes(8))
    settings = Settings(root=tmp_path, sources=("pkg",))
    recorded = snapshot(settings)
    assert set(recorded) == {"pkg/a.py", "lib/speedups.cpython-311-x86_64-linux-gnu.so",
                             "helper.so.1", "fat.bin"}
    box = Sandbox.create(settings)
    try:
        assert box.hashes == recorded
    finally:
        box.cleanup()
    assert not is_native(b"PK\x03\x04") and not is_native(b"") and not is_native(b"n")


def test_links_are_copied_as_links_and_nothing_but_files_is_read(tmp_path: Path) -> None:
    # Red team 74: a link at the root to the target's file was copied as its text (no Landlock
    # layer hides that copy), a link to /proc/self/environ was read by the caller's process,
    # and a FIFO hung the copy and the scan. A link is a link again in the sandbox (followed
    # in the run, as the kernel finds it), its text hashed, never what it leads to.
    _tree(tmp_path, {"pkg/a.py": "x = 1\n", "tests/test_a.py": ""})
    (tmp_path / "notes.txt").symlink_to("pkg/a.py")
    (tmp_path / "env.txt").symlink_to("/proc/self/environ")
    (tmp_path / "tests" / "link.py").symlink_to("../pkg/a.py")
    os.mkfifo(tmp_path / "pipe")
    os.mkfifo(tmp_path / "tests" / "pipe.py")
    settings = Settings(root=tmp_path, sources=("pkg",))
    recorded = snapshot(settings)  # returns: the FIFOs are not opened
    assert "tests/pipe.py" not in recorded and "tests/link.py" in recorded
    box = Sandbox.create(settings)
    try:
        assert box.hashes == recorded
        assert os.readlink(box.path / "notes.txt") == "pkg/a.py"
        assert os.readlink(box.path / "env.txt") == "/proc/self/environ"
        assert (box.path / "tests" / "link.py").read_text() == "x = 1\n"  # the copy's
        assert not (box.path / "pipe").exists() and not (box.path / "tests" / "pipe.py").exists()
    finally:
        box.cleanup()


def test_a_second_name_of_a_protected_file_is_not_copied(tmp_path: Path) -> None:
    # Red team 75: a hard link at the root to the target's source was copied as a data file
    # (no Landlock layer hides it), always holding the source's current text.
    _tree(tmp_path, {"pkg/a.py": "x = 1\n", "data/rates.csv": "1\n"})
    os.link(tmp_path / "pkg" / "a.py", tmp_path / "notes.txt")
    (tmp_path / "tests").mkdir()
    os.link(tmp_path / "pkg" / "a.py", tmp_path / "tests" / "notes.txt")  # protected folder
    os.link(tmp_path / "data" / "rates.csv", tmp_path / "rates_copy.csv")  # data twice: kept
    settings = Settings(root=tmp_path, sources=("pkg",))
    box = Sandbox.create(settings)
    try:
        assert (box.path / "pkg" / "a.py").read_text() == "x = 1\n"
        assert not (box.path / "notes.txt").exists()
        assert not (box.path / "tests" / "notes.txt").exists()
        assert (box.path / "rates_copy.csv").read_text() == "1\n"
    finally:
        box.cleanup()


def test_distribution_metadata_in_any_case_and_pytest_toml(tmp_path: Path) -> None:
    # Red team 74: `.DIST-INFO` (importlib.metadata lowers the name) and a root pytest.toml
    # (pytest 9 reads it before pyproject.toml) loaded the test module into the judge.
    _tree(tmp_path, {"pkg/a.py": "", "rt-0.0.DIST-INFO/entry_points.txt": "",
                     "x.Egg-Info/PKG-INFO": ""})
    assert list(iter_project_files(tmp_path, "tests/quest")) == ["pkg/a.py"]
    settings = Settings(root=tmp_path, sources=("pkg",))
    assert is_protected("pytest.toml", settings) and is_protected(".pytest.toml", settings)


def test_environment_is_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_QUEST_MEASURE_SELF", raising=False)
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", "e30=")
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    monkeypatch.setenv("COVERAGE_FILE", "/tmp/x")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    settings = Settings(root=tmp_path, sources=("src",))
    (tmp_path / "src").mkdir()
    box = Sandbox.create(settings)
    try:
        env = _environment(box, settings)
    finally:
        box.cleanup()
    dropped = {"GITHUB_TOKEN", "COVERAGE_FILE", "PYTEST_ADDOPTS", "COVERAGE_PROCESS_CONFIG"}
    assert not dropped & set(env)
    assert env["PYTHONPATH"].split(os.pathsep) == [str(box.path), str(box.path / "src")]
    assert env["HOME"].startswith(str(box.base)) and env["TMPDIR"].startswith(str(box.base))


def test_self_measurement_passes_only_the_collector_start(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_QUEST_MEASURE_SELF", "1")
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", "eyJicmFuY2giOiB0cnVlfQ==")  # {"branch": true}
    monkeypatch.setenv("COVERAGE_CORE", "sysmon")
    settings = Settings(root=tmp_path, sources=("pkg",))
    box = Sandbox.create(settings)
    try:
        env = _environment(box, settings)
    finally:
        box.cleanup()
    # The collector's data goes to the private folder: a confined run can write nowhere else.
    config = json.loads(base64.b64decode(env["COVERAGE_PROCESS_CONFIG"]))
    assert config == {"branch": True, "data_file": str(box.private / ".coverage")}
    assert env["COVERAGE_FILE"] == str(box.private / ".coverage")
    assert "COVERAGE_CORE" not in env


@pytest.mark.slow
def test_wait_returns_when_the_process_ends_without_polling(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    import subprocess
    import sys
    import time

    from pytest_quest import sandbox

    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            sandbox.wait(slow, 0.05)
    finally:
        slow.kill()
    assert sandbox.wait(slow, 5) == -9
    quick = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])

    def no_sleep(seconds: float) -> None:
        raise AssertionError(f"polled: slept {seconds} s")

    monkeypatch.setattr(time, "sleep", no_sleep)  # Popen.wait(timeout) sleeps between looks
    assert sandbox.wait(quick, 30) == 3
    assert sandbox.wait(quick, 30) == 3  # already reaped: its code again


@pytest.mark.slow
def test_a_run_closes_each_descriptor_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop judges in threads: a descriptor number closed twice may by then be another
    thread's file. Each close is followed at once by an open that takes the freed number (the
    lowest free one), as another thread would; a second close of that number closes it."""
    from pytest_quest import sandbox
    from pytest_quest.config import load_settings
    from pytest_quest.ledger import Ledger

    real_close = os.close
    others: list[int] = []

    def close_then_reuse(fd: int) -> None:
        real_close(fd)
        others.append(os.open(os.devnull, os.O_RDONLY))

    settings = load_settings(project).with_overrides(mutation=False, reruns=1)
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    test = "tests/quest/test_rate.py"
    source = ("from hotel.pricing import nightly_rate\n\n\ndef test_rate():\n"
              "    assert nightly_rate(100.0, 'standard', 2) == 200.0\n")
    box = Sandbox.create(settings, {test: source.encode()})
    try:
        monkeypatch.setattr(os, "close", close_then_reuse)
        result = sandbox.run(box, settings, sandbox.harness_spec(settings, quest, test), 60, 60)
        monkeypatch.undo()
    finally:
        box.cleanup()
    closed_under_others = []
    for fd in others:
        try:
            os.fstat(fd)
            os.close(fd)
        except OSError:
            closed_under_others.append(fd)
    assert result.finished, result.output
    assert others and closed_under_others == []
