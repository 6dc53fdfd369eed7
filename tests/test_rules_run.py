"""Stage 3 rules on hand-made harness reports: each fires, and stays quiet."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import Settings
from pytest_quest.protocol import encode_event, parse_events
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
    return {"event": "report", "round": 1, "nodeid": NODE, "when": when, "outcome": outcome,
            "duration": 0.01, **kw}


START = {"event": "start", "pid": 7, "time": 1.0}


def done(status: int = 0) -> dict[str, Any]:
    return {"event": "done", "exitstatus": status, "denied": []}


def clean(*extra: dict[str, Any], files: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cov = files if files is not None else {"m.py": {"executed_lines": [2, 3, 4, 5, 6],
                                                    "missing_lines": []}}
    return [START, {"event": "collected", "count": 1, "nodeids": [NODE]},
            report("passed", "setup"), report(), report("passed", "teardown"),
            {"event": "coverage", "files": cov}, {"event": "round_done", "round": 1}, *extra,
            done()]


def wired(events: list[dict[str, Any]]) -> Submission:
    """The events as the harness sends them, read back through the protocol's checks."""
    data = b"".join(encode_event_dict(e) for e in events)
    parsed, tampered = parse_events(data)
    return replace(sub(), run=RunResult(parsed, 0, False, 0.5, "", tampered=tampered))


def encode_event_dict(event: dict[str, Any]) -> bytes:
    from pytest_quest.protocol import EventKind

    body = {k: v for k, v in event.items() if k != "event"}
    try:
        return encode_event(EventKind(event["event"]), **body)
    except ValueError:  # not a kind: written as is
        import json

        return (json.dumps(event) + "\n").encode()


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


@pytest.mark.parametrize(("message", "noted"), [
    ("OSError: [Errno 38] Function not implemented", True),  # a call the seccomp list leaves out
    ("OSError: [Errno 97] Address family not supported by protocol", True),  # netlink, vsock
    ("OSError: [Errno 2] No such file or directory: 'x'", False),
    ("assert 38 == 97", False),
])
def test_a_failure_on_what_the_sandbox_refuses_says_so(message: str, noted: bool) -> None:
    events = clean()
    events[3] = report("failed", message=message, file=TEST, line=7)
    (fact,) = run.check(sub(events))
    assert fact.actual.startswith(f"failed: {message} at {TEST}:7")
    assert ("list of system calls" in fact.actual) is noted
    assert fact.actual.endswith("docs/security.md)") is noted


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
    broken = [START,
              {"event": "collect_error", "nodeid": TEST, "message": "ImportError: x",
               "file": None, "line": None},
              {"event": "collected", "count": 0, "nodeids": []}, done(2)]
    assert rules(run.check(wired(broken))) == ["run-collection"]
    empty = [START, {"event": "collected", "count": 0, "nodeids": []}, done(5)]
    facts = list(run.check(wired(empty)))
    assert rules(facts) == ["run-collection", "run-exit-code"]
    assert facts[0].actual == "no test collected"


def test_missing_report_when_the_process_dies() -> None:
    (fact,) = run.check(sub([START, {"event": "collected", "count": 1, "nodeids": [NODE]},
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
    assert facts[1].actual == "passed 2/3 clean runs"


def test_missing_report_when_a_rerun_kills_the_process() -> None:
    events = clean()[:-1]  # round 1 reported, then the process vanished
    assert rules(run.check(sub(events, returncode=0))) == ["run-no-report"]


def test_flaky_reruns() -> None:
    s = sub(clean({"event": "round_done", "round": 2, "outcomes": {NODE: "passed"}},
                  {"event": "round_done", "round": 3, "outcomes": {NODE: "failed"}}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.expected, fact.actual) == ("run-flaky", "passed 3/3 clean runs",
                                                       "passed 2/3 clean runs")


def test_a_control_that_failed_before_any_test_is_flaky() -> None:
    s = sub(clean({"event": "round_done", "round": 2,
                   "problem": "a clean control run timed out after 2.0 s"}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.where) == ("run-flaky", TEST)
    assert fact.actual == "a clean control run timed out after 2.0 s"


def test_a_control_that_stopped_at_a_test_counts_only_the_tests_it_ran() -> None:
    other = f"{TEST}::test_g"
    events = clean({"event": "round_done", "round": 2, "outcomes": {NODE: "failed"}})
    facts = list(run.check(sub(events)))
    assert [(f.where, f.actual) for f in facts] == [(NODE, "passed 1/2 clean runs")]
    assert other not in {f.where for f in facts}


def test_sandbox_violation_and_replaced_target() -> None:
    s = sub(clean({"event": "denied", "what": "writing /etc/passwd"},
                  {"event": "denied", "what": "writing /etc/passwd"},
                  {"event": "target_replaced", "nodeid": NODE}))
    facts = list(run.check(s))
    assert rules(facts) == ["run-sandbox-violation", "run-target-replaced"]
    assert facts[0].actual == "writing /etc/passwd"


def test_well_formed_events_pass_the_wire() -> None:
    s = wired(clean({"event": "round_done", "round": 2, "outcomes": {NODE: "passed"}}))
    assert s.run is not None and s.run.tampered is None
    assert list(run.check(s)) == []


@pytest.mark.parametrize(("kind", "body"), [
    ("coverage", {"files": {}}),
    ("done", {"exitstatus": 0, "denied": []}),
    ("mutation", {"threshold": 0.6, "max_mutants": 20}),
    ("start", {"pid": 1, "time": 2.0}),
])
def test_duplicated_events_are_tampering(kind: str, body: dict[str, Any]) -> None:
    events = clean({"event": "mutation", "threshold": 0.6, "max_mutants": 20})
    events.insert(3, {"event": kind, **body})
    (fact,) = run.check(wired(events))
    assert fact.rule == "run-report-tampered"
    assert fact.actual == f"a second {kind}" or fact.expected == "nothing after done"
    assert fact.where.startswith(TEST)


@pytest.mark.parametrize(("event", "expected"), [
    ({"event": "x"}, "a known event kind"),
    ({"event": "report", "round": 1, "nodeid": NODE, "when": "call", "outcome": "won",
      "duration": 0.1}, "one of passed, failed, skipped"),
    ({"event": "report", "round": 1, "nodeid": 3, "when": "call", "outcome": "passed",
      "duration": 0.1}, "a string"),
    ({"event": "coverage", "files": {"m.py": {"executed_lines": ["2"], "missing_lines": []}}},
     "an integer"),
    ({"event": "denied", "what": "x", "extra": 1}, "no such field"),
    ({"event": "collected", "count": 1}, "a value"),
    ({"event": "round_done", "round": 5}, "round 2"),
    ({"event": "report", "round": 2, "nodeid": NODE, "when": "call", "outcome": "passed",
      "duration": 0.1}, "reports of the measured round only"),
])
def test_malformed_events_are_tampering(event: dict[str, Any], expected: str) -> None:
    events = clean()
    events.insert(-1, event)
    (fact,) = run.check(wired(events))
    assert fact.rule == "run-report-tampered"
    assert fact.expected == expected, fact


def test_garbage_and_cut_lines_are_tampering_not_a_crash() -> None:
    good = b"".join(encode_event_dict(e) for e in clean())
    for data in (b"not json\n", good + b"{\"event\": \"done\"", b"[1, 2]\n",
                 b"\xff\xfe\n", good.replace(b"\n", b"\n" + good, 1)):
        _, tampered = parse_events(data)
        assert tampered is not None, data[:40]
    # A killed process may leave half a line: that is no report, not tampering.
    events, tampered = parse_events(good[:-5], died=True)
    assert tampered is None and events[-1]["event"] == "round_done"
    _, tampered = parse_events(good, truncated=True)
    assert tampered is not None and tampered.actual == "more than that"


def test_a_run_the_judge_found_tampered_fails() -> None:
    s = sub(clean({"event": "tampered", "where": "the report of run 3",
                   "expected": "one JSON object", "actual": "'garbage'"}))
    (fact,) = run.check(s)
    assert fact.rule == "run-report-tampered"
    assert fact.where == f"{TEST} (the report of run 3)" and fact.actual == "'garbage'"


def test_reading_the_code_under_test_fails() -> None:
    s = sub(clean({"event": "target_read", "what": f"{NODE}: opened the target's source file"},
                  {"event": "target_read", "what": f"{NODE}: opened the target's source file"}))
    (fact,) = run.check(s)
    assert fact.rule == "run-reads-target"
    assert fact.actual == f"{NODE}: opened the target's source file"


def test_ctypes_loaded_for_the_test_is_review_not_a_read() -> None:
    from pytest_quest.protocol import CTYPES_LOADED

    s = sub(clean({"event": "target_read", "what": f"{NODE}: {CTYPES_LOADED}"}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.level, fact.actual) == ("run-loads-ctypes", "review",
                                                    f"{NODE}: {CTYPES_LOADED}")
    both = sub(clean({"event": "target_read", "what": f"{NODE}: {CTYPES_LOADED}"},
                     {"event": "target_read", "what": f"{NODE}: read the target's code"}))
    assert rules(run.check(both)) == ["run-loads-ctypes", "run-reads-target"]


def test_target_missing_after_import_is_review() -> None:
    s = sub(clean({"event": "target_missing", "module": "m", "qualname": "f"}))
    (fact,) = run.check(s)
    assert (fact.rule, fact.level, fact.where) == ("run-target-unreachable", "review", "m.py:1")


def test_forged_round_is_caught() -> None:
    events = clean()
    events.insert(3, {"event": "round_done", "round": 1})
    assert rules(run.check(wired(events))) == ["run-report-tampered"]
