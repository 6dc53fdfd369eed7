"""The wire's types: the spec round-trips, every event and run answer is checked field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_quest import protocol
from pytest_quest.protocol import (
    EventKind,
    HarnessSpec,
    Limits,
    MutationSpec,
    ProtocolError,
    TargetSpec,
    encode_event,
    parse_events,
    parse_run_report,
    validate_event,
)

TARGET = TargetSpec(file="m.py", module="m", owner=("C",), name="f", accessor="fset",
                    qualname="C.f.setter", body=(3, 9), lines=(2, 9))


def test_spec_round_trips_through_json() -> None:
    spec = HarnessSpec(mode="submit", pytest_args=("-q", "t.py"), sandbox="/b/project",
                       private_dir="/b/private", allowed_write=("/b/project",), target=TARGET,
                       test_file="t.py", measure_files=("m.py",), branch=True, reruns=3,
                       budget=12.5, mutation=MutationSpec(threshold=0.7, max_mutants=5),
                       limits=Limits(cpu=10, memory_mb=100, fsize_mb=5))
    assert HarnessSpec.from_json(spec.to_json()) == spec
    suite = HarnessSpec(mode="suite", pytest_args=(), sandbox="/b", private_dir="/p",
                        allowed_write=())
    assert HarnessSpec.from_json(suite.to_json()) == suite


@pytest.mark.parametrize("text", [
    "[]",
    '{"mode": "suite", "pytest_args": [], "sandbox": "/b", "private_dir": "/p", '
    '"allowed_write": [], "surprise": 1}',
    '{"mode": "suite", "pytest_args": [], "sandbox": "/b", "private_dir": "/p", '
    '"allowed_write": [], "target": 3}',
])
def test_spec_refuses_unknown_or_misshapen_fields(text: str) -> None:
    with pytest.raises(ProtocolError):
        HarnessSpec.from_json(text)


def test_every_kind_has_a_shape_and_a_round_trip() -> None:
    assert set(protocol._EVENTS) == set(EventKind)
    line = encode_event(EventKind.DENIED, what="writing /x")
    assert validate_event(json.loads(line)) == {"event": "denied", "what": "writing /x"}
    with pytest.raises(ValueError):
        encode_event(EventKind.START, pid=1, time=float("nan"))  # never NaN on the wire


@pytest.mark.parametrize(("event", "where", "expected"), [
    ("x", "event", "an object"),
    ({"event": "start", "pid": True, "time": 1.0}, "event (start).pid", "an integer"),
    ({"event": "start", "pid": 1, "time": "now"}, "event (start).time", "a finite number"),
    ({"event": "done", "exitstatus": 0, "denied": [1]}, "event (done).denied[0]", "a string"),
    ({"event": "report", "round": 1, "nodeid": "t", "when": "call", "outcome": "passed",
      "duration": 0.1, "xfail": "yes"}, "event (report).xfail", "true or false"),
    ({"event": "coverage", "files": {"m.py": {"executed_lines": [], "missing_lines": [],
                                              "missing_branches": [[1, 2, 3]]}}},
     "event (coverage).files['m.py'].missing_branches[0]", "a list"),
    ({"event": "coverage", "files": []}, "event (coverage).files", "an object"),
    ({"event": "mutation", "threshold": 0.6, "max_mutants": 20,
      "null": {"kind": "null", "line": 1, "description": "d", "outcome": "won", "ms": 1}},
     "event (mutation).null.outcome", "one of killed, survived, timeout, crashed, error"),
    ({"event": "mutation", "threshold": 0.6, "max_mutants": 20,
      "extreme": [{"kind": "body", "line": 1, "description": "d", "outcome": "killed",
                   "ms": 1}]},
     "event (mutation).extreme[0].kind", "one of null, extreme, returns, classic, reach"),
])
def test_each_field_is_checked(event: Any, where: str, expected: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        validate_event(event)
    assert (caught.value.where, caught.value.expected) == (where, expected)


def _line(kind: EventKind, **data: Any) -> bytes:
    return encode_event(kind, **data)


START = _line(EventKind.START, pid=1, time=1.0)
DONE = _line(EventKind.DONE, exitstatus=0, denied=[])


def test_a_mutant_that_replaces_only_the_values_returned_has_a_kind_of_its_own() -> None:
    event = {"event": "mutation", "threshold": 0.6, "max_mutants": 20, "extreme": [
        {"kind": "returns", "line": 1, "description": "every value returned replaced by `0`",
         "outcome": "survived", "ms": 1.0}]}
    assert validate_event(event) == event


def test_sequence_start_first_nothing_after_done() -> None:
    events, tampered = parse_events(START + DONE)
    assert tampered is None and len(events) == 2
    _, tampered = parse_events(DONE)
    assert tampered is not None and tampered.expected == "the start event first"
    _, tampered = parse_events(START + DONE + _line(EventKind.DENIED, what="x"))
    assert tampered is not None and tampered.expected == "nothing after done"
    assert parse_events(b"") == ([], None)


def test_events_up_to_the_problem_are_kept() -> None:
    events, tampered = parse_events(START + b"oops\n" + DONE)
    assert [e["event"] for e in events] == ["start"]
    assert tampered is not None and tampered.where == "harness report line 2"


def test_run_reports_are_checked_too() -> None:
    report = parse_run_report(json.dumps({"collected": ["t::a"], "failed": None,
                                          "types": ["int"], "calls": 2}).encode(), "run 1")
    assert report.collected == ("t::a",) and report.calls == 2 and report.types == ("int",)
    for data, expected in [
        (b"{", "one JSON object"),
        (b'{"collected": "t::a"}', "a list"),
        (b'{"calls": 1.5}', "an integer"),
        (b'{"verdict": "passed"}', "no such field"),
        (b'{"coverage": {"m.py": {"executed_lines": []}}}', "a value"),
    ]:
        with pytest.raises(ProtocolError) as caught:
            parse_run_report(data, "run 1")
        assert caught.value.expected == expected, data


def test_oversized_run_report_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_REPORT_BYTES", 10)
    with pytest.raises(ProtocolError, match="at most 10 bytes"):
        parse_run_report(b'{"collected": []}', "run 1")
