"""Stage 3, run: the submitted file alone, in the sandbox, passes every time.

Facts quote the failing test and its assertion. A missing report (the
process died or exited early) is a FAIL: a test that ends the process before
pytest reports has hidden its outcome.
"""

from __future__ import annotations

from collections.abc import Iterator

from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.sandbox import RunResult
from pytest_quest.submission import Submission

__all__ = ["check"]

_COVERAGE = ("coverage-lines", "coverage-branches")

COLLECTION = CATALOG.add(
    "run-collection", FAIL, "run",
    "The test file imports and pytest collects at least one test from it.",
    "Fix the import or collection error quoted in the fact; name tests test_*.",
    supersedes=_COVERAGE,
)
EXIT_CODE = CATALOG.add(
    "run-exit-code", FAIL, "run",
    "Every collected test passes in the sandbox (exit code 0, no failures or errors).",
    "Make the failing test pass against the unchanged source: fix the expected value or setup.",
    supersedes=_COVERAGE,
)
SKIPPED = CATALOG.add(
    "run-skipped", FAIL, "run",
    "No test is skipped or xfailed at run time: a skipped test checks nothing.",
    "Remove the skip/xfail; test behaviour that runs here.",
    supersedes=_COVERAGE,
)
TIMEOUT = CATALOG.add(
    "run-timeout", FAIL, "run",
    "The run ends within the timeout; the process group is killed when it does not.",
    "Remove the endless loop or slow call; tests must finish in seconds.",
    supersedes=_COVERAGE,
)
NO_REPORT = CATALOG.add(
    "run-no-report", FAIL, "run",
    "pytest reports the run: a process that exits early (os._exit, signals, sys.exit at import) "
    "hides the outcome.",
    "Do not exit or kill the process from the test.",
    supersedes=_COVERAGE,
)
FLAKY = CATALOG.add(
    "run-flaky", FAIL, "run",
    "Reruns of the same tests in the same process agree: all pass every time.",
    "Remove the dependence on order, time, randomness or leftover state.",
    supersedes=_COVERAGE,
)
SANDBOX = CATALOG.add(
    "run-sandbox-violation", FAIL, "run",
    "The test writes only inside the sandbox and, unless the kernel confines the run, starts no "
    "processes.",
    "Write files only under tmp_path; call the function instead of a subprocess.",
)
UNREACHABLE = CATALOG.add(
    "run-target-unreachable", REVIEW, "run",
    "The function can be found on its module after import; one deleted, renamed or rebuilt at "
    "import time cannot be identity-checked or mutated, so a human decides.",
    "Nothing to change in the test: a maintainer reviews it (or retires the quest).",
)
TAMPERED = CATALOG.add(
    "run-report-tampered", FAIL, "run",
    "The harness's report reaches the gate as the harness wrote it: an event that may appear "
    "once (coverage, mutation, done) appearing twice means test code forged it.",
    "Do not write to pytest-quest's report or reach into its objects.",
    supersedes=(*_COVERAGE, "mutation-pseudo-tested", "mutation-score"),
)
_UNIQUE = ("start", "collected", "coverage", "mutation", "done")
TARGET_REPLACED = CATALOG.add(
    "run-target-replaced", FAIL, "run",
    "The target function is not replaced (monkeypatch, mock.patch) while a test runs.",
    "Call the real function; mock its collaborators, never the function under test.",
    supersedes=_COVERAGE,
)


def check(sub: Submission) -> Iterator[Fact]:
    run = sub.run
    if run is None:
        return
    if run.timed_out:
        yield TIMEOUT.fact(
            sub.test_rel, f"the run ends within {sub.settings.timeout:g} s",
            f"still running after {run.seconds:.1f} s; killed",
        )
        return
    forged = [kind for kind in _UNIQUE if len(run.of(kind)) > 1]
    rounds = [e.get("round") for e in run.of("round_done")]
    if len(rounds) != len(set(rounds)):
        forged.append("round_done")
    if forged:
        yield TAMPERED.fact(
            sub.test_rel, "one report per event", f"duplicated: {', '.join(forged)}"
        )
        return
    yield from _collection(sub, run)
    if not run.finished:
        yield NO_REPORT.fact(
            sub.test_rel, "pytest reports every test",
            f"the process ended with code {run.returncode} before reporting",
        )
        return
    yield from _outcomes(sub, run)
    for what in dict.fromkeys(e["what"] for e in run.of("denied")):  # once, though every rerun
        yield SANDBOX.fact(sub.test_rel, "no writes outside the sandbox, no processes", what)
    replaced = sorted({e["nodeid"] for e in run.of("target_replaced")})
    for nodeid in replaced:
        yield TARGET_REPLACED.fact(
            nodeid, f"{sub.quest.qualname} is the real function", "it was replaced during the test"
        )
    yield from _flaky(sub, run)
    missing = run.first("target_missing")
    if missing is not None:
        yield UNREACHABLE.fact(
            f"{sub.quest.path}:{sub.quest.lines[0]}",
            f"{missing['module']}.{sub.quest.qualname} reachable after import",
            "not found on the imported module",
        )


def _collection(sub: Submission, run: RunResult) -> Iterator[Fact]:
    for event in run.of("collect_error"):
        where = event.get("nodeid") or sub.test_rel
        yield COLLECTION.fact(where, "the file imports and collects", _message(event))
    collected = run.first("collected")
    if collected is not None and collected.get("count", 0) == 0 and not run.of("collect_error"):
        yield COLLECTION.fact(sub.test_rel, "at least one test", "no test collected")


def _outcomes(sub: Submission, run: RunResult) -> Iterator[Fact]:
    for event in run.of("report"):
        if event.get("round", 1) != 1:
            continue
        if event["outcome"] == "failed":
            phase = "" if event["when"] == "call" else f" (in {event['when']})"
            yield EXIT_CODE.fact(event["nodeid"], "passed", f"failed{phase}: {_message(event)}")
        elif event["outcome"] == "skipped" or event.get("xfail"):
            kind = "xfailed" if event.get("xfail") else "skipped"
            yield SKIPPED.fact(event["nodeid"], "run and passed", f"{kind}: {_message(event)}")
    done = run.first("done")
    quiet = not run.of("report") and not run.of("collect_error")
    if done is not None and done.get("exitstatus") not in (0, None) and quiet:
        last = (run.output.strip().splitlines() or ["no output"])[-1][:300]
        yield EXIT_CODE.fact(
            sub.test_rel, "pytest exit code 0", f"exit code {done['exitstatus']}: {last}"
        )


def _flaky(sub: Submission, run: RunResult) -> Iterator[Fact]:
    rounds = [e for e in run.of("round_done") if e.get("outcomes")]
    if not rounds:
        return
    total = len(rounds) + 1
    first_failed = {
        e["nodeid"] for e in run.of("report")
        if e.get("round", 1) == 1 and e["outcome"] != "passed"
    }
    nodeids = sorted({n for e in rounds for n in e["outcomes"]})
    for nodeid in nodeids:
        passed = (nodeid not in first_failed) + sum(
            1 for e in rounds if e["outcomes"].get(nodeid) == "passed"
        )
        # A test failing every time is a plain failure (run-exit-code), not a flaky one.
        if 0 < passed < total:
            yield FLAKY.fact(
                nodeid, f"passed {total}/{total} runs", f"passed {passed}/{total} runs"
            )


def _message(event: dict[str, object]) -> str:
    message = str(event.get("message") or "").strip()
    where = ""
    if event.get("file") and event.get("line") is not None:
        where = f" at {event['file']}:{event['line']}"
    first = message.splitlines()[0] if message else "no message"
    return f"{first[:500]}{where}"
