"""What the judge believes of a run: its answer, checked against what it knew before the test.

A run child answers on a pipe that test code can find and write (it runs in
the same process), so the answer is a claim. Before any test code runs, the
child sends a :class:`~pytest_quest.protocol.RunStart` on a second pipe and
closes it: that record is ours. The claims that would make a run "the
environment's fault" (no try spent) are believed only from it:

- ``error`` (the machinery failed) only from a run that never started the
  test; after the start it is a forged answer;
- ``import_error`` only when the first import, before the test, failed too,
  and then with the project's message from the start record, never the run's
  text;
- ``denied_early`` only from the start record;
- ``missing`` (the target was not found) must agree with the start record
  when the first import worked;
- "no coverage data" (a REVIEW) only when coverage had no statements of the
  target before the test either: once it had, the answer's coverage must
  list them (red team 3, finding 01: a test that broke the report, by a
  folder where the JSON report goes, a full temp dir or no file descriptors
  left, sent the quest to a human without spending a try).

Anything else is tampering (``run-report-tampered``: a FAIL, the try spent).
"""

from __future__ import annotations

from dataclasses import replace

from pytest_quest.protocol import ProtocolError, RunReport, RunStart

__all__ = ["settle"]


def settle(report: RunReport, start: RunStart | None, where: str,
           known: tuple[tuple[int, ...], tuple[tuple[int, int], ...]] | None = None
           ) -> RunReport:
    """The answer the judge acts on, or ProtocolError when it claims what the run cannot know.

    ``known``: the body's statements and branch arcs as the judge computed them itself before
    the fork, whole; the start record's lists are capped (1000 statements, 600 arcs) to fit a
    pipe, and a missing line or arc past the cap left out of the answer went unseen (red team
    6, finding 03). Used when the start record says coverage could tell then.
    """
    if start is None:
        if report.error is None:
            raise ProtocolError(where, "an answer from a run that started the test",
                                "an answer from a run that never started it")
        return replace(report, denied_early=())
    if report.error is not None:
        raise ProtocolError(where, "no machinery error once the test started",
                            "an error claimed after the test code started")
    if report.import_error is not None and start.import_error is None:
        raise ProtocolError(where, "no import error: the target imported before the test",
                            "an import error claimed after the test code started")
    if start.import_error is None and report.missing != start.missing:
        raise ProtocolError(where, f"missing={start.missing}, as found before the test",
                            f"missing={report.missing}")
    if start.coverage is not None:
        file = start.coverage[0]
        statements, branches = known if known is not None else (start.coverage[1],
                                                                start.branches)
        _check_coverage(report, (file, statements), where)
        _check_branches(report, file, branches, where)
    import_error = start.import_error if report.import_error is not None else None
    return replace(report, import_error=import_error, denied_early=start.denied_early)


def _check_coverage(report: RunReport, before: tuple[str, tuple[int, ...]], where: str) -> None:
    """The body's statements coverage knew before the test are in the answer's coverage."""
    file, statements = before
    entry = (report.coverage or {}).get(file)
    listed: set[int] = set()
    if entry is not None:
        listed = {*entry.get("executed_lines", ()), *entry.get("missing_lines", ())}
    lost = [n for n in statements if n not in listed]
    if lost:
        raise ProtocolError(
            f"{where}: the coverage of {file}",
            f"lines {', '.join(map(str, statements[:10]))} executed or missing, as coverage "
            "measured them before the test",
            "no coverage data for them: the test broke the coverage report"
            + (f" ({report.coverage_error[:200]})" if report.coverage_error else ""))


def _check_branches(report: RunReport, file: str, branches: tuple[tuple[int, int], ...],
                    where: str) -> None:
    """Branch mode: the body's arcs coverage knew before the test are in the answer's coverage.

    The answer's arc count is its own list of arcs, executed or missing: an answer that
    leaves a missing arc out of both is full branch coverage (red team 5, finding 03).
    """
    if not branches:
        return
    entry = (report.coverage or {}).get(file) or {}
    listed = {(int(a), int(b)) for key in ("executed_branches", "missing_branches")
              for a, b in entry.get(key, ())}
    lost = [arc for arc in branches if arc not in listed]
    if lost:
        shown = ", ".join(f"{a}->{'exit' if b < 0 else b}" for a, b in lost[:10])
        raise ProtocolError(
            f"{where}: the branch coverage of {file}",
            f"arcs {shown} taken or missing, as coverage measured them before the test",
            "the answer lists neither: the test broke the coverage report")
