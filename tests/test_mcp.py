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


#: Two quests whose readable test names are one file (red team 3, finding 05).
PACKAGED, FLAT = "hotel/x/y.py::f", "hotel/x_y.py::f"
TWICE = "def f(n):\n    if n > 0:\n        return n * 2\n    return -n\n"
TWICE_TEST = """
from {module} import f


def test_f():
    assert f(3) == 6
    assert f(1) == 2
    assert f(0) == 0
    assert f(-2) == 2
"""


@pytest.fixture
def colliding(project: Path) -> Path:
    """example_project with ``hotel/x/y.py::f`` and ``hotel/x_y.py::f``, rescanned."""
    from pytest_quest.config import load_settings
    from pytest_quest.scan import scan

    (project / "hotel" / "x").mkdir()
    (project / "hotel" / "x" / "__init__.py").write_text("")
    (project / "hotel" / "x" / "y.py").write_text(TWICE)
    (project / "hotel" / "x_y.py").write_text(TWICE)
    scan(load_settings(project), baseline=False)
    return project


def test_colliding_quests_write_their_own_files_over_mcp(colliding: Path) -> None:
    # Before: both quests' default path was tests/quest/test_hotel_x_y__f.py, so submitting
    # the second one overwrote the first one's locked test and FAILed scope-test-location.
    from pytest_quest.mcp_server import _submit
    from pytest_quest.queue import take

    offered = take(colliding, PACKAGED).brief  # what `next` says, and where the tool writes
    assert offered is not None
    first = _submit(colliding, "host-a", FLAT, TWICE_TEST.format(module="hotel.x_y"), {})
    assert first["verdict"] == "PASS", first["facts"]
    locked = colliding / first["test_path"]
    second = _submit(colliding, "host-a", PACKAGED, TWICE_TEST.format(module="hotel.x.y"), {})
    assert second["verdict"] == "PASS", second["facts"]
    assert offered.test_path == second["test_path"] != first["test_path"]
    assert locked.read_text() == TWICE_TEST.format(module="hotel.x_y")
    ledger = Ledger.load(Ledger.for_root(colliding).path)
    assert ledger.get(PACKAGED).tries == 0


def test_mcp_never_writes_over_another_quests_locked_test(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A lock recorded at the path the tool would write for another quest (placed there by an
    # older version, which let `submit --test` take another open quest's path; now a usage
    # error, red team 4, finding 05): that quest's path moves to its hashed name (finding 02),
    # so the tool writes there and the lock is left alone.
    from pytest_quest import preflight
    from pytest_quest.config import load_settings
    from pytest_quest.mcp_server import _submit
    from pytest_quest.paths import default_test_path, locked_by_others
    from pytest_quest.submit import submit

    tax = "hotel/pricing.py::tax_amount"
    ledger = Ledger.load(Ledger.for_root(project).path)
    theirs = project / default_test_path(ledger.get(tax), load_settings(project), ledger.quests)
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.write_text(FULL)
    with monkeypatch.context() as older:
        older.setattr(preflight, "check_others_files", lambda *args: None)
        assert submit(load_settings(project), QUEST, test=theirs).quest.state.value == "PASS"
    ledger = Ledger.load(Ledger.for_root(project).path)
    ours = default_test_path(ledger.get(tax), load_settings(project), ledger.quests,
                             locked_by_others(ledger.quests.values(), tax))
    assert project / ours != theirs
    _submit(project, "host-a", tax, "def test_x():\n    assert 1 == 1\n", {})
    assert theirs.read_text() == FULL
    assert (project / ours).read_text() == "def test_x():\n    assert 1 == 1\n"
    assert Ledger.load(Ledger.for_root(project).path).get(QUEST).state.value == "PASS"


@pytest.mark.parametrize("line", ["\u00b2", "9" * 5000, "-3", "1e3"])
def test_mcp_unreachable_keys_that_are_no_line_number_are_a_usage_error(project: Path,
                                                                       line: str) -> None:
    # Red team 4: "²".isdigit() held and int("²") raised ValueError, as did 5000 digits
    # (Python's int limit): a traceback in the tool, not a usage error.
    from pytest_quest.errors import UsageError
    from pytest_quest.mcp_server import _submit

    with pytest.raises(UsageError, match="line numbers"):
        _submit(project, "host-a", "hotel/pricing.py::tax_amount", "def test_x(): pass\n",
                {line: "unreachable"})
