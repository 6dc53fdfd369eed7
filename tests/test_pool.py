"""The pool: shards are stable and disjoint, leases expire, renew and never strand a quest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.errors import UsageError
from pytest_quest.handout import hand_out
from pytest_quest.ledger import Ledger
from pytest_quest.pool import Leases, Shard, pick, release, settle, shard_of
from pytest_quest.quest import Quest
from pytest_quest.states import State

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def ledger_of(root: Path, n: int, lease_seconds: int = 60) -> Ledger:
    (root / "pyproject.toml").write_text(f"[tool.pytest-quest]\nlease_seconds = {lease_seconds}\n"
                                         'sources = ["pkg"]\n')
    (root / "pkg").mkdir(exist_ok=True)
    ledger = Ledger.for_root(root)
    source = []
    for i in range(n):
        first = len(source) + 1
        source += [f"def f{i}(x):", "    return x + 1", ""]
        ledger.put(Quest(id=f"pkg/m.py::f{i}", path="pkg/m.py", qualname=f"f{i}",
                         lines=(first, first + 1), body=(first + 1, first + 1)))
    (root / "pkg" / "m.py").write_text("\n".join(source))
    ledger.save()
    return ledger


# ------------------------------------------------------------------ shards
def test_shards_partition_ids_disjointly_and_by_id_alone() -> None:
    ids = [f"pkg/mod_{i // 7}.py::f{i}" for i in range(2000)]
    shards = [Shard(k, 4) for k in range(1, 5)]
    owners = [[s for s in shards if i in s] for i in ids]
    assert all(len(o) == 1 for o in owners)  # every id in exactly one shard
    sizes = [sum(1 for o in owners if o[0] == s) for s in shards]
    assert min(sizes) > 400  # and the hash spreads them
    # Pinned: CRC-32 of the UTF-8 id, the same on every machine, Python and run.
    assert (shard_of("hotel/pricing.py::nightly_rate", 4), 750511987 % 4 + 1) == (4, 4)
    assert shard_of("pkg/ü.py::f", 7) == 723677265 % 7 + 1


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "2/0", "-1/3", ""])
def test_bad_shards_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        Shard.parse(text)


def test_next_shard_only_hands_out_its_own_quests(tmp_path: Path) -> None:
    ledger_of(tmp_path, 12)
    seen: dict[int, set[str]] = {}
    for k in (1, 2, 3):
        got = set()
        for round_ in range(12):
            out = hand_out(tmp_path, f"agent-{k}-{round_}", Shard(k, 3))
            if out.brief is None:
                break
            got.add(out.brief.quest.id)
        seen[k] = got
    assert all(shard_of(q, 3) == k for k, got in seen.items() for q in got)
    assert sum(len(g) for g in seen.values()) == 12  # disjoint and complete


def test_next_shard_on_the_cli(tmp_path: Path) -> None:
    ledger_of(tmp_path, 6)
    result = CliRunner().invoke(cli, ["next", "--json", "--shard", "2/3", "--root", str(tmp_path)])
    data = json.loads(result.stdout)
    assert data["shard"] == "2/3" and shard_of(data["quest"], 3) == 2
    bad = CliRunner().invoke(cli, ["next", "--json", "--shard", "4/3", "--root", str(tmp_path)])
    assert bad.exit_code == 2 and json.loads(bad.stdout)["kind"] == "UsageError"


# ------------------------------------------------------------------ leases
def test_leases_expire_renew_and_give_each_agent_its_own(tmp_path: Path) -> None:
    ledger_of(tmp_path, 3, lease_seconds=60)
    a = hand_out(tmp_path, "alice", now=T0).brief
    b = hand_out(tmp_path, "bob", now=T0).brief
    assert a and b and a.quest.id != b.quest.id
    later = T0 + timedelta(seconds=30)
    assert hand_out(tmp_path, "alice", now=later).brief.quest.id == a.quest.id  # renews
    assert hand_out(tmp_path, None, now=later).brief.quest.id not in (a.quest.id, b.quest.id)
    # bob's lease ran out at T0+60 s, alice's renewal holds until T0+90 s.
    carol = hand_out(tmp_path, "carol", now=T0 + timedelta(seconds=70)).brief
    assert carol is not None and carol.quest.id == b.quest.id
    held = Leases(tmp_path / ".quest").live(T0 + timedelta(seconds=70))
    assert {q: v["agent"] for q, v in held.items()} == {a.quest.id: "alice", b.quest.id: "carol"}


def test_a_submit_renews_or_frees_the_lease(tmp_path: Path) -> None:
    ledger_of(tmp_path, 2)
    directory = tmp_path / ".quest"
    out = hand_out(tmp_path, "alice")
    quest = out.brief.quest.id
    first = Leases(directory).live()[quest]
    settle(directory, quest, "alice", "TODO", 600)  # a FAIL: keep it, for longer
    renewed = Leases(directory).live()[quest]
    assert renewed["until"] > first["until"] and renewed["since"] == first["since"]
    settle(directory, quest, "bob", "PASS", 600)  # someone else's submit takes nothing
    assert Leases(directory).live()[quest]["agent"] == "alice"
    settle(directory, quest, "alice", "PASS", 600)
    assert quest not in Leases(directory).live()
    settle(directory, quest, None, "TODO", 600)  # no agent: no lease
    assert quest not in Leases(directory).live()


def test_release_only_frees_the_holders_lease(tmp_path: Path) -> None:
    ledger_of(tmp_path, 1)
    quest = hand_out(tmp_path, "alice").brief.quest.id
    release(tmp_path / ".quest", quest, "bob")
    assert quest in Leases(tmp_path / ".quest").live()
    release(tmp_path / ".quest", quest, "alice")
    assert not Leases(tmp_path / ".quest").live()


def test_a_damaged_lease_file_holds_nothing_and_is_rewritten(tmp_path: Path) -> None:
    ledger_of(tmp_path, 2)
    leases = Leases(tmp_path / ".quest")
    leases.path.write_text("{not json")
    assert leases.live() == {}
    hand_out(tmp_path, "alice")
    assert [v["agent"] for v in leases.live().values()] == ["alice"]
    leases.path.write_text(json.dumps({"leases": {"x": {"agent": "a", "until": "bad"}}}))
    assert leases.live() == {}


def test_leases_stay_out_of_git(tmp_path: Path) -> None:
    ledger_of(tmp_path, 1)
    gitignore = tmp_path / ".quest" / ".gitignore"
    gitignore.write_text("*.lock\nruns/\n")  # written by an older pytest-quest
    hand_out(tmp_path, "alice")
    assert "leases.json" in gitignore.read_text().split()
    assert "leases" not in (tmp_path / ".quest" / "ledger.json").read_text()


def test_pick_prefers_the_agents_own_quest_and_skips_what_it_is_told() -> None:
    quests = [{"id": f"m.py::f{i}", "path": "m.py", "lines": [10 - i, 11 - i]} for i in range(4)]
    quests.append({"id": "m.py::done", "path": "m.py", "lines": [0, 1], "state": "PASS"})
    held = {"m.py::f0": {"agent": "alice"}}
    assert pick(quests, held, None).chosen["id"] == "m.py::f3"  # ledger order: file, line
    assert pick(quests, held, "alice").chosen["id"] == "m.py::f0"
    survey = pick(quests, held, "bob", exclude=["m.py::f3"])
    assert survey.chosen["id"] == "m.py::f2"
    assert (survey.counts, survey.leased) == ({"TODO": 4, "PASS": 1}, 1)
    assert pick(quests, held, "alice", exclude=["m.py::f0"]).chosen["id"] == "m.py::f3"


@pytest.mark.slow
def test_a_killed_agent_never_strands_its_quest(tmp_path: Path) -> None:
    """A real `next --agent` process killed with its lease held: the quest returns at expiry."""
    # Lease times have whole seconds, so a 4 s lease lives between 3 and 4 s.
    ledger_of(tmp_path, 2, lease_seconds=4)
    script = ("import os, sys, subprocess\n"
              "subprocess.run([sys.executable, '-m', 'pytest_quest', 'next', '--json',"
              f" '--agent', 'doomed', '--root', {str(tmp_path)!r}], check=True,"
              " stdout=subprocess.DEVNULL)\n"
              "print('leased', flush=True)\n"
              "import time; time.sleep(60)\n")
    agent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    assert agent.stdout is not None
    assert agent.stdout.readline() == "leased\n"
    os.killpg(agent.pid, signal.SIGKILL)
    agent.wait()
    doomed = next(iter(Leases(tmp_path / ".quest").live()))
    other = hand_out(tmp_path, "survivor").brief
    assert other is not None and other.quest.id != doomed  # still leased right after the kill
    time.sleep(4.2)
    back = hand_out(tmp_path, "rescuer").brief
    assert back is not None and back.quest.id == doomed  # expired: back in the pool
    assert Ledger.load(Ledger.for_root(tmp_path).path).get(doomed).state is State.TODO


def test_status_shows_who_holds_what(tmp_path: Path) -> None:
    ledger_of(tmp_path, 3)
    quest = hand_out(tmp_path, "alice").brief.quest.id
    stale = hand_out(tmp_path, "bob").brief.quest.id
    ledger = Ledger.load(Ledger.for_root(tmp_path).path)
    ledger.put(ledger.get(stale).with_(state=State.PASS))  # bob submitted without --agent
    ledger.save()
    result = CliRunner().invoke(cli, ["status", "--json", "--root", str(tmp_path)])
    leases = json.loads(result.stdout)["leases"]
    assert list(leases) == [quest] and leases[quest]["agent"] == "alice"
    human = CliRunner().invoke(cli, ["status", "--root", str(tmp_path)])
    assert "Leased (1)" in human.stdout and f"alice {quest}" in human.stdout


def test_next_without_a_free_quest_says_who_holds_them(tmp_path: Path) -> None:
    ledger_of(tmp_path, 1)
    hand_out(tmp_path, "alice")
    result = CliRunner().invoke(cli, ["next", "--agent", "bob", "--root", str(tmp_path)])
    assert "No free quest" in result.stdout and "1 leased to other agents" in result.stdout
    data = json.loads(CliRunner().invoke(cli, ["next", "--json", "--agent", "bob", "--root",
                                               str(tmp_path)]).stdout)
    assert (data["quest"], data["remaining"], data["leased"]) == (None, 1, 1)
