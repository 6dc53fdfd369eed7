"""Evidence and attempt records: one constructor per shape, stable keys, tolerant reading."""

from __future__ import annotations

import json

import pytest

from pytest_quest import __version__
from pytest_quest.facts import FAIL, Fact
from pytest_quest.records import TOOL, Attempt, AttemptKind, Evidence, EvidenceSource

NOW = "2026-03-01T12:00:00Z"
FACT = Fact("coverage-lines", FAIL, "m.py:4", "executed", "not executed")
DECISION = {"action": "approve", "by": "Ada", "note": "fine", "time": NOW}


@pytest.mark.parametrize(("evidence", "keys"), [
    (Evidence.baseline([2, 3], "h", NOW),
     {"source", "time", "tool", "source_hash", "covered_lines"}),
    (Evidence.suite([2, 3], "h", NOW, branches=4),
     {"source", "time", "tool", "source_hash", "covered_lines", "branches"}),
    (Evidence.submitted("t.py", "ab", [2], "h", NOW, agent="a1", mutation={"score": 1.0}),
     {"source", "time", "tool", "source_hash", "covered_lines", "test", "sha256", "python",
      "agent", "mutation"}),
    (Evidence.approved("t.py", "ab", "h", NOW, DECISION),
     {"source", "time", "tool", "source_hash", "test", "sha256", "decision"}),
], ids=["baseline", "suite", "submit", "review"])
def test_each_shape_round_trips_with_its_keys_and_the_function_hash(evidence: Evidence,
                                                                    keys: set[str]) -> None:
    data = evidence.to_dict()
    assert set(data) == keys
    assert data["source_hash"] == "h" and data["tool"] == TOOL == f"pytest-quest {__version__}"
    assert data["source"] in {s.value for s in EvidenceSource}
    assert Evidence.from_dict(json.loads(json.dumps(data))) == evidence


def test_an_older_ledger_reads_with_defaults() -> None:
    old = {"source": "submit", "test": "t.py", "sha256": "ab", "covered_lines": [4, 5],
           "time": NOW}  # written before submit recorded the function's hash
    evidence = Evidence.from_dict(old)
    assert (evidence.source, evidence.source_hash, evidence.tool) == ("submit", "", "")
    assert evidence.covered_lines == (4, 5) and evidence.mutation is None
    assert evidence.to_dict() == old  # saved again, an old ledger does not change


def test_keys_of_a_newer_version_survive_a_round_trip() -> None:
    newer = {**Evidence.suite([2], "h", NOW).to_dict(), "sealed_by": "a later channel"}
    evidence = Evidence.from_dict(newer)
    assert evidence.other == {"sealed_by": "a later channel"}
    assert evidence.to_dict() == newer


def test_the_isolation_that_judged_is_kept() -> None:
    evidence = Evidence.baseline([2], "h", NOW, isolation="landlock+namespaces")
    assert evidence.to_dict()["isolation"] == "landlock+namespaces"
    assert Evidence.from_dict(evidence.to_dict()) == evidence
    attempt = Attempt.submitted("m.py::f", NOW, None, "t.py", "ab", "FAIL", "TODO", 1, [FACT], 3,
                                isolation="landlock")
    assert Attempt.from_dict(attempt.to_dict()).isolation == "landlock"


def test_malformed_values_are_dropped_not_trusted() -> None:
    evidence = Evidence.from_dict({"source": "suite", "branches": "4", "mutation": [1],
                                   "decision": "yes"})
    assert (evidence.branches, evidence.mutation, evidence.decision) == (None, None, None)


@pytest.mark.parametrize(("attempt", "keys"), [
    (Attempt.submitted("m.py::f", NOW, None, "t.py", "ab", "FAIL", "TODO", 1, [FACT], 3),
     ["agent", "facts", "isolation", "kind", "quest", "remaining", "sha256", "state", "test",
      "time", "tries", "verdict"]),
    (Attempt.reviewed("m.py::f", NOW, "Ada", "reject", "no", "REVIEW", "TODO", 1, [FACT], 4),
     ["action", "agent", "by", "facts", "from", "kind", "note", "quest", "remaining", "state",
      "time", "tries"]),
    (Attempt.suite_locked("m.py::f", NOW, [2, 3], 1, 7),
     ["covered_lines", "facts", "kind", "quest", "remaining", "state", "time", "tries",
      "verdict"]),
    (Attempt.agent_failed("m.py::f", NOW, "loop/1", "exit", 3, 0.5),
     ["agent", "exit_code", "kind", "outcome", "quest", "seconds", "time"]),
    (Attempt.rechecked("m.py::f", NOW, "t.py", "cd", "ab", "PASS", "PASS", 0, [], 2),
     ["facts", "kind", "previous_sha256", "quest", "remaining", "sha256", "state", "test",
      "time", "tries", "verdict"]),
    (Attempt(AttemptKind.SKIP.value, "m.py::f", NOW, state="TODO", tries=1, remaining=5),
     ["agent", "facts", "kind", "quest", "remaining", "state", "time", "tries"]),
], ids=[k.value for k in AttemptKind])
def test_attempt_shapes_are_fixed_and_round_trip(attempt: Attempt, keys: list[str]) -> None:
    data = attempt.to_dict()
    assert sorted(data) == keys
    assert Attempt.from_dict(json.loads(json.dumps(data))) == attempt


def test_every_line_that_moves_or_keeps_a_quest_says_where_it_stands() -> None:
    """docs/maintainers.md: each kind but ``agent`` carries quest, time, state, tries, facts
    and remaining (an ``agent`` line records a run that judged nothing)."""
    promised = {"quest", "time", "state", "tries", "facts", "remaining"}
    for kind in AttemptKind:
        keys = set(Attempt(kind.value, "m.py::f", NOW).to_dict())
        assert promised <= keys or kind is AttemptKind.AGENT, kind


def test_an_early_log_line_without_kind_is_a_submit() -> None:
    record = Attempt.from_dict({"quest": "m.py::f", "verdict": "PASS", "time": NOW,
                                "facts": [FACT.to_dict(), "junk"], "tries": "2"})
    assert record.kind == AttemptKind.SUBMIT and record.facts == (FACT,)
    assert record.tries is None and record.remaining is None


def test_unknown_attempt_kind_keeps_what_it_carries() -> None:
    line = {"kind": "merge", "quest": "m.py::f", "time": NOW, "state": "PASS", "by": "git"}
    assert Attempt.from_dict(line).to_dict() == line


def test_lock_details_of_the_ratchet_round_trip() -> None:
    claim = {"line": 9, "offset": 3, "text": "return 0", "reason": "guard"}
    evidence = Evidence.approved("t.py", "ab", "h", NOW, {"by": "Ada"}, [claim], def_line=6)
    evidence = Evidence.from_dict(evidence.to_dict())
    assert (evidence.unreachable, evidence.def_line) == ((claim,), 6)
    assert Evidence.from_dict({"source": "submit", "rechecked_from": "cd"}).rechecked_from == "cd"
    assert Evidence.from_dict({"source": "review", "unreachable": "x", "def_line": "6"}
                              ).unreachable == ()
