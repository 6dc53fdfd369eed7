"""Stage 3, run: the submitted file alone, in the sandbox, passes every time.

Facts quote the failing test and its assertion. A missing report (the
process died or exited early) is a FAIL: a test that ends the process before
pytest reports has hidden its outcome.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator

from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.protocol import CTYPES_LOADED, EventKind
from pytest_quest.sandbox import RunResult
from pytest_quest.submission import Submission

__all__ = ["check"]

_COVERAGE = ("coverage-lines", "coverage-branches")

COLLECTION = CATALOG.add(
    "run-collection", FAIL, "run",
    "The test file imports and pytest collects at least one test from it.",
    "Fix the import or collection error quoted in the fact; name tests test_*.",
    # a file that does not import fails every clean control run too: "flaky" says nothing more
    supersedes=(*_COVERAGE, "run-flaky"),
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
    "Every clean run passes: the measured run and the clean control runs interleaved with "
    "the mutants in an order seeded by a secret and the submission. A test that fails a "
    "control depends on order, time, leftover state or on telling runs apart.",
    "Remove the dependence on order, time, randomness, leftover files or the process.",
    supersedes=(*_COVERAGE, "mutation-pseudo-tested", "mutation-score",
                "mutation-machinery-detected"),
)
SANDBOX = CATALOG.add(
    "run-sandbox-violation", FAIL, "run",
    "The test writes only inside its own temp dir (tmp_path, TMPDIR, HOME; not the project "
    "copy, so nothing one run writes reaches the next) and, unless Landlock confines the "
    "run and hides the code under test from its processes, starts no processes.",
    "Write files only under tmp_path; call the function instead of a subprocess.",
)
UNREACHABLE = CATALOG.add(
    "run-target-unreachable", REVIEW, "run",
    "The function can be found on its module after import; one deleted, renamed or rebuilt at "
    "import time cannot be identity-checked or mutated, so a human decides.",
    "Nothing to change in the test: a maintainer reviews it (or retires the quest).",
    # Decided before test code runs: a def the module does not bind (defined twice under a
    # flag, the other one kept) runs in no test, and its lines say nothing of the test's.
    supersedes=_COVERAGE,
)
TAMPERED = CATALOG.add(
    "run-report-tampered", FAIL, "run",
    "The harness's report and every forked run's answer follow the protocol: well-formed, "
    "within the size bound, in order, nothing duplicated. Anything else means test code "
    "wrote to or rewrote the report.",
    "Do not write to pytest-quest's report or reach into its objects.",
    supersedes=(*_COVERAGE, "mutation-pseudo-tested", "mutation-score",
                "mutation-machinery-detected", "mutation-not-verified"),
)
READS_TARGET = CATALOG.add(
    "run-reads-target", FAIL, "run",
    "The test does not read the code under test (its source file, its __code__, a compile of "
    "its text, a second import by path): a test that looks at the code can tell a mutant "
    "from the original without checking behaviour.",
    "Call the function and assert its results; never inspect or reload its code.",
    supersedes=(*_COVERAGE, "mutation-pseudo-tested", "mutation-score",
                "mutation-machinery-detected"),
)
LOADS_CTYPES = CATALOG.add(
    "run-loads-ctypes", REVIEW, "run",
    "The test does not load ctypes. The judge keeps it out of every run: a ctypes object reads "
    "any memory, the code under test included, with no audit event, so once it is loaded no "
    "finding of the run can be trusted to be complete. Imported by the project's own code, "
    "directly or through the bodies of the modules it imports (numpy's), it is the project's "
    "environment (no fact); cffi's C half likewise.",
    "Test without ctypes: multiprocessing.Value and Array load it (use a Manager or a Queue).",
)
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
    tampered = run.tampered
    forged = run.first(EventKind.TAMPERED)
    if tampered is not None:
        yield TAMPERED.fact(f"{sub.test_rel} ({tampered.where})", tampered.expected,
                            tampered.actual)
        return
    if forged is not None:
        yield TAMPERED.fact(f"{sub.test_rel} ({forged['where']})", forged["expected"],
                            forged["actual"])
        return
    if run.timed_out:
        yield TIMEOUT.fact(
            sub.test_rel, f"the run ends within {sub.settings.timeout:g} s",
            f"still running after {run.seconds:.1f} s; killed",
        )
        return
    # First: a test that reads the code under test fails on that, even where the read itself
    # broke it (the target's file is hidden from runs: reading it is an error there).
    for what in dict.fromkeys(e["what"] for e in run.of(EventKind.TARGET_READ)):
        if what.endswith(CTYPES_LOADED):
            yield LOADS_CTYPES.fact(sub.test_rel, "no ctypes in the run", what)
        else:
            yield READS_TARGET.fact(sub.test_rel, f"{sub.quest.qualname} is only called", what)
    yield from _collection(sub, run)
    if not run.finished:
        yield NO_REPORT.fact(
            sub.test_rel, "pytest reports every test",
            f"the process ended with code {run.returncode} before reporting",
        )
        return
    yield from _outcomes(sub, run)
    for what in dict.fromkeys(e["what"] for e in run.of(EventKind.DENIED)):
        yield SANDBOX.fact(sub.test_rel, "no writes outside the sandbox, no processes", what)
    replaced = sorted({e["nodeid"] for e in run.of(EventKind.TARGET_REPLACED)})
    for nodeid in replaced:
        yield TARGET_REPLACED.fact(
            nodeid, f"{sub.quest.qualname} is the real function", "it was replaced during the test"
        )
    yield from _flaky(sub, run)
    missing = run.first(EventKind.TARGET_MISSING)
    if missing is not None:
        yield UNREACHABLE.fact(
            f"{sub.quest.path}:{sub.quest.lines[0]}",
            f"{missing['module']}.{sub.quest.qualname} reachable after import",
            "not the function its module holds after import (none, or another def of that name)",
        )


def _collection(sub: Submission, run: RunResult) -> Iterator[Fact]:
    errors = run.of(EventKind.COLLECT_ERROR)
    for event in errors:
        where = event.get("nodeid") or sub.test_rel
        yield COLLECTION.fact(where, "the file imports and collects", _message(event))
    collected = run.first(EventKind.COLLECTED)
    if collected is not None and collected.get("count", 0) == 0 and not errors:
        yield COLLECTION.fact(sub.test_rel, "at least one test", "no test collected")


#: What a run's seccomp list answers a call or socket family it leaves out (ENOSYS,
#: EAFNOSUPPORT), as Python words it: an honest test failing on one is told why.
_REFUSED = tuple(f"[Errno {code}]" for code in (errno.ENOSYS, errno.EAFNOSUPPORT))
_REFUSED_NOTE = (" (the sandbox lets a run make a list of system calls and open UNIX, IPv4 and "
                 "IPv6 sockets only: docs/security.md)")


def _outcomes(sub: Submission, run: RunResult) -> Iterator[Fact]:
    reports = run.of(EventKind.REPORT)
    for event in reports:
        if event["outcome"] == "failed":
            phase = "" if event["when"] == "call" else f" (in {event['when']})"
            actual = f"failed{phase}: {_message(event)}"
            if any(code in actual for code in _REFUSED):
                actual += _REFUSED_NOTE
            yield EXIT_CODE.fact(event["nodeid"], "passed", actual)
        elif event["outcome"] == "skipped" or event.get("xfail"):
            kind = "xfailed" if event.get("xfail") else "skipped"
            yield SKIPPED.fact(event["nodeid"], "run and passed", f"{kind}: {_message(event)}")
    done = run.first(EventKind.DONE)
    quiet = not reports and not run.of(EventKind.COLLECT_ERROR)
    if done is not None and done.get("exitstatus") not in (0, None) and quiet:
        last = (run.output.strip().splitlines() or ["no output"])[-1][:300]
        yield EXIT_CODE.fact(
            sub.test_rel, "pytest exit code 0", f"exit code {done['exitstatus']}: {last}"
        )


def _flaky(sub: Submission, run: RunResult) -> Iterator[Fact]:
    """Clean controls (rounds 2, 3, ...) must pass like the measured round."""
    rounds = [e for e in run.of(EventKind.ROUND_DONE) if e["round"] > 1]
    if not rounds:
        return
    first_failed = {
        e["nodeid"] for e in run.of(EventKind.REPORT) if e["outcome"] != "passed"
    }
    for event in rounds:
        if event.get("problem") and not any(
                o == "failed" for o in event.get("outcomes", {}).values()):
            yield FLAKY.fact(sub.test_rel, "every clean run passes", event["problem"])
    nodeids = sorted({n for e in rounds for n in e.get("outcomes", {})})
    for nodeid in nodeids:
        seen = [e["outcomes"][nodeid] for e in rounds if nodeid in e.get("outcomes", {})]
        total = len(seen) + 1
        passed = (nodeid not in first_failed) + seen.count("passed")
        # A test failing every time is a plain failure (run-exit-code), not a flaky one.
        if 0 < passed < total:
            yield FLAKY.fact(
                nodeid, f"passed {total}/{total} clean runs", f"passed {passed}/{total} clean runs"
            )


def _message(event: dict[str, object]) -> str:
    message = str(event.get("message") or "").strip()
    where = ""
    if event.get("file") and event.get("line") is not None:
        where = f" at {event['file']}:{event['line']}"
    first = message.splitlines()[0] if message else "no message"
    return f"{first[:500]}{where}"
