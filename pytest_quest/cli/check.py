"""``pytest-quest check``: the CI ratchet for scripts that do not call pytest themselves.

It runs ``python -m pytest --quest-check`` in the project root, in a child
process, so the plugin does the judging exactly as it does under a direct
``pytest --quest-check``: one verdict, one implementation. Arguments after
``--`` go to pytest unchanged (``pytest-quest check -- -n 4``). Every
``COVERAGE_*`` variable is removed from the child's environment, since each
one could redirect or reconfigure the measurement. The exit code is pytest's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal
from pytest_quest.config import find_root

__all__ = ["build_command", "child_env", "command"]


def build_command(update: bool, ledger: Path | None, report: Path | None,
                  pytest_args: tuple[str, ...], base: str | None = None) -> list[str]:
    """The pytest command line the check runs (kept separate so it can be tested)."""
    cmd = [sys.executable, "-m", "pytest", "--quest-update" if update else "--quest-check"]
    if ledger is not None:
        cmd.append(f"--quest-ledger={ledger}")
    if report is not None:
        cmd.append(f"--quest-json={report}")
    if base is not None:
        cmd.append(f"--quest-base={base}")
    return cmd + list(pytest_args)


def child_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment minus ``COVERAGE_*``: a CI's leftovers must not steer the measurement."""
    source = dict(os.environ if environ is None else environ)
    return {k: v for k, v in source.items() if not k.startswith("COVERAGE_")}


@click.command("check", context_settings={"ignore_unknown_options": True})
@root_option
@click.option("--update", is_flag=True,
              help="Also lock the TODO quests the suite covers fully (never unlocks).")
@click.option("--ledger", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Ledger file (default: .quest/ledger.json in the project root).")
@click.option("--base", default=None, metavar="REF",
              help="Also fail when the ledger went back against the ledger at git REF.")
@json_option
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def command(root: Path | None, update: bool, ledger: Path | None, base: str | None,
            as_json: bool, pytest_args: tuple[str, ...]) -> None:
    """Run the suite once and fail when a locked function is no longer fully covered.

    With `--base REF` also fail when the ledger went back against REF's (a PASS
    lost, tries lowered, the scope narrowed). Arguments after `--` are passed
    to pytest: `pytest-quest check --base origin/main -- -n 4 -q`.
    """
    term = Terminal()
    project = find_root(root)
    ledger_path = ledger.resolve() if ledger is not None else None
    if base is not None:
        from pytest_quest.gitbase import verify_base

        verify_base(project, base)  # a clear error before the suite runs, not after
    with tempfile.TemporaryDirectory(prefix="pytest-quest-check-") as tmp:
        report_path = Path(tmp) / "ratchet.json" if as_json else None
        cmd = build_command(update, ledger_path, report_path, pytest_args, base)
        term.info(f"running {' '.join(cmd[1:])} in {project}")
        # With --json stdout carries only the verdict, so pytest's own output goes to stderr.
        pipe = subprocess.PIPE if as_json else None
        try:
            child = subprocess.run(cmd, cwd=project, env=child_env(), stdout=pipe,
                                   stderr=subprocess.STDOUT if as_json else None, check=False)
        except OSError as exc:
            term.print(f"pytest-quest: cannot run pytest: {exc}", err=True, style="fail")
            sys.exit(2)
        code = child.returncode
        if as_json:
            sys.stderr.write(child.stdout.decode(errors="replace"))
            term.json(_verdict(report_path, code))
    sys.exit(code)


def _verdict(report_path: Path | None, code: int) -> dict[str, Any]:
    data: dict[str, Any]
    try:
        data = json.loads(report_path.read_text(encoding="utf-8")) if report_path else {}
    except (OSError, ValueError):
        data = {"ok": False, "error": f"pytest exited with {code} before the ratchet judged"}
    data["exit_code"] = code
    return data
