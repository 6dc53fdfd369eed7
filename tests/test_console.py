"""The console script answers `next --json` itself, byte for byte as the click command does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.console import fast_next, main
from tests.test_pool import ledger_of


def click_next(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["next", *args])
    return result.exit_code, result.stdout


def fast(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str]:
    code = fast_next(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    [], ["--shard", "2/3"], ["--shard=1/3"], ["--agent", "alice"], ["--agent=bob", "--json"],
])
def test_fast_next_equals_click_next(tmp_path: Path, extra: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    ledger_of(tmp_path, 5)
    args = ["--json", "--root", str(tmp_path), *extra]
    code, out = fast(args, capsys)
    if "--agent" in " ".join(extra):
        # The same agent gets the same quest back: compare with its lease time left out.
        _, expected = click_next(args)
        a, b = json.loads(out), json.loads(expected)
        assert a.pop("lease_until") <= b.pop("lease_until") and a == b
    else:
        assert (code, out) == click_next(args)
    assert code == 0


def test_fast_next_reports_errors_as_the_group_does(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    for args in (["--json", "--root", str(tmp_path)],
                 ["--json", "--shard", "9/3", "--root", str(tmp_path)]):
        code, out = fast(args, capsys)
        assert (code, out) == click_next(args)
        assert json.loads(out)["kind"] in ("CorruptLedger", "NoLedger", "UsageError")


@pytest.mark.parametrize("args", [
    ["--root", "x"], ["--json", "--help"], ["--json", "--id", "q"], ["--json", "--agent"],
    ["--json", "--root", ""],
])
def test_anything_else_goes_to_click(args: list[str]) -> None:
    assert fast_next(args) is None


def test_a_file_as_root_goes_to_click(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert fast_next(["--json", "--root", str(tmp_path / "f")]) is None


def test_main_falls_back_to_click(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and "pytest-quest" in capsys.readouterr().out


@pytest.mark.slow
def test_next_json_imports_neither_click_nor_rich_nor_coverage(tmp_path: Path) -> None:
    ledger_of(tmp_path, 3)
    probe = ("import sys, runpy\n"
             f"sys.argv = ['pytest-quest', 'next', '--json', '--root', {str(tmp_path)!r}]\n"
             "try:\n    runpy.run_module('pytest_quest', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "heavy = [m for m in ('click', 'rich', 'coverage', 'pytest', 'filelock')"
             " if m in sys.modules]\n"
             "print(heavy, file=sys.stderr)\n")
    # Without this suite's own subprocess measurement, which imports coverage at startup.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env=env)
    assert json.loads(done.stdout)["quest"] == "pkg/m.py::f0"
    assert done.stderr.strip().splitlines()[-1] == "[]"
