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
