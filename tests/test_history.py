"""The monotone ledger comparison and the three-way merge, on plain ledger documents."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_quest.history import judge, merge, scope_settings


def quest(name: str, state: str = "TODO", tries: int = 0, **extra: Any) -> dict[str, Any]:
    return {"id": f"pkg/mod.py::{name}", "path": "pkg/mod.py", "qualname": name,
            "lines": [1, 2], "state": state, "tries": tries, **extra}


def ledger(*quests: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"schema": 1, "settings": {"sources": ["pkg"], "test_dir": "tests/quest",
                                      "branch": False, **settings},
            "scans": [], "snapshot": {}, "quests": list(quests)}


def alive(*names: str) -> Any:
    return lambda path, qualname: qualname in names


LOCK = {"source": "submit", "test": "tests/quest/test_f.py", "sha256": "a" * 64,
        "time": "2026-01-01T00:00:00Z"}


def rules(report: Any) -> list[str]:
    return [f.rule for f in report.violations]


def test_unchanged_ledger_has_no_violation() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK), quest("g", "TODO", 1))
    report = judge(base, base, alive("f", "g"))
    assert report.ok and report.notices == []


def test_pass_set_back_to_todo_is_a_violation_with_the_fact() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    report = judge(base, ledger(quest("f", "TODO")), alive("f"))
    fact = report.violations[0]
    assert (fact.rule, fact.where) == ("history-pass-lost", "pkg/mod.py::f")
    assert "PASS -> TODO" in fact.actual and "no review decision" in fact.actual


def test_deleted_quest_whose_function_exists_vanished() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    report = judge(base, ledger(), alive("f"))
    assert rules(report) == ["history-quest-vanished"]
    assert "still defined in pkg/mod.py" in report.violations[0].actual


def test_deleted_function_is_a_retired_notice() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    for head in (ledger(), ledger(quest("f", "RETIRED", evidence=LOCK))):
        report = judge(base, head, alive())
        assert report.ok
        assert [n.rule for n in report.notices] == ["history-retired"]


def test_retired_while_the_function_exists_is_a_violation() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK), quest("g"))
    head = ledger(quest("f", "RETIRED", evidence=LOCK), quest("g", "RETIRED"))
    assert rules(judge(base, head, alive("f", "g"))) == ["history-pass-lost",
                                                          "history-quest-vanished"]


def test_lowered_tries_are_a_violation_but_a_revival_resets_them() -> None:
    base = ledger(quest("f", "TODO", 2), quest("g", "RETIRED", 2))
    head = ledger(quest("f", "TODO", 1), quest("g", "TODO", 0))
    report = judge(base, head, alive("f", "g"))
    assert rules(report) == ["history-tries-lowered"]
    assert report.violations[0].actual == "tries 2 -> 1"


def reopen(when: str = "2026-02-01T00:00:00Z") -> tuple[dict[str, Any], str]:
    decision = {"action": "reopen", "by": "ann", "note": "weak test", "time": when}
    line = json.dumps({"kind": "review", "quest": "pkg/mod.py::f", "action": "reopen",
                       "time": when}, sort_keys=True)
    return decision, line


def test_logged_reopen_moves_a_pass_back_with_a_notice() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    decision, line = reopen()
    head = ledger(quest("f", "TODO", decision=decision))
    report = judge(base, head, alive("f"), base_log=[], head_log=[line])
    assert report.ok
    assert "reopen by ann" in report.notices[0].actual


def test_unlogged_or_old_reopen_does_not_count() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    decision, line = reopen()
    head = ledger(quest("f", "TODO", decision=decision))
    assert rules(judge(base, head, alive("f"))) == ["history-pass-lost"]
    # Logged already at base: that decision cannot explain a move made since.
    assert "history-pass-lost" in rules(judge(base, head, alive("f"), [line], [line]))


def test_review_and_done_stay_unless_a_logged_decision_moved_them() -> None:
    base = ledger(quest("f", "REVIEW"), quest("g", "DONE", 3))
    head = ledger(quest("f", "TODO"), quest("g", "TODO", 3))
    assert rules(judge(base, head, alive("f", "g"))) == ["history-state-moved"] * 2
    decision = {"action": "reject", "by": "ann", "note": "no", "time": "t1"}
    line = json.dumps({"kind": "review", "quest": "pkg/mod.py::f", "action": "reject",
                       "time": "t1"})
    head = ledger(quest("f", "TODO", decision=decision), quest("g", "DONE", 3))
    assert judge(base, head, alive("f", "g"), [], [line]).ok


def test_todo_to_done_needs_the_tries() -> None:
    base = ledger(quest("f"))
    assert rules(judge(base, ledger(quest("f", "DONE", 1)), alive("f"))) == [
        "history-state-moved"]
    assert judge(base, ledger(quest("f", "DONE", 3)), alive("f")).ok


def test_attempts_log_is_append_only() -> None:
    base = ledger(quest("f"))
    one = json.dumps({"quest": "pkg/mod.py::f", "time": "t1", "verdict": "FAIL"})
    two = json.dumps({"quest": "pkg/mod.py::f", "time": "t2", "verdict": "FAIL"})
    assert judge(base, base, alive("f"), [one], [one, two]).ok
    report = judge(base, base, alive("f"), [one, two], [two])
    assert rules(report) == ["history-attempts-lost"]
    assert "quest pkg/mod.py::f at t1" in report.violations[0].actual


@pytest.mark.parametrize(("key", "old", "new", "why"), [
    ("sources", ["pkg"], ["pkg/sub"], "folders left out"),
    ("exclude", [], ["pkg/vendored"], "more left out"),
    ("test_dir", "tests/quest", "pkg", "moved"),
    ("branch", True, False, "turned off"),
    ("mutation", True, False, "turned off"),
    ("mutation_threshold", 0.6, 0.2, "lowered"),
    ("max_tries", 3, 1, "lowered"),
])
def test_each_narrowing_setting_is_named_old_to_new(key: str, old: Any, new: Any,
                                                    why: str) -> None:
    base, head = ledger(), ledger()
    report = judge(base, head, alive(), base_table={key: old}, head_table={key: new})
    fact = report.violations[0]
    assert fact.rule == "history-scope-narrowed"
    assert fact.actual.startswith(f"{key}: ") and why in fact.actual
    assert repr(new if not isinstance(new, list) else sorted(new)) in fact.actual


@pytest.mark.parametrize(("key", "old", "new"), [
    ("sources", ["pkg/sub"], ["pkg"]),
    ("sources", ["pkg"], ["pkg", "lib"]),
    ("exclude", ["data"], []),
    ("branch", False, True),
    ("mutation_threshold", 0.6, 0.8),
    ("max_tries", 3, 5),
])
def test_widening_settings_pass(key: str, old: Any, new: Any) -> None:
    assert judge(ledger(), ledger(), alive(), base_table={key: old},
                 head_table={key: new}).ok


def test_scope_settings_pyproject_wins_over_the_recorded_ones() -> None:
    scope = scope_settings({"sources": ["pkg"], "branch": True}, {"sources": ["lib/"]})
    assert scope["sources"] == ["lib"] and scope["branch"] is True
    assert scope["mutation"] is True and scope["max_tries"] == 3


def test_no_base_ledger_judges_nothing() -> None:
    assert judge(None, ledger(quest("f")), alive()).ok


# ------------------------------------------------------------------ merging
def by_id(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {q["id"]: q for q in doc["quests"]}


def test_merge_keeps_each_sides_locks_and_the_max_tries() -> None:
    base = ledger(quest("f"), quest("g"), quest("h", tries=1))
    ours = ledger(quest("f", "PASS", evidence=LOCK), quest("g", tries=1), quest("h", tries=1))
    theirs = ledger(quest("f"), quest("g", "PASS", 0, evidence=LOCK), quest("h", tries=2))
    got = by_id(merge(base, ours, theirs).ledger)
    assert got["pkg/mod.py::f"]["state"] == "PASS"
    assert (got["pkg/mod.py::g"]["state"], got["pkg/mod.py::g"]["tries"]) == ("PASS", 1)
    assert got["pkg/mod.py::h"]["tries"] == 2
    for side in (base, ours, theirs):
        assert judge(side, merge(base, ours, theirs).ledger, alive("f", "g", "h")).ok


def test_merge_pass_beats_a_rescan_that_retired_it() -> None:
    base = ledger(quest("f"))
    ours = ledger(quest("f", "PASS", evidence=LOCK))
    theirs = ledger(quest("f", "RETIRED", lines=[5, 6]))
    merged = by_id(merge(base, ours, theirs).ledger)["pkg/mod.py::f"]
    assert merged["state"] == "PASS" and merged["evidence"] == LOCK


def test_merge_takes_the_rescanned_shape_and_the_other_sides_lock() -> None:
    base = ledger(quest("f", source_hash="old"))
    ours = ledger(quest("f", source_hash="new", lines=[3, 4]))
    theirs = ledger(quest("f", "PASS", source_hash="old", evidence=LOCK))
    merged = by_id(merge(base, ours, theirs).ledger)["pkg/mod.py::f"]
    assert (merged["state"], merged["source_hash"], merged["lines"]) == ("PASS", "new", [3, 4])


def test_merge_contradiction_keeps_the_first_lock_and_the_other_beside_it() -> None:
    later = {**LOCK, "sha256": "b" * 64, "time": "2026-03-01T00:00:00Z"}
    base = ledger(quest("f"))
    one = merge(base, ledger(quest("f", "PASS", evidence=later)),
                ledger(quest("f", "PASS", evidence=LOCK)))
    two = merge(base, ledger(quest("f", "PASS", evidence=LOCK)),
                ledger(quest("f", "PASS", evidence=later)))
    for report in (one, two):
        merged = by_id(report.ledger)["pkg/mod.py::f"]
        assert merged["evidence"] == LOCK
        assert merged["extra"]["other_pass_evidence"] == later
        assert report.contradictions == {"pkg/mod.py::f": later}


def test_merge_respects_a_reopen_the_other_side_did_not_touch() -> None:
    decision, _line = reopen()
    base = ledger(quest("f", "PASS", evidence=LOCK))
    ours = ledger(quest("f", "TODO", decision=decision))
    merged = by_id(merge(base, ours, base).ledger)["pkg/mod.py::f"]
    assert merged["state"] == "TODO" and merged["decision"] == decision


def test_merge_keeps_quests_only_one_side_has_and_unions_scans() -> None:
    base = ledger(quest("f"))
    ours = {**ledger(quest("f"), quest("new1")), "scans": [{"time": "t1"}]}
    theirs = {**ledger(quest("f"), quest("new2")), "scans": [{"time": "t0"}, {"time": "t1"}]}
    merged = merge(base, ours, theirs).ledger
    assert sorted(by_id(merged)) == ["pkg/mod.py::f", "pkg/mod.py::new1", "pkg/mod.py::new2"]
    assert merged["scans"] == [{"time": "t0"}, {"time": "t1"}]


def test_merge_settings_take_the_side_that_changed() -> None:
    base = ledger()
    theirs = ledger(branch=True)
    assert merge(base, base, theirs).ledger["settings"]["branch"] is True
    assert merge(base, theirs, base).ledger["settings"]["branch"] is True


def test_a_pass_keeps_its_locked_test_unless_a_logged_recheck_relocked_it() -> None:
    base = ledger(quest("f", "PASS", evidence=LOCK))
    swapped = {**LOCK, "sha256": "c" * 64}
    head = ledger(quest("f", "PASS", evidence=swapped))
    report = judge(base, head, alive("f"))
    assert rules(report) == ["history-evidence-changed"]
    assert f"(sha256 {'c' * 64}) with no recheck logged" in report.violations[0].actual
    line = json.dumps({"kind": "recheck", "quest": "pkg/mod.py::f", "verdict": "PASS",
                       "sha256": "c" * 64})
    assert judge(base, head, alive("f"), [], [line]).ok
    failed = line.replace('"PASS"', '"FAIL"')
    assert not judge(base, head, alive("f"), [], [failed]).ok


def test_a_merged_contradiction_passes_against_both_sides() -> None:
    later = {**LOCK, "sha256": "b" * 64, "time": "2026-03-01T00:00:00Z"}
    base = ledger(quest("f"))
    ours, theirs = ledger(quest("f", "PASS", evidence=later)), ledger(
        quest("f", "PASS", evidence=LOCK))
    merged = merge(base, ours, theirs).ledger
    for side in (base, ours, theirs):
        assert judge(side, merged, alive("f")).ok
