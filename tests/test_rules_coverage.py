"""Stage 4 rules: the submitted test alone executes every line and branch; claims go to REVIEW."""

from __future__ import annotations

from pytest_quest.rules import coverage
from pytest_quest.submission import Claim
from tests.test_rules_run import clean, rules, sub


def test_missing_lines_and_branches() -> None:
    files = {"m.py": {"executed_lines": [2, 3, 6], "missing_lines": [4, 5],
                      "executed_branches": [[3, 6]], "missing_branches": [[3, 4], [5, -1]]}}
    facts = list(coverage.check(sub(clean(files=files), branch=True)))
    assert rules(facts) == ["coverage-lines", "coverage-branches"]
    assert facts[0].where == "m.py:4,5"
    assert facts[0].actual == "not executed: lines 4-5 (2 of 5 lines)"
    assert facts[1].where == "m.py:3->4, 5->exit"
    assert facts[1].actual == "not taken (2 of 3 branches)"


def test_unreachable_claim_is_review_and_hides_the_line() -> None:
    files = {"m.py": {"executed_lines": [2, 3, 4, 6], "missing_lines": [5]}}
    facts = list(coverage.check(sub(clean(files=files), claims=(Claim(5, "windows only"),))))
    assert [(f.rule, f.level) for f in facts] == [("coverage-unreachable-claim", "review")]
    assert facts[0].actual == "claimed unreachable: windows only"


def test_no_coverage_data_is_review() -> None:
    (fact,) = coverage.check(sub(clean(files={})))
    assert (fact.rule, fact.level) == ("coverage-no-data", "review")
