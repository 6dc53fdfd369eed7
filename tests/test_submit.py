"""The submit service end to end on example_project, with real pytest subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger
from pytest_quest.prompt import brief
from pytest_quest.scan import scan
from pytest_quest.states import Outcome, State
from tests.test_cli_status import invoke, status_json

pytestmark = pytest.mark.slow

PARTIAL = """
from hotel.pricing import nightly_rate

def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0
"""

FULL = """
import pytest
from hotel.pricing import nightly_rate

def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0

def test_high_long_stay():
    assert nightly_rate(100.0, "high", 7) == 112.5

def test_high_short():
    assert nightly_rate(100.0, "high", 6) == 125.0

def test_low():
    assert nightly_rate(100.0, "low", 1) == 80.0

def test_long_stay_discount_boundary():
    assert nightly_rate(100.0, "standard", 7) == 90.0

def test_one_night_is_allowed():
    assert nightly_rate(10.0, "standard", 1) == 10.0

def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""


def test_partial_test_fails_with_exact_missing_lines(submit_test):
    result = submit_test("hotel/pricing.py::nightly_rate", PARTIAL)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.quest.state is State.TODO and result.quest.tries == 1
    (fact,) = result.verdict.facts
    assert fact.rule == "coverage-lines"
    assert fact.where == "hotel/pricing.py:7,9,11,15"


SURROGATE = """
from hotel.pricing import nightly_rate

def test_rate():
    got = nightly_rate(100.0, "high", 3)
    print("seen: \\ud800")
    assert got == 1.0, "x\\ud800y" + str(got)
"""


def test_a_lone_surrogate_in_a_failure_spends_the_try_and_is_logged(submit_test, project: Path):
    """Red team 2 finding 06: the record crashed after the verdict, so the try was never spent."""
    result = submit_test("hotel/pricing.py::nightly_rate", SURROGATE)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.quest.tries == 1
    assert any("x\\ud800y" in f.actual for f in result.verdict.facts), result.verdict.facts
    ledger = Ledger.load(Ledger.for_root(project).path)
    assert ledger.get("hotel/pricing.py::nightly_rate").tries == 1
    log = ledger.attempts_path.read_bytes().decode("utf-8")
    assert '"tries": 1' in log and "\\\\ud800" in log
    shown = invoke(project, "show", "hotel/pricing.py::nightly_rate")
    assert shown.exit_code == 0, shown.stderr


def test_a_test_nested_too_deep_fails_and_spends_the_try(submit_test, project: Path):
    """Red team 2 finding 11: ``RecursionError`` in the static stage, a traceback and no try.

    The file is generated here: as a corpus file it would break tests/test_lines.py.
    """
    deep = ("import os\nfrom hotel.pricing import nightly_rate\n\n\ndef test_rate():\n"
            "    assert nightly_rate(100.0, 'high', 3) == 125.0\n"
            "    x = os" + ".path" * 3000 + "\n    assert x\n")
    result = submit_test("hotel/pricing.py::nightly_rate", deep)
    assert result.verdict.outcome is Outcome.FAIL
    (fact,) = result.verdict.facts
    assert fact.rule == "test-file-parses" and "nests too deep" in fact.actual
    assert result.quest.tries == 1
    ledger = Ledger.load(Ledger.for_root(project).path)
    assert '"verdict": "FAIL"' in ledger.attempts_path.read_text(encoding="utf-8")


def test_next_show_status_and_export_agree_on_the_missing_lines(submit_test, project: Path):
    submit_test("hotel/pricing.py::nightly_rate", PARTIAL)
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    assert quest.missing == (7, 9, 11, 15)
    shown = json.loads(invoke(project, "show", quest.id, "--json").stdout)
    offered = brief(quest, load_settings(project)).to_dict()  # what `next --json` hands over
    assert shown["missing_lines"] == offered["missing_lines"] == [7, 9, 11, 15]
    (row,) = [q for q in status_json(project)["quests"] if q["id"] == quest.id]
    assert row["coverage"] == "missing 4 lines"


def test_full_test_passes_and_locks(submit_test):
    result = submit_test("hotel/pricing.py::nightly_rate", FULL)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    assert result.quest.state is State.PASS
    assert result.quest.evidence.test == "tests/quest/test_hotel_pricing__nightly_rate.py"


def test_another_quests_locked_test_cannot_be_resubmitted(submit_test, project: Path,
                                                          settings) -> None:
    """Red team 3, finding 02: the file that locks one quest, rewritten and submitted for another.

    The scope rule's "locked test of another quest" never fired (the submitted path was left out
    of the locked set), so the second quest locked on the first one's file: two locks on one
    file, the first judged on bytes no longer there, and every later submission of every quest
    FAILed on whichever sha256 the ledger listed last.
    """
    from pytest_quest.submit import submit

    locked = submit_test("hotel/pricing.py::nightly_rate", FULL)
    assert locked.verdict.outcome is Outcome.PASS, locked.verdict.facts
    path = project / locked.test_path
    path.write_text(FULL.replace("def test_", "def test_again_"), encoding="utf-8")
    result = submit(settings, "hotel/pricing.py::tax_amount", test=path)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.verdict.root_cause == "scope-test-location", result.verdict.facts
    assert any(f.actual == "the locked test of another quest" for f in result.verdict.facts)
    ledger = Ledger.load(Ledger.for_root(project).path)
    assert ledger.get("hotel/pricing.py::tax_amount").state is State.TODO
    assert ledger.get("hotel/pricing.py::nightly_rate").evidence.sha256 == \
        locked.evidence.sha256


PEAK = '''    if season == "peak":
        rate = base * 1.5
    elif season == "high":'''


def test_a_changed_function_is_named_after_a_rescan(submit_test, project: Path) -> None:
    """Regression: the evidence of a submit keeps the hash of the function it locked.

    A rescan records the function's new hash on the quest; without the hash in
    the evidence, ``--quest-check`` could not say the function changed since.
    """
    result = submit_test("hotel/pricing.py::nightly_rate", FULL)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    locked = result.quest.source_hash
    assert locked and result.evidence is not None and result.evidence.source_hash == locked
    source = project / "hotel" / "pricing.py"
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace('    if season == "high":', PEAK, 1), encoding="utf-8")
    scan(load_settings(project), baseline=False)
    quest = Ledger.load(Ledger.for_root(project).path).get("hotel/pricing.py::nightly_rate")
    assert quest.state is State.PASS and quest.source_hash != locked
    assert quest.evidence is not None and quest.evidence.source_hash == locked
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--quest-check", "-p", "no:cacheprovider", "-q"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (f"the function changed since it was locked: source hash {locked} -> "
            f"{quest.source_hash}") in done.stdout


@pytest.mark.parametrize("reason", [
    "defensive\n  mutation:  extreme 2/2 killed, classic 9/9 (score 1.00, needs 0.60)",
    "defensive guard\x1b[8m",  # conceals every line after it on the maintainer's terminal
    "kept for old callers \u202e",  # a bidi override reorders what the reviewer reads
    "   ",
    # Red team 5, finding 06: blanks until the terminal wraps a forged line to column 0.
    "defensive" + " " * 1124 + "mutation:  score 1.00 (threshold 0.6), 12/12 classic killed",
    "defensive" + "\u2800" * 300 + "mutation: 12/12 killed",  # a blank-looking letter
])
def test_a_claim_reason_a_reviewer_cannot_read_as_it_is_is_a_usage_error(
        project: Path, settings, reason: str) -> None:
    """Red team 4, finding 03: a claim's reason is shown to the maintainer in `review`.

    A line break forged a `mutation:` line for a quest whose mutation stage never ran, and an
    ESC sequence hid what followed (the real `mutation: none recorded`, the other claims).
    """
    from pytest_quest.errors import UsageError
    from pytest_quest.submission import Claim
    from pytest_quest.submit import submit

    path = project / "tests/quest/test_hotel_pricing__nightly_rate.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FULL, encoding="utf-8")
    with pytest.raises(UsageError, match="one line of printable text"):
        submit(settings, "hotel/pricing.py::nightly_rate", test=path,
               claims=(Claim(7, reason),))
    with pytest.raises(UsageError, match="control characters"):
        odd = path.with_name("test_rate\x1b[8m.py")
        odd.write_text(FULL, encoding="utf-8")
        submit(settings, "hotel/pricing.py::nightly_rate", test=odd)
    assert Ledger.load(Ledger.for_root(project).path).get(
        "hotel/pricing.py::nightly_rate").tries == 0


def test_agent_text_reaches_the_terminal_without_control_characters(capsys) -> None:
    from pytest_quest.cli.terminal import Terminal, visible
    from pytest_quest.facts import FAIL, Fact

    assert visible("a\x1b[8mb\nc\td") == "a\\x1b[8mb\nc\td"
    assert visible("a\nb\x9b", newlines=False) == "a\\nb\\x9b"
    term = Terminal()
    term.fact(Fact("coverage-unreachable-claim", FAIL, "m.py:3\x1b[2K",
                   "a line\nforged", "claimed unreachable: x\x1b[8m"))
    term.data("tail\x1b]0;title\x07\n")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "a line\\nforged" in out and "\\x1b[8m" in out


def test_the_same_file_with_a_claim_is_judged_again(submit_test) -> None:
    # Red team 4: the repeat shortcut ("this exact file already FAILed") ignored the claims, so
    # an agent that claimed the lines its FAIL named got that FAIL back instead of a verdict.
    from pytest_quest.submission import Claim

    first = submit_test("hotel/pricing.py::nightly_rate", PARTIAL)
    assert first.verdict.outcome is Outcome.FAIL and first.quest.tries == 1
    claims = tuple(Claim(line, "reached only by callers that are gone") for line in (7, 9, 11, 15))
    again = submit_test("hotel/pricing.py::nightly_rate", PARTIAL, claims=claims)
    assert "already FAILed" not in (again.verdict.hint or "")
    assert "coverage-unreachable-claim" in {f.rule for f in again.verdict.facts}
