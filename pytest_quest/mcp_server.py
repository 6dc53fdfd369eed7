"""``pytest-quest mcp``: the agent's loop as Model Context Protocol tools over stdio.

Built on the official ``mcp`` SDK (``pip install "pytest-quest[mcp]"``). Each
tool answers with the same document as the matching ``--json`` command, so a
host that speaks MCP and a script that parses the CLI see one contract:

=================  ==============================================================
``next_quest``     ``next --json --agent NAME`` (leases the quest to this server)
``submit``         ``submit --json``, the test source passed as an argument
``status``         ``status --json`` (with the live leases)
``show``           ``show QUEST_ID --json``
``rules``          ``rules --json`` (inside ``{"rules": [...]}``)
=================  ==============================================================

An expected error (unknown quest, quest locked, broken environment) is an MCP
error, not a result: its ``data`` holds the same ``kind`` and ``exit_code``
as the CLI's JSON error, and its ``code`` is ``-32602`` (invalid params) for
usage errors and ``-32000`` for the rest.
"""

from __future__ import annotations

import functools
import os
import re
import socket
from pathlib import Path
from typing import Any

from pytest_quest.errors import QuestError, QuestLocked, UsageError

__all__ = ["INVALID_PARAMS", "SERVER_ERROR", "build_server", "default_agent", "serve"]

INVALID_PARAMS = -32602
SERVER_ERROR = -32000

_INSTRUCTIONS = (
    "pytest-quest hands out one function at a time (a quest) and judges the pytest file you "
    "write for it. Loop: call next_quest, write a test that executes every line in "
    "missing_lines and fails if the function's behaviour changes, call submit with the test "
    "source. PASS and REVIEW end the quest; a FAIL comes back with facts (where, expected, "
    "actual): fix what they name and submit again. Stop when next_quest returns quest null."
)


def default_agent() -> str:
    """``mcp/HOST/PID``: unique per server, so two hosts never share a lease by accident."""
    return f"mcp/{socket.gethostname()}/{os.getpid()}"


def _mcp_error(exc: QuestError) -> Exception:
    from mcp.shared.exceptions import MCPError

    code = INVALID_PARAMS if isinstance(exc, UsageError) else SERVER_ERROR
    return MCPError(code=code, message=str(exc),
                    data={"kind": type(exc).__name__, "exit_code": exc.exit_code})


def build_server(root: Path, agent: str | None = None) -> Any:
    """The MCP server for the project at ``root``; leases go to ``agent`` (default_agent())."""
    from mcp.server.mcpserver import MCPServer

    from pytest_quest import __version__

    name = agent or default_agent()
    server = MCPServer("pytest-quest", version=__version__, instructions=_INSTRUCTIONS)

    def guarded(func: Any) -> Any:
        """Our expected errors as MCP errors (the SDK reads the signature through ``wraps``)."""

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except QuestError as exc:
                raise _mcp_error(exc) from None

        return run

    @server.tool(name="next_quest")
    @guarded
    def next_quest(shard: str | None = None) -> dict[str, Any]:
        """Lease the next open quest to this agent and describe it (same JSON as `next --json`).

        Returns the function's source, `missing_lines` your test must execute,
        `facts` of your last failure, `test_path` and `prompt`. `quest` is null
        when none is left. The same quest comes back until it is settled.
        `shard` ("K/N") limits the quests to one shard of N.
        """
        from pytest_quest.handout import hand_out
        from pytest_quest.pool import Shard

        return hand_out(root, name, Shard.parse(shard) if shard else None).to_dict()

    @server.tool(name="submit")
    @guarded
    def submit_test(quest: str, test_source: str,
                    unreachable: dict[str, str] | None = None) -> dict[str, Any]:
        """Write `test_source` to the quest's test path and judge it (same JSON as `submit --json`).

        `verdict` is PASS, FAIL or REVIEW; `facts` say what to fix. Only a FAIL
        spends a try. `unreachable` maps a line number to the reason it cannot
        run; claiming one sends the quest to a human (REVIEW).
        """
        return _submit(root, name, quest, test_source, unreachable or {})

    @server.tool(name="status")
    @guarded
    def status() -> dict[str, Any]:
        """Counts per state, remaining quests, the REVIEW queue and who holds which lease."""
        from pytest_quest.export import summary
        from pytest_quest.ledger import Ledger
        from pytest_quest.pool import open_leases
        from pytest_quest.provenance import annotate

        ledger = Ledger.load(Ledger.for_root(root).path)
        todo = {k for k, q in ledger.quests.items() if q.state.value == "TODO"}
        return {**annotate(summary(ledger), ledger),
                "leases": open_leases(ledger.directory, todo)}

    @server.tool(name="show")
    @guarded
    def show(quest: str) -> dict[str, Any]:
        """Everything known about one quest: source, state, every attempt, evidence."""
        from pytest_quest.cli.options import load_project
        from pytest_quest.cli.show import details

        settings, ledger = load_project(root)
        return details(ledger, quest, settings.max_tries)

    @server.tool(name="rules")
    @guarded
    def rules() -> dict[str, Any]:
        """Every rule the gate applies: id, level, stage, description."""
        import pytest_quest.rules  # noqa: F401 - registers the catalog
        from pytest_quest.gate import CATALOG

        return {"rules": [r.to_dict() for r in CATALOG]}

    return server


def _submit(root: Path, agent: str, quest_id: str, source: str,
            unreachable: dict[str, str]) -> dict[str, Any]:
    from pytest_quest.config import load_settings
    from pytest_quest.ledger import Ledger
    from pytest_quest.paths import default_test_path, locked_by_others, same_file_key
    from pytest_quest.pool import settle
    from pytest_quest.states import State
    from pytest_quest.submission import Claim
    from pytest_quest.submit import submit

    ledger = Ledger.load(Ledger.for_root(root).path)
    settings = load_settings(root, ledger.settings)
    quest = ledger.get(quest_id)
    if quest.state is not State.TODO:  # before writing: a PASS quest's file is its locked test
        raise QuestLocked(f"{quest_id} is {quest.state.value}; it takes no more submissions")
    claims = []
    for line, reason in sorted(unreachable.items()):
        if not re.fullmatch(r"[0-9]{1,9}", str(line).strip()):
            raise UsageError(f"unreachable takes line numbers as keys, got {line!r}")
        claims.append(Claim(int(line), reason))
    rel = default_test_path(quest, settings, ledger.quests,
                            locked_by_others(ledger.quests.values(), quest_id))
    # Before writing: the tool chooses the path, not the agent, so a path that is another
    # quest's locked test is our problem, never a FAIL (red team 3, finding 05: the source
    # overwrote the lock and the submission spent a try on scope-test-location).
    owner = next((q.id for q in ledger.quests.values() if q.id != quest_id and
                  q.state is State.PASS and q.evidence is not None and q.evidence.test and
                  same_file_key(q.evidence.test) == same_file_key(rel)), None)
    if owner is not None:
        raise UsageError(f"{rel} is the locked test of {owner}: nothing was written and no try "
                         f"spent; submit {quest_id} with `pytest-quest submit --test PATH`")
    path = settings.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    result = submit(settings, quest_id, path, tuple(claims), agent)
    settle(ledger.directory, quest_id, agent, result.quest.state.value, settings.lease_seconds)
    return result.to_dict(settings.max_tries)


def serve(root: Path, agent: str | None = None) -> None:
    """Serve over stdio until the client closes the connection.

    The kernel probe forks, once per process: it runs here, before the SDK
    starts its threads (a fork beside a thread taking the ledger's lock is
    refused by filelock, as in ``pytest-quest loop``).
    """
    from pytest_quest import confine

    confine.detect()
    build_server(root, agent).run("stdio")
