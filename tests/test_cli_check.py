"""``pytest-quest check``: the ratchet for CI scripts, running pytest in a child process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest import ratchet
from pytest_quest.cli import cli
from pytest_quest.cli.check import build_command, child_env
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger, now_iso, transaction
from pytest_quest.records import Evidence
from pytest_quest.scan import scan

MOD = """\
def covered(x):
    if x > 0:
        return "up"
    return "down"


def other(x):
    return x * 2
"""

TESTS = """\
from pkg.mod import covered


def test_covered():
    assert covered(1) == "up"
    assert covered(-1) == "down"
"""


def make_project(root: Path) -> Path:
    """A scanned project with ``covered`` locked and ``other`` TODO."""
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n\n'
        '[tool.pytest-quest]\nsources = ["pkg"]\n', encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "mod.py").write_text(MOD, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text(TESTS, encoding="utf-8")
    scan(load_settings(root), baseline=False)
    with transaction(Ledger.for_root(root).path) as ledger:
        quest = ledger.get("pkg/mod.py::covered")
        ledger.put(ratchet.lock_pass(quest, Evidence.suite((), "", now_iso()), now_iso()))
    return root


def test_build_command_passes_pytest_args_through() -> None:
    cmd = build_command(False, None, None, ("-n", "2", "-k", "x"))
    assert cmd[1:] == ["-m", "pytest", "--quest-check", "-n", "2", "-k", "x"]
    cmd = build_command(True, Path("/l.json"), Path("/r.json"), ())
    assert cmd[3:] == ["--quest-update", "--quest-ledger=/l.json", "--quest-json=/r.json"]
    assert build_command(False, None, None, (), "origin/main")[-1] == "--quest-base=origin/main"


def test_child_env_drops_every_coverage_variable() -> None:
    env = child_env({"COVERAGE_FILE": "x", "COVERAGE_CORE": "sysmon", "PATH": "/bin"})
    assert env == {"PATH": "/bin"}


@pytest.mark.slow
def test_check_json_passes(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    result = CliRunner().invoke(cli, ["check", "--root", str(root), "--json", "--", "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ok"] is True
    assert data["checked"] == 1
    assert data["exit_code"] == 0


@pytest.mark.slow
def test_check_json_fails_with_facts(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "tests" / "test_mod.py").write_text(
        TESTS.replace('    assert covered(-1) == "down"\n', ""), encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--root", str(root), "--json", "--", "-n", "2"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["problems"][0]["quest"] == "pkg/mod.py::covered"
    fact = data["problems"][0]["facts"][0]
    assert (fact["rule"], fact["where"]) == ("coverage-lines", "pkg/mod.py:4")


@pytest.mark.slow
def test_check_update_locks(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "tests" / "test_other.py").write_text(
        "from pkg.mod import other\n\n\ndef test_other():\n    assert other(1) == 2\n",
        encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--root", str(root), "--update", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["locked"] == ["pkg/mod.py::other"]


@pytest.mark.slow
def test_check_console_script_streams_pytest_output(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    child = subprocess.run(
        [sys.executable, "-c", "from pytest_quest.cli import main; main()", "check", "--", "-q"],
        cwd=root, capture_output=True, text=True, check=False, env=child_env(),
    )
    assert child.returncode == 0, child.stdout + child.stderr
    assert "quest ratchet: all 1 locked function(s) fully covered" in child.stdout
    (root / "tests" / "test_mod.py").write_text("def test_nothing():\n    pass\n",
                                                encoding="utf-8")
    child = subprocess.run(
        [sys.executable, "-c", "from pytest_quest.cli import main; main()", "check"],
        cwd=root, capture_output=True, text=True, check=False, env=child_env(),
    )
    assert child.returncode == 1
    assert "LOST pkg/mod.py::covered" in child.stdout


@pytest.mark.slow
def test_check_without_ledger_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--root", str(tmp_path), "--json"])
    assert result.exit_code == pytest.ExitCode.USAGE_ERROR
    assert json.loads(result.stdout)["ok"] is False
