"""`pytest-quest mcp` end to end, through the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from pytest_quest.cli import cli
from pytest_quest.ledger import Ledger
from pytest_quest.pool import Leases
from tests.test_submit import FULL, PARTIAL

QUEST = "hotel/pricing.py::nightly_rate"


def structured(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def first_open_is_nightly(project: Path) -> None:
    """Make nightly_rate the first open quest (the others stay TODO, behind it)."""
    ledger = Ledger.load(Ledger.for_root(project).path)
    for quest in ledger.ordered():
        if quest.id != QUEST and quest.state.value == "TODO" and quest.path < "hotel/pricing.py":
            ledger.put(quest.with_(state=quest.state.__class__("DONE")))
    ledger.save()


async def session_run(project: Path, body: Any) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pytest_quest", "mcp", "--root", str(project), "--agent", "host-a"],
        cwd=str(project),
        # The SDK passes only a few variables on; keep this suite's coverage of the server.
        env={k: v for k, v in os.environ.items() if k.startswith("COVERAGE_")},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await body(session)


def test_the_loop_over_mcp_matches_the_cli(project: Path) -> None:
    first_open_is_nightly(project)

    async def body(session: ClientSession) -> dict[str, Any]:
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"next_quest", "submit", "status", "show", "rules"} <= names
        out: dict[str, Any] = {}
        out["next"] = structured(await session.call_tool("next_quest", {}))
        out["fail"] = structured(await session.call_tool(
            "submit", {"quest": QUEST, "test_source": PARTIAL}))
        out["again"] = structured(await session.call_tool("next_quest", {}))
        out["leases"] = Leases(project / ".quest").live()
        out["pass"] = structured(await session.call_tool(
            "submit", {"quest": QUEST, "test_source": FULL}))
        out["status"] = structured(await session.call_tool("status", {}))
        out["show"] = structured(await session.call_tool("show", {"quest": QUEST}))
        out["rules"] = structured(await session.call_tool("rules", {}))
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("show", {"quest": "nope.py::f"})
        with pytest.raises(MCPError) as locked:
            await session.call_tool("submit", {"quest": QUEST, "test_source": PARTIAL})
        out["errors"] = (unknown.value, locked.value)
        return out

    out = anyio.run(session_run, project, body)
    assert out["next"]["quest"] == QUEST and out["next"]["agent"] == "host-a"
    assert out["next"]["lease_until"] and out["next"]["test_path"].endswith(".py")
    assert (out["fail"]["verdict"], out["fail"]["tries"]) == ("FAIL", 1)
    assert out["fail"]["facts"][0]["rule"] == "coverage-lines"
    assert out["again"]["quest"] == QUEST and out["again"]["facts"]  # same quest, new facts
    assert out["leases"][QUEST]["agent"] == "host-a"
    assert (out["pass"]["verdict"], out["pass"]["state"]) == ("PASS", "PASS")
    assert out["status"]["counts"]["PASS"] >= 6 and QUEST not in out["status"]["leases"]
    assert [a["verdict"] for a in out["show"]["attempts"]] == ["FAIL", "PASS"]
    assert any(r["id"] == "coverage-lines" for r in out["rules"]["rules"])
    unknown, locked = out["errors"]
    assert (unknown.code, unknown.data) == (-32602, {"kind": "UnknownQuest", "exit_code": 2})
    assert (locked.code, locked.data) == (-32000, {"kind": "QuestLocked", "exit_code": 4})

    # Same documents as the CLI: the next quest and the status agree key for key.
    result = CliRunner().invoke(cli, ["status", "--json", "--root", str(project)])
    assert set(json.loads(result.stdout)) == set(out["status"])
    written = project / out["pass"]["test_path"]
    assert written.read_text() == FULL  # the locked test was not overwritten by the refused one


def test_next_quest_json_equals_next_json(project: Path) -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        return structured(await session.call_tool("next_quest", {"shard": "1/1"}))

    over_mcp = anyio.run(session_run, project, body)
    result = CliRunner().invoke(cli, ["next", "--json", "--agent", "host-a", "--shard", "1/1",
                                      "--root", str(project)])
    by_cli = json.loads(result.stdout)
    assert over_mcp.pop("lease_until") <= by_cli.pop("lease_until")
    assert over_mcp == by_cli


def test_mcp_without_a_ledger_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = CliRunner().invoke(cli, ["mcp", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "no ledger" in result.stderr
