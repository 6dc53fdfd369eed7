"""Stage 5, mutation: the test notices when the target's behaviour changes.

Coverage says a line ran; mutation says a test would notice if it were
wrong. The harness (see :mod:`pytest_quest.mutate`) runs the mutants,
interleaved with clean control runs, and reports one ``mutation`` event;
these rules only read it. Every extreme
mutant must die (otherwise the function is pseudo-tested), a calibrated share
of classic mutants must die (``mutation_threshold``; docs/mutation.md says
why not 100%), and the unchanged null mutant must survive (otherwise the test
detects the machinery and every "kill" is fake). When the machinery could
not run, the verdict is REVIEW, never FAIL: our fault must not burn a try.
What the test causes is a FAIL: runs that do not fit in the budget
(``mutation-too-slow``) and a judge stopped before its report
(``run-report-tampered``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.protocol import EventKind
from pytest_quest.rules.run import TAMPERED
from pytest_quest.submission import Submission

__all__ = ["check", "summary"]

_DEAD = ("killed", "timeout", "crashed")

MACHINERY = CATALOG.add(
    "mutation-machinery-detected", FAIL, "mutation",
    "The unchanged function swapped in by the mutation machinery (the null mutant) still passes: "
    "a test that detects the machinery fakes every kill.",
    "Test the function's results, not its code object, environment or how it is loaded.",
    supersedes=("mutation-pseudo-tested", "mutation-score"),
)
PSEUDO = CATALOG.add(
    "mutation-pseudo-tested", FAIL, "mutation",
    "Replacing the target's body by a trivial return (None, the zero value of the type it "
    "returned, an empty generator) makes at least one test fail.",
    "Assert the exact values the function returns (and its side effects), not only that it runs.",
    supersedes=("mutation-score",),
)
UNCHECKED_RETURN = CATALOG.add(
    "mutation-return-unchecked", REVIEW, "mutation",
    "Replacing only the values the target returns (each by the zero of the type it returned, "
    "each element of a returned tuple by the zero of its own type), the rest of its body kept, "
    "makes at least one "
    "test fail. A test that checks what the function raises or changes but never what it "
    "returns goes to a human: the value may be incidental (a count a writer returns) or the "
    "point (a validator's result).",
    "Assert the value the function returns too; a maintainer approves when it does not matter.",
)
SCORE = CATALOG.add(
    "mutation-score", FAIL, "mutation",
    "Enough classic mutants on the covered lines (boundaries, operators, negated conditions, "
    "constants +/- 1, return None) make a test fail: the share killed reaches "
    "mutation_threshold.",
    "Add cases that tell the surviving mutants from the original: boundary values on both sides "
    "of each comparison, and assert exact results.",
)
IMPORT_TIME = CATALOG.add(
    "mutation-import-time-only", REVIEW, "mutation",
    "The tests call the target while they run. A function whose covered lines ran only while "
    "the project's conftests were imported (before any run could install a mutant: module-"
    "level calls, class bodies) built its results in the judge, so no test can kill a "
    "mutant: a human decides.",
    "A maintainer checks that the test asserts what the import-time calls built; the agent can "
    "also call the function directly in a test so its results are checked.",
)
TOO_SLOW = CATALOG.add(
    "mutation-too-slow", FAIL, "mutation",
    "Every planned run (clean controls, the null, extreme and classic mutants, reach checks) "
    "fits in the "
    "time budget. Each run gets ten times what the first clean run took (after a first "
    "schedule that left tests out, three times what the measuring run took); a test too slow to "
    "verify is the test's doing, not the machinery's.",
    "Make the test faster: the gate runs it once per mutant and control within the budget "
    "(docs/mutation.md); drop sleeps and slow setup.",
    supersedes=("mutation-pseudo-tested", "mutation-score"),
)
NOT_VERIFIED = CATALOG.add(
    "mutation-not-verified", REVIEW, "mutation",
    "The mutation stage ran to the end; when the machinery itself could not run, a human decides.",
    "A maintainer checks the environment (fork, time budget, the target's source) and reviews.",
)


def _ran(entries: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Mutants that ran; one the machinery could not swap in ("error") proves nothing."""
    return [e for e in entries or [] if e.get("outcome") != "error"]


def summary(event: dict[str, Any], threshold: float) -> dict[str, Any]:
    """The numbers a PASS records as evidence (and the facts below are built from)."""
    extreme = _ran(event.get("extreme"))
    classic = _ran(event.get("classic"))
    killed_classic = sum(1 for e in classic if e.get("outcome") in _DEAD)
    numbers: dict[str, Any] = {
        "extreme_killed": sum(1 for e in extreme if e.get("outcome") in _DEAD),
        "extreme_total": len(extreme),
        "extreme_equivalent": event.get("extreme_equivalent", 0),
        "classic_killed": killed_classic,
        "classic_total": len(classic),
        # Classic mutants not run because the ones before them decided the score.
        "classic_stopped": int(event.get("stopped") or 0),
        "score": round(killed_classic / len(classic), 3) if classic else None,
        "threshold": threshold,
        "timeouts": sum(1 for e in [*extreme, *classic] if e.get("outcome") == "timeout"),
        "equivalent_dropped": event.get("equivalent", 0),
        "survivors": [_survivor(e) for e in _by_line(classic) if e.get("outcome") not in _DEAD],
        "mode": event.get("mode"),
        "seconds": event.get("seconds"),
        # Of those, the pauses before the waves of runs (pytest_quest.gaps).
        "paused": event.get("paused"),
        # The schedule: the same submission on the same sources runs the same order.
        "seed": event.get("seed"),
        "order": event.get("order"),
        "controls": event.get("controls"),
        "install": event.get("install"),
    }
    if event.get("left_out"):
        # Tests that name nothing reaching the target (pytest_quest.selection): the first
        # schedule left them out, or ran again with them (``whole_file`` says why).
        numbers["left_out"] = event["left_out"]
        numbers["whole_file"] = event.get("whole_file")
        # Extreme mutants and reach checks that survived the selected tests: run again with
        # every test, and judged by that run.
        numbers["again"] = len(event.get("again") or ())
    if not extreme and numbers["extreme_equivalent"]:
        # No pseudo-testing check was possible; say so instead of implying it passed.
        numbers["note"] = ("no extreme mutant: the body is already trivial (each one compiled "
                           "to the function itself)")
    return numbers


def _by_line(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mutants in source order (line, then description): survivors read top to bottom."""
    def key(entry: dict[str, Any]) -> tuple[int, str]:
        line = entry.get("line")
        return (line if isinstance(line, int) else 0, str(entry.get("description", "")))

    return sorted(entries, key=key)


def _coverage_only(sub: Submission) -> Iterator[Fact]:
    """``mutation = false``: the reach checks of the coverage still ran (red team 6, 05).

    A surviving one is the run rule's ``run-report-tampered``; here only a killed null
    mutant (the test tells the checking runs apart) and checks the budget left no room for.
    """
    assert sub.run is not None
    event = sub.run.first(EventKind.MUTATION)
    if event is None or not event.get("reach_only"):
        return
    where = f"{sub.quest.path}:{sub.quest.lines[0]}"
    null = event.get("null") or {}
    if null and null.get("outcome") != "survived":
        yield MACHINERY.fact(
            null.get("by") or sub.test_rel,
            "the unchanged function, swapped in as the coverage checks are, passes every test",
            f"{null.get('outcome', 'no result')}: the test detects the runs that check its "
            "coverage")
        return
    if event.get("reach_not_run"):
        yield _reach_too_slow(where, event)


def _reach_too_slow(where: str, event: dict[str, Any]) -> Fact:
    """Reach checks the budget left no room for: the coverage they prove stays unproven."""
    return TOO_SLOW.fact(
        where, "every reach check (a run that stops at a covered line no killed mutant "
        f"proved) runs within the budget of {event.get('budget')} s",
        f"{event['reach_not_run']} not run: each run may take {event.get('timeout')} s (the "
        f"measured run took {event.get('clean_seconds')} s), so the coverage stays unproven")


def _survivor(entry: dict[str, Any]) -> str:
    return f"line {entry.get('line')}: {entry.get('description')} survived"


def check(sub: Submission) -> Iterator[Fact]:
    run = sub.run
    if run is None:
        return
    if not sub.settings.mutation:
        yield from _coverage_only(sub)
        return
    path = sub.quest.path
    where = f"{path}:{sub.quest.lines[0]}"
    event = run.first(EventKind.MUTATION)
    if event is None:
        tampered = run.tampered is not None or run.first(EventKind.TAMPERED) is not None
        if run.first(EventKind.DONE) is not None and not tampered:  # else run-report-tampered
            # The judge reports the stage whenever it gets to done: a test stopped it.
            yield TAMPERED.fact(where, "a mutation report before done",
                                "done without one: the judge was stopped by the test")
            return
        yield NOT_VERIFIED.fact(where, "a mutation report", "the harness reported none")
        return
    if event.get("error"):
        yield NOT_VERIFIED.fact(where, "the mutation stage runs", f"it failed: {event['error']}")
        return
    if event.get("skipped"):
        yield NOT_VERIFIED.fact(where, "the mutation stage runs", f"skipped: {event['skipped']}")
        return
    null = event.get("null") or {}
    if not null and event.get("not_run"):
        yield TOO_SLOW.fact(
            where, f"every run within the budget of {event.get('budget')} s",
            f"{event['not_run']} mutants and the null mutant were not run: each run may take "
            f"{event.get('timeout')} s (the measured run took {event.get('clean_seconds')} s)")
        return
    if null.get("outcome") != "survived":
        by = null.get("by") or sub.test_rel
        yield MACHINERY.fact(
            by, "the unchanged function, swapped in as the mutants are, passes every test",
            f"{null.get('outcome', 'no result')}: the test detects the mutation machinery",
        )
        return
    if event.get("import_time_only"):
        yield IMPORT_TIME.fact(
            where, f"the tests call {sub.quest.qualname} while they run",
            "the function ran only while modules were imported; mutants cannot reach it",
        )
        return
    if event.get("reach_not_run"):
        yield _reach_too_slow(where, event)
        return
    threshold = float(sub.settings.mutation_threshold)
    numbers = summary(event, threshold)
    yield from _pseudo(event, where, sub.quest.qualname)
    yield from _score(event, numbers, path, threshold)


def _pseudo(event: dict[str, Any], where: str, qualname: str) -> Iterator[Fact]:
    for entry in _ran(event.get("extreme")):
        if entry.get("outcome") in _DEAD:
            continue
        description = str(entry.get("description", "body replaced"))
        if entry.get("kind") == "returns":
            # Only the values returned changed: what it raises or changes is kept, and
            # checked. Whether the value matters is a person's call (a writer's count).
            yield UNCHECKED_RETURN.fact(
                where, f"a test fails when, in {qualname}, {description}, the rest of its "
                "body kept",
                f"{description} and every test still passed: the value it returns is never "
                "checked",
            )
            continue
        text = description.replace("body replaced by ", "")
        yield PSEUDO.fact(
            where, f"a test fails when the body of {qualname} is replaced by {text}",
            f"pseudo-tested: body replaced by {text} and every test still passed",
        )
    if event.get("extreme_not_run") or (event.get("not_run") and not event.get("classic")):
        # An extreme mutant not run leaves the pseudo-testing check unmade, whatever the
        # classic score says (red team 69: one more "survivor" in the score FAILed only by
        # accident).
        missing = event.get("extreme_not_run") or event["not_run"]
        yield TOO_SLOW.fact(
            where, "every extreme mutant runs within the time budget",
            f"{missing} mutants were not run (budget {event.get('budget')} s)",
        )


def _score(event: dict[str, Any], numbers: dict[str, Any], path: str,
           threshold: float) -> Iterator[Fact]:
    classic = _ran(event.get("classic"))
    not_run = int(event.get("not_run") or 0) if classic else 0
    # Stopped ones count as survivors: the stage stops only once the score passes anyway.
    total = len(classic) + not_run + numbers["classic_stopped"]
    if not total:
        return
    killed = numbers["classic_killed"]
    need = threshold * total - 1e-9
    expected = f"at least {threshold:.0%} of classic mutants killed"
    if killed >= need:
        return
    if killed + not_run >= need:  # the mutants the test was too slow for decide it
        yield TOO_SLOW.fact(
            path, expected,
            f"{killed}/{len(classic)} killed, {not_run} not run within the time budget",
        )
        return
    yield SCORE.fact(path, expected, f"{killed}/{total} killed ({killed / total:.0%})")
    for entry in _by_line(classic):
        if entry.get("outcome") not in _DEAD:
            yield SCORE.fact(f"{path}:{entry.get('line')}", "a test fails on this mutant",
                             _survivor(entry))
