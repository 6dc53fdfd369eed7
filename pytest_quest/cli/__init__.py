"""The ``pytest-quest`` command: a click group whose commands load lazily.

One module per command (as hatch does); a command's module is imported only
when that command runs, so ``pytest-quest next`` never pays for rich tables or
the HTML report.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from typing import Any

import click

from pytest_quest import __version__
from pytest_quest.errors import QuestError

__all__ = ["COMMANDS", "main"]

#: command name -> module under pytest_quest.cli holding a click command named ``command``.
COMMANDS = {
    "scan": "scan",
    "next": "next_",
    "submit": "submit",
    "status": "status",
    "show": "show",
    "rules": "rules",
    "review": "review",
    "export": "export",
    "check": "check",
    "recheck": "recheck",
    "init": "init",
    "merge-ledger": "merge_ledger",
    "demo": "demo",
    "doctor": "doctor",
    "loop": "loop",
    "mcp": "mcp",
    "skip": "skip",
    "config": "config",
}


class LazyGroup(click.Group):
    """Imports ``pytest_quest.cli.<module>`` only for the command being run."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, module in COMMANDS.items() if _exists(module))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None or not _exists(module):
            return None
        # Every module named in COMMANDS defines ``command`` with @click.command.
        command: click.Command = importlib.import_module(f"pytest_quest.cli.{module}").command
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["pytest_quest.argv"] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except QuestError as exc:
            click.echo(f"pytest-quest: {exc}", err=True)
            if "--json" in ctx.meta.get("pytest_quest.argv", ()):
                # Agents parse stdout: an expected error is data too, never an empty line.
                error = {"error": str(exc), "kind": type(exc).__name__,
                         "exit_code": exc.exit_code}
                click.echo(json.dumps(error, sort_keys=True))
            ctx.exit(exc.exit_code)


def _exists(module: str) -> bool:
    return importlib.util.find_spec(f"pytest_quest.cli.{module}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pytest-quest")
def cli() -> None:
    """Quests for AI test writers: one per function, judged by a deterministic gate.

    Agents loop `next` and `submit`; a PASS is locked forever and `remaining`
    only goes down. Maintainers read `status`, `show`, `review`, `export`.
    """


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="pytest-quest")
