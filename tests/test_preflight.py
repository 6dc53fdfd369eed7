"""Bug 6 and the diagnose flags: tries pay only for the test's faults; a failed run explains itself.

Real pytest runs on a scanned copy of example_project, through the CLI.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.ledger import Ledger, now_iso, read_attempts
from pytest_quest.records import Attempt
from tests.test_submit import FULL, PARTIAL

QUEST = "hotel/pricing.py::nightly_rate"
TEST = "tests/quest/test_hotel_pricing__nightly_rate.py"

FAILING = '''from hotel.pricing import nightly_rate


def test_standard():
    print("the agent's debug line")
    assert nightly_rate(100.0, "standard", 2) == 101.0
'''


def cli_run(project: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [*args, "--root", str(project)])
    return result.exit_code, result.stdout, result.stderr


def write(project: Path, text: str, rel: str = TEST) -> None:
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def tries(project: Path) -> int:
    return Ledger.load(Ledger.for_root(project).path).get(QUEST).tries


def submits(project: Path) -> list[Attempt]:
    ledger = Ledger.load(Ledger.for_root(project).path)
    return [r for r in read_attempts(ledger, QUEST) if r.kind == "submit"]


def test_a_byte_identical_failed_file_gets_its_verdict_back_for_free(project: Path) -> None:
    write(project, PARTIAL)
    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    first = json.loads(out)
    assert (code, first["verdict"], first["tries"]) == (1, "FAIL", 1)

    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    again = json.loads(out)
    assert (code, again["verdict"], again["tries"], again["state"]) == (1, "FAIL", 1, "TODO")
    assert again["facts"] == first["facts"]
    assert "already FAILed" in again["hint"] and "no try was spent" in again["hint"]
    assert len(submits(project)) == 1 and tries(project) == 1

    write(project, PARTIAL + "\n# one byte more\n")  # a changed file is judged (and can fail)
    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    assert (code, json.loads(out)["tries"]) == (1, 2)


def test_a_rescan_lets_the_same_file_be_judged_again(project: Path) -> None:
    write(project, PARTIAL)
    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    assert (code, json.loads(out)["tries"]) == (1, 1), out
    failed_at = now_iso()
    while now_iso() == failed_at:  # times have whole seconds: the rescan comes after the FAIL
        time.sleep(0.05)
    assert cli_run(project, "scan", "--no-baseline")[0] == 0
    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    assert (code, json.loads(out)["tries"]) == (1, 2), out


def test_a_test_outside_the_quest_folder_is_a_usage_error(project: Path) -> None:
    write(project, FULL, rel="tests/test_elsewhere.py")
    code, out, _ = cli_run(project, "submit", QUEST, "--test",
                           str(project / "tests/test_elsewhere.py"), "--json")
    data = json.loads(out)
    assert (code, data["kind"]) == (2, "UsageError")
    assert "outside the quest folder tests/quest/" in data["error"]
    assert tries(project) == 0 and submits(project) == []


def test_facts_and_output_name_project_paths_and_show_prints_the_tail(project: Path) -> None:
    write(project, FAILING)
    code, out, _ = cli_run(project, "submit", QUEST, "--json")
    data = json.loads(out)
    assert code == 1
    (fact,) = [f for f in data["facts"] if f["rule"] == "run-exit-code"]
    assert fact["actual"].endswith(f"at {TEST}:6")
    assert "pytest-quest-" not in json.dumps(data)
    assert data["sandbox"] is None  # removed unless --keep-sandbox
    assert "the agent's debug line" in data["output"]
    (record,) = submits(project)
    assert "the agent's debug line" in record.other["output"]
    assert "pytest-quest-" not in record.other["output"]

    code, out, _ = cli_run(project, "show", QUEST)
    assert code == 0
    assert "output (tail)" in out and "the agent's debug line" in out


def test_verbose_prints_the_output_and_keep_sandbox_keeps_the_copy(project: Path) -> None:
    write(project, FAILING)
    code, out, _ = cli_run(project, "submit", QUEST, "--verbose", "--keep-sandbox")
    assert code == 1
    assert "Output of the run (tail):" in out and "the agent's debug line" in out
    line = next(x for x in out.splitlines() if x.startswith("Sandbox kept at "))
    kept = Path(line.removeprefix("Sandbox kept at ").split(" (")[0])
    try:
        assert (kept / "project" / TEST).read_text() == FAILING
        assert (kept / "project" / "hotel" / "pricing.py").is_file()
    finally:
        import shutil

        shutil.rmtree(kept)


def test_dry_run_judges_and_records_nothing(project: Path) -> None:
    ledger_before = Ledger.for_root(project).path.read_text()
    write(project, FULL)
    code, out, _ = cli_run(project, "submit", QUEST, "--dry-run", "--json")
    data = json.loads(out)
    assert (code, data["verdict"], data["state"], data["dry_run"]) == (0, "PASS", "TODO", True)
    assert Ledger.for_root(project).path.read_text() == ledger_before
    assert submits(project) == []
    write(project, PARTIAL)
    code, out, _ = cli_run(project, "submit", QUEST, "--dry-run")
    assert code == 1 and "Dry run: nothing was recorded" in out
    assert tries(project) == 0


def test_a_test_at_another_open_quests_default_path_is_a_usage_error(project: Path) -> None:
    """Red team 4, finding 05: a lock placed where `next` sends another agent is overwritten
    when that agent writes its test. Refused before judging: no try, nothing recorded."""
    other = "tests/quest/test_hotel_pricing__tax_amount.py"  # tax_amount's test_path
    write(project, FULL, rel=other)
    code, out, _ = cli_run(project, "submit", QUEST, "--test", str(project / other), "--json")
    data = json.loads(out)
    assert (code, data["kind"]) == (2, "UsageError"), data
    assert "where `next` sends the agent of hotel/pricing.py::tax_amount" in data["error"]
    assert tries(project) == 0 and submits(project) == []
    # Written in other letters (one file on macOS): the same answer.
    code, out, _ = cli_run(project, "submit", QUEST, "--test", other.upper().replace(
        "TESTS/QUEST/", "tests/quest/"), "--json")
    assert (code, json.loads(out)["kind"]) == (2, "UsageError")


def test_a_test_at_a_file_sent_to_review_is_a_usage_error(project: Path) -> None:
    """Red team 4, finding 05: a submission that rewrote a REVIEW quest's file made it
    impossible to approve. A file of the submitter's own choosing is judged as ever."""
    write(project, FULL)
    code, out, _ = cli_run(project, "submit", QUEST, "--unreachable", '7:"upstream checks"',
                           "--json")
    assert json.loads(out)["verdict"] == "REVIEW", out
    taker = "hotel/pricing.py::tax_amount"
    code, out, _ = cli_run(project, "submit", taker, "--test", str(project / TEST), "--json")
    data = json.loads(out)
    assert (code, data["kind"]) == (2, "UsageError"), data
    assert f"is the test {QUEST} sent to review" in data["error"]
    ledger = Ledger.load(Ledger.for_root(project).path)
    assert ledger.get(taker).tries == 0 and read_attempts(ledger, taker) == []
    own = "tests/quest/test_tax_amount_mine.py"
    write(project, "from hotel.pricing import tax_amount\n\n\ndef test_t():\n"
                   "    assert tax_amount(100.0, 2) > 0\n", rel=own)
    code, out, _ = cli_run(project, "submit", taker, "--test", str(project / own), "--json")
    assert json.loads(out)["verdict"] in ("PASS", "FAIL", "REVIEW")  # judged, not refused
