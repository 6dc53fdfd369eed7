"""Per-function coverage from coverage.py's per-file data, and how lines are written for people."""

from __future__ import annotations

import pytest

from pytest_quest.measure import Measured, coverage_core, format_branch, format_lines, measure

ENTRY = {
    "executed_lines": [1, 3, 4, 6, 9],
    "missing_lines": [5, 7, 12],
    "executed_branches": [[3, 4], [6, 9]],
    "missing_branches": [[3, 5], [6, 7], [11, 12]],
}


def test_only_the_body_span_counts() -> None:
    got = measure(ENTRY, (3, 7))
    assert got == Measured(statements=(3, 4, 5, 6, 7), executed=(3, 4, 6), missing=(5, 7))
    assert not got.complete


def test_branch_mode_counts_the_arcs_that_start_in_the_body() -> None:
    got = measure(ENTRY, (3, 7), branch=True)
    assert got.branches == 4 and got.missing_branches == ((3, 5), (6, 7))
    assert got.to_dict()["missing_branches"] == [[3, 5], [6, 7]]


def test_fully_executed_body_is_complete() -> None:
    entry = {"executed_lines": [3, 4, 6], "missing_lines": [], "executed_branches": [[3, 4],
             [3, 6]], "missing_branches": []}
    got = measure(entry, (3, 6), branch=True)
    assert got.complete and got.executed == (3, 4, 6) and got.branches == 2


def test_a_file_coverage_never_saw_has_no_statements() -> None:
    got = measure(None, (3, 7))
    assert got.statements == () and got.complete  # the caller must say "no data"


def test_lines_are_written_as_ranges() -> None:
    assert format_lines([10, 6, 7, 8]) == "6-8, 10"
    assert format_lines([4]) == "4" and format_lines([]) == ""


def test_branches_are_written_as_arcs() -> None:
    assert format_branch(12, 14) == "12->14"
    assert format_branch(12, -1) == "12->exit"


@pytest.mark.parametrize(("branch", "version", "core"), [
    (False, (3, 11), None),
    (False, (3, 12), "sysmon"),
    (False, (3, 13), "sysmon"),
    (True, (3, 12), None),  # sys.monitoring measures no branches before 3.14
    (True, (3, 13), None),
    (True, (3, 14), "sysmon"),
])
def test_sys_monitoring_where_it_measures_what_the_quest_needs(
        branch: bool, version: tuple[int, int], core: str | None) -> None:
    assert coverage_core(branch, version) == core


@pytest.mark.parametrize("version", [(3, 11), (3, 12), (3, 13), (3, 14)])
def test_no_sys_monitoring_where_each_line_must_name_its_test(version: tuple[int, int]) -> None:
    """sys.monitoring records no dynamic contexts: ``--quest-update`` needs them. Named, not
    left to coverage.py, whose default is sys.monitoring from Python 3.14 on."""
    assert coverage_core(False, version, contexts=True) == "ctrace"
    assert coverage_core(True, version, contexts=True) == "ctrace"
