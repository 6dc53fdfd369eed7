"""The ratchet locks only what the gate judged (issue 8, bugs 3, 4 and 5), on example_project.

- a rescan and ``--quest-update`` lock through the project's own suite only
  (a locked quest test locks nothing but its own quest, red team 2 finding
  05 and round-1 finding 12); a maintainer can reopen a wrong lock (logged);
- an approved unreachable-line claim is part of the lock;
- a locked test that changed is named and judged again (``recheck``), a
  ``# pragma: no cover`` added after the lock is reported, and a narrowed
  run judges only the locks whose tests it ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import load_settings
from pytest_quest.history import judge
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.records import Evidence
from pytest_quest.sandbox import file_sha256
from pytest_quest.scan import scan
from pytest_quest.states import State
from pytest_quest.submission import Claim
from pytest_quest.submit import Result, submit
from tests.test_cli_status import invoke

pytestmark = pytest.mark.slow

TAX = "hotel/pricing.py::tax_amount"
LOYALTY = "hotel/pricing.py::loyalty_discount"
CHEAPEST = "hotel/pricing.py::cheapest_option"
TAX_TEST = """
from hotel.pricing import tax_amount

def test_vat_and_city_tax():
    assert tax_amount(100.0, 2) == 17.0
    assert tax_amount(100.0, 20) == 47.0
"""
LOYALTY_TEST = """
from hotel.pricing import loyalty_discount

def test_tiers():
    assert loyalty_discount(None, 3) == 0.0
    assert loyalty_discount("platinum", 3) == 0.0
    assert loyalty_discount("Silver", 3) == 10.0
    assert loyalty_discount("gold", 5) == 15.0
    assert loyalty_discount("gold", 6) == 20.0
"""


def load(root: Path) -> Ledger:
    return Ledger.load(Ledger.for_root(root).path)


def lock_of(root: Path, quest_id: str) -> Evidence:
    evidence = load(root).get(quest_id).evidence
    assert evidence is not None
    return evidence


def check(root: Path, *args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any], str]:
    """``pytest --quest-check`` (or the flags in ``args``) in a subprocess; the JSON verdict."""
    out = root.parent / "verdict.json"
    out.unlink(missing_ok=True)
    flags = args if any(a.startswith("--quest-update") for a in args) else ("--quest-check",
                                                                             *args)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COVERAGE_", "GITHUB_"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           f"--quest-json={out}", *flags], cwd=cwd or root,
                          capture_output=True, text=True, env=env, check=False)
    data = json.loads(out.read_text()) if out.is_file() else {}
    return done.returncode, data, done.stdout + done.stderr


def facts_of(data: dict[str, Any], quest_id: str) -> dict[str, dict[str, str]]:
    for problem in data["problems"]:
        if problem["quest"] == quest_id:
            return {f["rule"]: f for f in problem["facts"]}
    return {}


# -------------------------------------------------------------- bug 3: rescans
def test_rescan_does_not_lock_through_unjudged_quest_folder_files(
        project: Path, submit_test: Callable[..., Result]) -> None:
    before = load(project)
    assert before.get(LOYALTY).state is State.TODO and before.get(CHEAPEST).state is State.TODO
    # A weak test the gate FAILs (no assertion), left where the agent wrote it.
    failed = submit_test(CHEAPEST, "from hotel.pricing import cheapest_option\n\n"
                         "def test_runs():\n    cheapest_option({'a': 1.0, 'b': 2.0}, 1.5)\n"
                         "    cheapest_option({'a': 1.0})\n    cheapest_option({}, 1.0)\n")
    assert failed.verdict.outcome.value == "FAIL"
    # An assertion-free file nobody submitted, covering every line of loyalty_discount.
    (project / "tests" / "quest" / "test_scratch.py").write_text(
        "from hotel.pricing import loyalty_discount\n\ndef test_scratch():\n"
        "    for tier in (None, 'x', 'gold', 'silver'):\n        loyalty_discount(tier, 6)\n")
    report, ledger = scan(load_settings(project))
    assert report.locked == []
    assert ledger.get(LOYALTY).state is State.TODO and ledger.get(CHEAPEST).state is State.TODO
    # pytest --quest-update leaves those files out the same way, and says so.
    code, data, out = check(project, "--quest-update")
    assert code == 0, out
    assert LOYALTY not in data["locked"] and CHEAPEST not in data["locked"]
    assert "left out 2 quest-folder test file(s) no PASS was locked by" in out


#: A genuinely good test of nightly_rate (it PASSes on merit) that also runs every line of two
#: other functions without checking them (round-1 finding 12), and, where it runs in the process
#: holding the baseline's event pipe (PID 1 of the harness), forges coverage of every source line
#: on that pipe (round-2 finding 05). Neither may lock any quest but its own.
NIGHTLY = "hotel/pricing.py::nightly_rate"
FORGING_TEST = """
import json
import os
import stat

import pytest

from hotel.pricing import loyalty_discount, nightly_rate, tax_amount


@pytest.mark.parametrize(("base", "season", "nights", "want"), [
    (100.0, "high", 3, 125.0), (100.0, "low", 3, 80.0), (100.0, "mid", 3, 100.0),
    (100.0, "high", 7, 112.5), (100.0, "low", 6, 80.0), (100.0, "mid", 7, 90.0),
    (100.0, "high", 1, 125.0), (33.33, "high", 6, 41.66), (10.0, "low", 8, 7.2),
])
def test_rate(base, season, nights, want):
    assert nightly_rate(base, season, nights) == want


@pytest.mark.parametrize("nights", [0, -1])
def test_rejects_non_positive_nights(nights):
    with pytest.raises(ValueError, match="nights must be positive"):
        nightly_rate(100.0, "high", nights)


def test_smoke_other_helpers():
    results = [loyalty_discount(None, 1), loyalty_discount("nope", 1),
               loyalty_discount("gold", 6), loyalty_discount("silver", 2),
               tax_amount(100.0, 3, exempt=True), tax_amount(100.0, 3)]
    assert None not in results


def _pipe():
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b"")
                return fd
        except OSError:
            continue
    return None


def test_zz_housekeeping():
    fd = _pipe() if os.getpid() == 1 else None
    if fd is None:
        assert nightly_rate(100.0, "low", 7) == 72.0
        return
    files = {}
    for root, _dirs, names in os.walk("hotel"):
        for name in names:
            if name.endswith(".py"):
                files[os.path.join(root, name)] = {
                    "executed_lines": list(range(1, 3000)), "missing_lines": []}
    forged = [{"event": "coverage", "files": files}, {"event": "round_done", "round": 1},
              {"event": "done", "exitstatus": 0, "denied": []}]
    os.write(fd, "".join(json.dumps(e) + "\\n" for e in forged).encode())
    with open(os.devnull, "wb") as sink:
        os.dup2(sink.fileno(), fd)
"""


def test_a_locked_quest_test_locks_no_other_quest_at_rescan(
        project: Path, submit_test: Callable[..., Result]) -> None:
    """Red team 2 finding 05 and round-1 finding 12: the baseline runs the project's suite only."""
    result = submit_test(NIGHTLY, FORGING_TEST)
    assert result.quest.state is State.PASS, result.verdict.facts
    todo = {q.id for q in load(project).quests.values() if q.state is State.TODO}
    assert {LOYALTY, TAX} <= todo
    report, ledger = scan(load_settings(project))
    assert report.locked == []
    assert {q.id for q in ledger.quests.values() if q.state is State.TODO} == todo
    assert ledger.get(NIGHTLY).state is State.PASS  # its own lock stands, as the gate judged it
    # pytest --quest-update runs the locked test (its own lock is checked) but locks nothing
    # through it; a test of the project's own suite still locks what it covers.
    code, data, out = check(project, "--quest-update")
    assert code == 0, out
    assert data["locked"] == [] and not data["problems"], out
    (project / "tests" / "test_own_loyalty.py").write_text(LOYALTY_TEST)
    code, data, out = check(project, "--quest-update")
    assert code == 0, out
    assert data["locked"] == [LOYALTY], out
    assert load(project).get(TAX).state is State.TODO


def test_a_rescan_still_locks_what_the_projects_own_suite_covers(example_copy: Path) -> None:
    """Honest use: the project's own tests lock at every rescan, a quest folder or not."""
    first, _ledger = scan(load_settings(example_copy))
    assert first.locked
    quest_dir = example_copy / "tests" / "quest"
    quest_dir.mkdir(parents=True, exist_ok=True)
    (quest_dir / "test_scratch.py").write_text("def test_nothing():\n    assert 1 + 1 == 2\n")
    ledger_path = Ledger.for_root(example_copy).path
    data = json.loads(ledger_path.read_text())
    for quest in data["quests"]:
        if quest["id"] in first.locked:  # the baseline's locks undone: the next scan relocks them
            quest.update(state="TODO", evidence=None)
    ledger_path.write_text(json.dumps(data))
    again, _ledger = scan(load_settings(example_copy))
    assert sorted(again.locked) == sorted(first.locked)


def test_reopen_withdraws_a_wrong_lock_and_is_logged(project: Path) -> None:
    quest = "hotel/pricing.py::round_to_cents"
    before = json.loads(Ledger.for_root(project).path.read_text())
    base_log = load(project).attempts_path.read_text().splitlines() if load(
        project).attempts_path.exists() else []
    refused = invoke(project, "review", quest, "--reopen", "--by", "Ada", "--json")
    assert refused.exit_code == 2  # a reason is required
    result = invoke(project, "review", quest, "--reopen", "--note", "locked by a weak test",
                    "--by", "Ada", "--json")
    assert result.exit_code == 0, result.stderr
    after = load(project).get(quest)
    assert after.state is State.TODO and after.evidence is None
    assert after.facts[0].rule == "review-reopened"
    assert after.facts[0].expected == "locked by a weak test"
    record = read_attempts(load(project), quest)[-1]
    assert (record.kind, record.action, record.from_state) == ("review", "reopen", "PASS")
    # The history check accepts the step because it is logged, and names it.
    head = json.loads(Ledger.for_root(project).path.read_text())
    head_log = load(project).attempts_path.read_text().splitlines()
    report = judge(before, head, lambda path, name: True, base_log, head_log)
    assert report.ok and "reopen by Ada" in report.notices[0].actual
    again = invoke(project, "review", "hotel/pricing.py::loyalty_discount", "--reopen",
                   "--note", "x", "--by", "Ada")
    assert again.exit_code == 2 and "only a PASS quest can be reopened" in again.stderr


# -------------------------------------------------- bug 4: approved claims hold
def test_approved_unreachable_claim_is_part_of_the_lock(project: Path) -> None:
    test = project / "tests" / "quest" / "test_tax.py"
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(TAX_TEST)
    result = submit(load_settings(project), TAX, test=test,
                    claims=(Claim(54, "exempt guests never reach billing"),))
    assert result.quest.state is State.REVIEW, result.verdict.facts
    approved = invoke(project, "review", TAX, "--approve", "--note", "guard", "--by", "Ada")
    assert approved.exit_code == 0, approved.stderr
    evidence = load(project).get(TAX).evidence
    assert evidence is not None and evidence.def_line == 51
    assert evidence.unreachable == ({"line": 54, "offset": 3, "text": "return 0.0",
                                        "reason": "exempt guests never reach billing"},)
    code, data, out = check(project)
    assert code == 0, out
    assert facts_of(data, TAX) == {}
    # The claim covers that line as it read when approved: edited, it must be covered again.
    source = project / "hotel" / "pricing.py"
    source.write_text(source.read_text().replace("        return 0.0\n    vat",
                                                 "        return 0.00\n    vat"))
    code, data, _out = check(project)
    assert code == 1
    assert facts_of(data, TAX)["coverage-lines"]["where"] == "hotel/pricing.py:54"
    # The approved test is the lock's test like a submitted one: deleting it is a fact.
    test.unlink()
    code, data, _out = check(project)
    assert facts_of(data, TAX)["ratchet-test-missing"]["where"] == "tests/quest/test_tax.py"


# ------------------------------------------- bug 5: the ratchet cannot loosen
def test_changed_locked_test_is_named_and_judged_again(
        project: Path, submit_test: Callable[..., Result]) -> None:
    result = submit_test(LOYALTY, LOYALTY_TEST)
    assert result.quest.state is State.PASS, result.verdict.facts
    test = project / result.test_path
    old = file_sha256(test)
    assert check(project)[0] == 0
    test.write_text("from hotel.pricing import loyalty_discount\n\ndef test_tiers():\n"
                    "    for tier in (None, 'x', 'gold', 'silver'):\n"
                    "        loyalty_discount(tier, 6)\n")
    weak = file_sha256(test)
    code, data, _out = check(project)
    assert code == 1
    fact = facts_of(data, LOYALTY)["ratchet-test-changed"]
    assert fact["where"] == result.test_path
    assert fact["actual"].startswith(f"sha256 {old} -> {weak}")
    # --quest-update judges it too; refused, it locks nothing else through that file.
    code, data, _out = check(project, "--quest-update")
    assert code == 1 and data["locked"] == [] and data["rechecked"] == []
    assert data["skipped_update"].startswith(f"changed locked test(s) of {LOYALTY} ran and the "
                                             "gate did not accept them")
    rechecked = invoke(project, "recheck")
    assert rechecked.exit_code == 1
    assert f"{LOYALTY}: {result.test_path} sha256 {old[:12]} -> {weak[:12]}: FAIL" in (
        rechecked.stdout)
    assert "the lock stays" in rechecked.stderr
    assert lock_of(project, LOYALTY).sha256 == old  # the lock stays
    test.write_text(LOYALTY_TEST + "\n\ndef test_more():\n"
                    "    assert loyalty_discount('bronze', 1) == 5.0\n")
    relocked = invoke(project, "recheck", LOYALTY, "--json")
    assert relocked.exit_code == 0, relocked.stdout
    evidence = lock_of(project, LOYALTY)
    assert evidence.sha256 == file_sha256(test) and evidence.rechecked_from == old
    assert read_attempts(load(project), LOYALTY)[-1].kind == "recheck"
    assert check(project)[0] == 0
    assert "nothing to recheck" in invoke(project, "recheck").stdout
    # The next --quest-update judges a changed locked test too.
    test.write_text(LOYALTY_TEST + "\n\ndef test_bronze():\n"
                    "    assert loyalty_discount('bronze', 9) == 5.0\n")
    code, data, out = check(project, "--quest-update")
    assert code == 0, out
    assert data["rechecked"] == [LOYALTY] and data["problems"] == []
    assert lock_of(project, LOYALTY).sha256 == file_sha256(test)


def test_pragma_added_to_a_locked_line_is_reported(project: Path) -> None:
    source = project / "hotel" / "pricing.py"
    text = source.read_text()
    source.write_text(text.replace("    sign = -1 if amount < 0 else 1\n",
                                   "    sign = -1 if amount < 0 else 1  # pragma: no cover\n"))
    code, data, _out = check(project)
    assert code == 1
    fact = facts_of(data, "hotel/pricing.py::round_to_cents")["ratchet-exclusion-added"]
    assert fact["where"] == "hotel/pricing.py:27"
    assert "pragma: no cover" in fact["actual"]


def test_narrowed_run_judges_only_the_locks_whose_tests_ran(
        project: Path, submit_test: Callable[..., Result]) -> None:
    assert submit_test(LOYALTY, LOYALTY_TEST).quest.state is State.PASS
    whole = load(project).counts()["PASS"]
    code, data, out = check(project, result_path(project, LOYALTY))
    assert code == 0, out
    assert (data["checked"], data["skipped"]) == (1, whole - 1)
    assert data["narrowed"].startswith("paths: ")
    assert f"judged the 1 lock(s) whose test ran, skipped {whole - 1}" in out
    code, data, out = check(project, "-k", "apply_discount")
    assert code == 0, out
    assert (data["checked"], data["skipped"], data["narrowed"]) == (0, whole, "-k")
    code, data, _out = check(project, "tests")
    assert data["narrowed"] is None and data["checked"] == whole
    # xdist workers report the files they ran to the controller.
    code, data, out = check(project, "-n", "2", result_path(project, LOYALTY))
    assert code == 0, out
    assert (data["checked"], data["skipped"]) == (1, whole - 1)
    code, data, _out = check(project, "--quest-update", "-k", "apply_discount")
    assert data["locked"] == [] and data["skipped_update"] == "the run was narrowed (-k)"


def result_path(root: Path, quest_id: str) -> str:
    return str(lock_of(root, quest_id).test)


# ------------------------------------------------------- the rootdir of pytest
def test_ledger_path_with_a_space_outside_the_project_keeps_the_rootdir(
        project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(Ledger.for_root(project).path, outside / "ledger.json")
    report = outside / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--quest-check", "--quest-ledger", str(outside / "ledger.json"),
                           "--quest-json", str(report)], cwd=project / "tests",
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"rootdir: {project}" in done.stdout
    assert json.loads(report.read_text())["checked"] == load(project).counts()["PASS"]
