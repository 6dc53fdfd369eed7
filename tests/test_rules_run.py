"""Stage 3 rules on hand-made harness reports: each fires, and stays quiet."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import Settings
from pytest_quest.quest import Quest
from pytest_quest.rules import coverage, run
from pytest_quest.sandbox import RunResult
from pytest_quest.submission import Submission

TEST = "tests/quest/test_m__f.py"
NODE = f"{TEST}::test_f"


def sub(events: list[dict[str, Any]] | None = None, **kw: Any) -> Submission:
    returncode = kw.pop("returncode", 0)
    quest = Quest(id="m.py::f", path="m.py", qualname="f", lines=(1, 6), body=(2, 6))
    settings = Settings(root=Path("/p"), sources=(".",), branch=kw.pop("branch", False))
    s = Submission(settings=settings, quest=quest, test_rel=kw.pop("test_rel", TEST),
                   test_bytes=b"", snapshot=kw.pop("snapshot", {}), **kw)
    if events is not None:
        s = replace(s, run=RunResult(events, returncode, False, 0.5, ""))
    return s


def report(outcome: str = "passed", when: str = "call", **kw: Any) -> dict[str, Any]:
    return {"event": "report", "round": 1, "nodeid": NODE, "when": when, "outcome": outcome, **kw}


def clean(*extra: dict[str, Any], files: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cov = files if files is not None else {"m.py": {"executed_lines": [2, 3, 4, 5, 6],
                                                    "missing_lines": []}}
    return [{"event": "start"}, {"event": "collected", "count": 1}, report("passed", "setup"),
            report(), report("passed", "teardown"), {"event": "coverage", "files": cov},
            {"event": "round_done", "round": 1}, *extra, {"event": "done", "exitstatus": 0}]


def rules(facts: Any) -> list[str]:
    return [f.rule for f in facts]


def test_clean_run_has_no_facts() -> None:
    s = sub(clean({"event": "round_done", "round": 2, "outcomes": {NODE: "passed"}}))
    assert list(run.check(s)) == [] and list(coverage.check(s)) == []


def test_no_run_no_facts() -> None:
    assert list(run.check(sub())) == [] and list(coverage.check(sub())) == []


def test_timeout() -> None:
    s = sub([{"event": "start"}])
    s.run.timed_out = True  # type: ignore[union-attr]
    (fact,) = run.check(s)
    assert fact.rule == "run-timeout" and "killed" in fact.actual


def test_failure_is_quoted_with_its_place() -> None:
    events = clean()
    events[3] = report("failed", message="assert 1 == 2\n  more", file=TEST, line=7)
    (fact,) = run.check(sub(events))
    assert (fact.rule, fact.where) == ("run-exit-code", NODE)
    assert fact.actual == f"failed: assert 1 == 2 at {TEST}:7"


def test_error_in_setup_says_so() -> None:
    events = clean()
    events[2] = report("failed", "setup", message="fixture 'x' not found")
    (fact,) = run.check(sub(events))
    assert fact.actual.startswith("failed (in setup): fixture 'x' not found")


@pytest.mark.parametrize("xfail", [False, True])
def test_skips_and_xfails(xfail: bool) -> None:
    events = clean()
    events[3] = report("skipped", message="Skipped: later", **({"xfail": True} if xfail else {}))
    (fact,) = run.check(sub(events))
    assert fact.rule == "run-skipped"
    assert fact.actual.startswith("xfailed" if xfail else "skipped")


def test_collection_error_and_empty_file() -> None:
    broken = [{"event": "start"},
              {"event": "collect_error", "nodeid": TEST, "message": "ImportError: x"},
              {"event": "collected", "count": 0}, {"event": "done", "exitstatus": 2}]
    assert rules(run.check(sub(broken))) == ["run-collection"]
    empty = [{"event": "start"}, {"event": "collected", "count": 0},
             {"event": "done", "exitstatus": 5}]
    facts = list(run.check(sub(empty)))
    assert rules(facts) == ["run-collection", "run-exit-code"]
    assert facts[0].actual == "no test collected"


def test_missing_report_when_the_process_dies() -> None:
    (fact,) = run.check(sub([{"event": "start"}, {"event": "collected", "count": 1},
                             report("passed", "setup")], returncode=3))
    assert fact.rule == "run-no-report"


def test_a_test_failing_every_run_is_not_flaky() -> None:
    events = clean({"event": "round_done", "round": 2, "outcomes": {NODE: "failed"}})
    events[3] = report("failed", message="assert 1 == 2")
    assert rules(run.check(sub(events))) == ["run-exit-code"]


def test_failing_first_then_passing_is_flaky() -> None:
    events = clean({"event": "round_done", "round": 2, "outcomes": {NODE: "passed"}},
                   {"event": "round_done", "round": 3, "outcomes": {NODE: "passed"}})
    events[3] = report("failed", message="assert 1 == 2")
    facts = list(run.check(sub(events)))
    assert rules(facts) == ["run-exit-code", "run-flaky"]
    assert facts[1].actual == "passed 2/3 runs"


def test_missing_report_when_a_rerun_kills_the_process() -> None:
    events = clean()[:-1]  # round 1 reported, then the process vanished
    assert rules(run.check(sub(events, returncode=0))) == ["run-no-report"]


def test_flaky_reruns() -> None:
    s = sub(clean({"event": "round_done", "round": 2, "outcomes": {NODE: "passed"}},
                  {"event": "round_done", "round": 3, "outcomes": {NODE: "failed"}}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.expected, fact.actual) == ("run-flaky", "passed 3/3 runs",
                                                       "passed 2/3 runs")


def test_sandbox_violation_and_replaced_target() -> None:
    s = sub(clean({"event": "denied", "what": "writing /etc/passwd"},
                  {"event": "denied", "what": "writing /etc/passwd"},
                  {"event": "target_replaced", "nodeid": NODE}))
    facts = list(run.check(s))
    assert rules(facts) == ["run-sandbox-violation", "run-target-replaced"]
    assert facts[0].actual == "writing /etc/passwd"


@pytest.mark.parametrize("kind", ["coverage", "done", "mutation"])
def test_forged_events_are_caught(kind: str) -> None:
    events = clean({"event": "mutation", "extreme": []} if kind == "mutation" else {"event": "x"})
    events.insert(3, {"event": kind, "files": {}, "exitstatus": 0})
    (fact,) = run.check(sub(events))
    assert fact.rule == "run-report-tampered" and kind in fact.actual


def test_target_missing_after_import_is_review() -> None:
    s = sub(clean({"event": "target_missing", "module": "m", "qualname": "f"}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.level, fact.where) == ("run-target-unreachable", "review", "m.py:1")


def test_forged_round_is_caught() -> None:
    events = clean()
    events.insert(3, {"event": "round_done", "round": 1})
    assert rules(run.check(sub(events))) == ["run-report-tampered"]
