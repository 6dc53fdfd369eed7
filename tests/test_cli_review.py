"""``pytest-quest review``: the queue, approve / reject / close, exit codes, the attempts log."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import load_settings
from pytest_quest.export import NO_MUTATION
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.states import State
from pytest_quest.submission import Claim
from pytest_quest.submit import submit
from tests.test_cli_status import build_ledger, invoke

TAX = "hotel/pricing.py::tax_amount"
TAX_TEST = """
from hotel.pricing import tax_amount

def test_vat_and_city_tax():
    assert tax_amount(100.0, 2) == 17.0
    assert tax_amount(100.0, 20) == 47.0
"""
REVIEWED = "pkg/mod_0000.py::func_8"


@pytest.fixture
def claimed(project: Path) -> Path:
    """example_project with tax_amount in REVIEW: the agent claimed line 54 unreachable."""
    test = project / "tests" / "quest" / "test_tax.py"
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(TAX_TEST)
    result = submit(load_settings(project), TAX, test=test,
                    claims=(Claim(54, "exempt guests never reach [billing]"),))
    assert result.quest.state is State.REVIEW, result.verdict.facts
    return project


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    """A synthetic ledger whose REVIEW quest func_8 has its reviewed test file on disk."""
    build_ledger(tmp_path, 20)
    test = tmp_path / "tests" / "quest" / "test_8.py"
    test.parent.mkdir(parents=True)
    test.write_text("def test_x():\n    assert True\n")
    ledger = Ledger.load(Ledger.for_root(tmp_path).path)
    lines = ledger.attempts_path.read_text().splitlines()
    sha = hashlib.sha256(test.read_bytes()).hexdigest()
    out = []
    for line in lines:
        record = json.loads(line)
        if record["quest"] == REVIEWED:
            record["sha256"] = sha
            record["test"] = "tests/quest/test_8.py"
        out.append(json.dumps(record))
    ledger.attempts_path.write_text("\n".join(out) + "\n")
    return tmp_path


def review(root: Path, *args: str) -> Any:
    return invoke(root, "review", *args)


def load(root: Path) -> Ledger:
    return Ledger.load(Ledger.for_root(root).path)


# ------------------------------------------------------------------- listing
@pytest.mark.slow
def test_queue_lists_reasons_and_the_submitted_test(claimed: Path) -> None:
    result = review(claimed, "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["count"] == 1
    (item,) = data["review"]
    assert item["id"] == TAX and item["state"] == "REVIEW"
    rules = {f["rule"] for f in item["reasons"]}
    assert "coverage-unreachable-claim" in rules
    claim = next(f for f in item["reasons"] if f["rule"] == "coverage-unreachable-claim")
    assert claim["where"] == "hotel/pricing.py:54"
    assert item["submission"]["test"] == "tests/quest/test_tax.py"
    human = review(claimed)
    assert "exempt guests never reach [billing]" in human.stdout  # markup is not eaten
    assert "hotel/pricing.py:54" in human.stdout and "--approve" in human.stderr
    # The claim did not switch mutation off (red team 3, finding 04): the reviewer sees what ran.
    assert item["mutation"]["extreme_killed"] == item["mutation"]["extreme_total"] >= 1
    assert "mutation:  score" in human.stdout and "none recorded" not in human.stdout


def test_a_review_without_mutation_figures_says_so_plainly(synthetic: Path) -> None:
    # Red team 3, finding 04: a reviewer asked about a claim must see that no mutant ran.
    data = json.loads(review(synthetic, REVIEWED, "--json").stdout)
    assert data["review"][0]["mutation"] is None
    human = " ".join(review(synthetic, REVIEWED).stdout.split())
    assert f"mutation: {NO_MUTATION}" in human
    shown = " ".join(invoke(synthetic, "show", REVIEWED).stdout.split())
    assert f"mutation: {NO_MUTATION}" in shown


def test_empty_queue(tmp_path: Path) -> None:
    Ledger.for_root(tmp_path).save()
    assert json.loads(review(tmp_path, "--json").stdout) == {"count": 0, "review": []}
    assert "empty" in review(tmp_path).stdout


def test_one_quest_without_a_decision_shows_it(synthetic: Path) -> None:
    data = json.loads(review(synthetic, REVIEWED, "--json").stdout)
    assert [i["id"] for i in data["review"]] == [REVIEWED]
    assert review(synthetic, "nope::x").exit_code == 2


# ----------------------------------------------------------------- decisions
@pytest.mark.slow
def test_approve_locks_pass_with_evidence_and_logs_it(claimed: Path) -> None:
    result = review(claimed, TAX, "--approve", "--note", "line 54 is a guard", "--by", "Ada",
                    "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["state"] == "PASS" and data["action"] == "approve"
    quest = load(claimed).get(TAX)
    assert quest.state is State.PASS
    assert quest.decision is not None and quest.decision["by"] == "Ada"
    assert quest.decision["note"] == "line 54 is a guard"
    assert quest.evidence is not None and quest.evidence.test == "tests/quest/test_tax.py"
    expected = hashlib.sha256((claimed / "tests/quest/test_tax.py").read_bytes()).hexdigest()
    assert quest.evidence.sha256 == expected
    assert quest.evidence.source == "review" and quest.evidence.source_hash == quest.source_hash
    record = read_attempts(load(claimed), TAX)[-1]
    assert record.kind == "review" and record.action == "approve"
    assert record.by == "Ada" and record.state == "PASS"
    again = review(claimed, TAX, "--approve", "--note", "twice", "--by", "Ada")
    assert again.exit_code == 4


@pytest.mark.slow
def test_rejected_quest_comes_back_in_next_with_the_note(claimed: Path) -> None:
    result = review(claimed, TAX, "--reject", "--note", "cover the exempt branch", "--by", "Bo")
    assert result.exit_code == 0 and "TODO" in result.stdout
    quest = load(claimed).get(TAX)
    assert quest.state is State.TODO
    (fact,) = quest.facts
    assert (fact.rule, fact.level, fact.where) == ("review-rejected", "fail", TAX)
    assert fact.expected == "cover the exempt branch"
    from pytest_quest.prompt import brief

    shown = brief(quest, load_settings(claimed)).to_dict()  # what `next` hands the agent
    assert shown["facts"][0]["rule"] == "review-rejected"
    assert "cover the exempt branch" in shown["prompt"]
    record = read_attempts(load(claimed), TAX)[-1]
    assert (record.kind, record.state, record.remaining) == ("review", "TODO",
                                                           load(claimed).remaining)


def test_reject_close_sends_to_done(synthetic: Path) -> None:
    before = load(synthetic).remaining
    result = review(synthetic, REVIEWED, "--reject", "--close", "--note", "generated code",
                    "--by", "Cy", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["state"] == "DONE"
    ledger = load(synthetic)
    assert ledger.get(REVIEWED).state is State.DONE and ledger.remaining == before
    assert read_attempts(ledger, REVIEWED)[-1].action == "close"


def test_approve_synthetic_uses_the_reviewed_file(synthetic: Path) -> None:
    result = review(synthetic, REVIEWED, "--approve", "--note", "ok", "--by", "Ada")
    assert result.exit_code == 0, result.stderr
    assert load(synthetic).get(REVIEWED).evidence.test == "tests/quest/test_8.py"


def test_approve_refuses_a_test_changed_since_review(synthetic: Path) -> None:
    (synthetic / "tests/quest/test_8.py").write_text("def test_x():\n    assert 1\n")
    before = load(synthetic).path.read_text()
    result = review(synthetic, REVIEWED, "--approve", "--note", "ok", "--by", "Ada")
    assert result.exit_code == 2 and "changed since" in result.stderr
    assert load(synthetic).path.read_text() == before


@pytest.mark.parametrize(("args", "code", "message"), [
    (("--approve", "--reject", "--note", "x"), 2, "one of"),
    (("--close", "--note", "x"), 2, "--close goes with --reject"),
    (("--approve",), 2, "--note"),
    (("--approve", "--note", "  "), 2, "--note"),
    (("--note", "x"), 2, "go with --approve"),
])
def test_bad_flag_combinations(synthetic: Path, args: tuple[str, ...], code: int,
                               message: str) -> None:
    result = review(synthetic, REVIEWED, *args, "--by", "Ada")
    assert result.exit_code == code and message in result.stderr


def test_decision_needs_a_quest_id(synthetic: Path) -> None:
    result = review(synthetic, "--approve", "--note", "x")
    assert result.exit_code == 2 and "name the quest" in result.stderr


@pytest.mark.parametrize(("quest_id", "code"), [
    ("pkg/mod_0000.py::func_6", 4),  # PASS: locked
    ("pkg/mod_0000.py::func_9", 4),  # DONE: locked
    ("pkg/mod_0000.py::func_0", 2),  # TODO: nothing to review
    ("pkg/mod_0000.py::missing", 2),
])
def test_only_review_quests_can_be_decided(synthetic: Path, quest_id: str, code: int) -> None:
    before = load(synthetic).path.read_text()
    result = review(synthetic, quest_id, "--reject", "--note", "x", "--by", "Ada")
    assert result.exit_code == code
    assert load(synthetic).path.read_text() == before
    assert all(r.kind != "review" for r in read_attempts(load(synthetic)))


@pytest.mark.slow
def test_by_defaults_to_git_user_name(synthetic: Path) -> None:
    subprocess.run(["git", "init", "-q", str(synthetic)], check=True)
    subprocess.run(["git", "-C", str(synthetic), "config", "user.name", "Grace Hopper"], check=True)
    result = review(synthetic, REVIEWED, "--reject", "--note", "cover it")
    assert result.exit_code == 0, result.stderr
    assert load(synthetic).get(REVIEWED).decision["by"] == "Grace Hopper"


def test_no_name_anywhere_is_a_usage_error(synthetic: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_quest import review as review_service

    monkeypatch.setattr(review_service, "git_user", lambda root: None)
    result = review(synthetic, REVIEWED, "--reject", "--note", "cover it")
    assert result.exit_code == 2 and "--by" in result.stderr
