"""The judge believes "our fault" only from what a run knew before the test (red team 2, 02)."""

from __future__ import annotations

import pytest

from pytest_quest.protocol import ProtocolError, RunReport, RunStart, parse_run_start
from pytest_quest.runtrust import settle

STARTED = RunStart()


@pytest.mark.parametrize("forged", [
    RunReport(error="PROBE secrets"),
    RunReport(import_error="PROBE secrets"),
    RunReport(missing=True),
])
def test_environment_claims_after_the_start_are_tampering(forged: RunReport) -> None:
    with pytest.raises(ProtocolError):
        settle(forged, STARTED, "run 1")


def test_a_run_that_never_started_may_only_report_a_machinery_error() -> None:
    assert settle(RunReport(error="boom"), None, "run 1").error == "boom"
    with pytest.raises(ProtocolError):
        settle(RunReport(collected=("t.py::test",)), None, "run 1")


def test_early_denials_and_import_errors_come_from_the_start_record_only() -> None:
    start = RunStart(import_error="project says no", denied_early=("writing /etc/x",))
    settled = settle(RunReport(import_error="PROBE run text"), start, "run 1")
    assert settled.import_error == "project says no"
    assert settled.denied_early == ("writing /etc/x",)
    # The retry after collection worked: no import error, whatever the start said.
    assert settle(RunReport(), start, "run 1").import_error is None


def test_the_start_record_is_checked_like_an_answer() -> None:
    assert parse_run_start(b"", "run 1") is None
    record = b'{"import_error": null, "denied_early": [], "missing": false}'
    assert parse_run_start(record, "run 1") == RunStart()
    for bad in (b"{", b'{"import_error": null}', b"[" * 100_000):
        with pytest.raises(ProtocolError):
            parse_run_start(bad, "run 1")


def test_the_start_record_says_when_test_code_began() -> None:
    record = b'{"clock": 12.5, "import_error": null, "denied_early": [], "missing": false}'
    assert parse_run_start(record, "run 1") == RunStart(clock=12.5)
    for bad in (b'"late"', b"NaN", b"true"):
        with pytest.raises(ProtocolError):
            parse_run_start(record.replace(b"12.5", bad), "run 1")


BEFORE = RunStart(coverage=("hotel/pricing.py", (6, 7, 8)))


@pytest.mark.parametrize("broken", [
    RunReport(coverage={}, coverage_error="[Errno 21] Is a directory: '.../coverage.json'"),
    RunReport(coverage=None),
    RunReport(coverage={"other.py": {"executed_lines": [6, 7, 8], "missing_lines": []}}),
    RunReport(coverage={"hotel/pricing.py": {"executed_lines": [1], "missing_lines": []}}),
])
def test_coverage_measured_before_the_test_must_be_in_the_answer(broken: RunReport) -> None:
    """Red team 3, finding 01: a test that broke the report bought a free REVIEW (no data)."""
    with pytest.raises(ProtocolError, match="broke the coverage report"):
        settle(broken, BEFORE, "run 1")


def test_coverage_that_lists_the_statements_is_believed() -> None:
    entry = {"executed_lines": [1, 6, 8], "missing_lines": [7]}
    report = RunReport(coverage={"hotel/pricing.py": entry})
    assert settle(report, BEFORE, "run 1").coverage == {"hotel/pricing.py": entry}
    # Coverage knew nothing before the test (an environment without it): no data stays REVIEW.
    assert settle(RunReport(coverage={}), STARTED, "run 1").coverage == {}


def test_the_start_records_coverage_is_checked() -> None:
    record = (b'{"import_error": null, "denied_early": [], "missing": false, '
              b'"coverage": {"file": "hotel/pricing.py", "statements": [6, 7]}}')
    assert parse_run_start(record, "run 1") == RunStart(coverage=("hotel/pricing.py", (6, 7)))
    for bad in (b'"coverage": {"file": 1, "statements": []}',
                b'"coverage": {"file": "a.py", "statements": ["6"]}',
                b'"coverage": {"file": "a.py", "statements": [6], "x": 1}'):
        with pytest.raises(ProtocolError):
            parse_run_start(b'{"import_error": null, "denied_early": [], "missing": false, '
                            + bad + b"}", "run 1")


ARCS = RunStart(coverage=("hotel/rooms.py", (87, 89)), branches=((87, 88), (87, 89), (93, 95)))


def test_branch_arcs_measured_before_the_test_must_be_in_the_answer() -> None:
    """Red team 5, finding 03: an answer that left the missing arc 93->95 out of both lists
    was full branch coverage (5 of 5 arcs), a PASS; it is tampering now."""
    lines = {"executed_lines": [87, 89], "missing_lines": []}
    dropped = {**lines, "executed_branches": [[87, 88], [87, 89]], "missing_branches": []}
    with pytest.raises(ProtocolError, match="93->95 taken or missing"):
        settle(RunReport(coverage={"hotel/rooms.py": dropped}), ARCS, "run 1")
    honest = {**lines, "executed_branches": [[87, 88], [87, 89]], "missing_branches": [[93, 95]]}
    assert settle(RunReport(coverage={"hotel/rooms.py": honest}), ARCS, "run 1").coverage == \
        {"hotel/rooms.py": honest}
    # Line mode (no arcs in the start record): nothing more is asked.
    assert settle(RunReport(coverage={"hotel/rooms.py": lines}),
                  RunStart(coverage=("hotel/rooms.py", (87, 89))), "run 1").coverage


def test_the_judges_own_lists_are_checked_past_the_start_records_caps() -> None:
    """Red team 6, finding 03: the start record carries at most 1000 statements and 600 arcs;
    a body with 610 arcs whose answer left the never-taken 615->617 out of both lists was
    full branch coverage (609 of 609), a PASS. The judge's own whole lists are checked."""
    capped = RunStart(coverage=("calc.py", (7, 8)), branches=((7, 8), (7, 9)))
    known = ((7, 8, 615, 616, 617), ((7, 8), (7, 9), (615, 616), (615, 617)))
    entry = {"executed_lines": [7, 8, 615, 616, 617], "missing_lines": [],
             "executed_branches": [[7, 8], [7, 9], [615, 616]], "missing_branches": []}
    report = RunReport(coverage={"calc.py": entry})
    assert settle(report, capped, "run 1") == report  # the capped record sees nothing wrong
    with pytest.raises(ProtocolError, match="615->617 taken or missing"):
        settle(report, capped, "run 1", known)
    honest = {**entry, "missing_branches": [[615, 617]]}
    assert settle(RunReport(coverage={"calc.py": honest}), capped, "run 1", known).coverage
    # A statement past the cap, left out of both lists, is caught the same way.
    lines = {**honest, "executed_lines": [7, 8, 615, 617]}
    with pytest.raises(ProtocolError, match="lines 7, 8, 615, 616, 617 executed or missing"):
        settle(RunReport(coverage={"calc.py": lines}), capped, "run 1", known)
    # No start record coverage (coverage could not say then): nothing is asked, as before.
    assert settle(RunReport(coverage={}), RunStart(), "run 1", known).coverage == {}


def test_the_start_records_branch_arcs_are_read_and_checked() -> None:
    head = b'{"import_error": null, "denied_early": [], "missing": false, '
    record = head + (b'"coverage": {"file": "a.py", "statements": [6], '
                     b'"branches": [[6, 7], [6, -1]]}}')
    assert parse_run_start(record, "run 1").branches == ((6, 7), (6, -1))
    with pytest.raises(ProtocolError):
        parse_run_start(head + b'"coverage": {"file": "a.py", "statements": [6], '
                        b'"branches": [[6]]}}', "run 1")


def test_a_key_named_twice_is_tampering() -> None:
    """Red team 26 put a padded copy of a key first: the parse kept the harness's own value
    and spent seconds on the padding, which moved the next wave."""
    record = b'{"import_error": null, "denied_early": [], "missing": false, "missing": true}'
    with pytest.raises(ProtocolError) as raised:
        parse_run_start(record, "run 1")
    assert raised.value.expected == "a JSON object naming each key once"
    assert raised.value.actual == "'missing' twice"
