"""``pytest-quest mcp``: serve next/submit/status/show/rules to an MCP host over stdio."""

from __future__ import annotations

from pathlib import Path

import click

from pytest_quest.cli.options import root_option

__all__ = ["command"]


@click.command("mcp")
@click.option("--agent", default=None, metavar="NAME",
              help="The lease holder's name (default mcp/HOST/PID); a stable name lets a "
                   "restarted server resume its quest.")
@root_option
def command(agent: str | None, root: Path | None) -> None:
    """Serve the quest loop over the Model Context Protocol on stdin/stdout.

    Needs the optional SDK: pip install "pytest-quest[mcp]". Point an agent
    host at `pytest-quest mcp --root /path/to/project`.
    """
    from pytest_quest.config import find_root
    from pytest_quest.errors import UsageError
    from pytest_quest.ledger import Ledger

    try:
        import mcp.server.mcpserver  # noqa: F401 - fail here, with the fix, not mid-handshake

        from pytest_quest.mcp_server import serve
    except ImportError:
        raise UsageError(
            'the MCP server needs the mcp SDK: pip install "pytest-quest[mcp]"'
        ) from None
    base = find_root(root)
    Ledger.load(Ledger.for_root(base).path)  # refuse now: no ledger, no tools worth serving
    serve(base, agent)
