"""The schedule after the measured run: clean controls and mutants, in an order no test can guess.

Pure orchestration: which runs, in which order, with what time limits, and
what each outcome means. The runs themselves are the harness's business and
are reached through the :class:`Runs` protocol (each run is one forked child
that installs a module code object, collects the test file and runs it; see
docs/mutation.md). The mutants come from :mod:`pytest_quest.mutants`.

Every run after the measured one looks the same from inside: the target is
installed the same way, the same time limits apply, a fresh private temp
dir. The order of clean control runs and mutants is shuffled by a seed the
test cannot compute (:mod:`pytest_quest.schedule`: a keyed hash of the
sandbox copy, handed to the judge after the fork), so the same submission on
the same files gets the same schedule (recorded in the event), and a test
that fails a control (a counter, a clock, a pid: anything that tells runs
apart) is FAIL.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_quest.measure import measure
from pytest_quest.mutants import (
    Generated,
    Mutant,
    MutationError,
    generate,
    null_probe,
    reach_mutants,
)
from pytest_quest.protocol import MutationSpec, RunReport, Tampering

__all__ = [
    "DEAD",
    "Ran",
    "RunRequest",
    "Runs",
    "Skip",
    "Stage",
    "StageInput",
    "decided_at",
    "killed_by",
    "run_stage",
]

#: Verdicts of one mutant run.
KILLED, SURVIVED, TIMEOUT, CRASHED, ERROR = "killed", "survived", "timeout", "crashed", "error"
DEAD = frozenset({KILLED, TIMEOUT, CRASHED})
#: How a forked run ended, as the harness saw it.
ANSWERED, TIMED_OUT, DIED, TAMPERED = "answered", "timeout", "crashed", "tampered"


@dataclass(frozen=True)
class RunRequest:
    """One run: the whole module to install, pristine or a mutant."""

    module: types.CodeType = field(repr=False)
    timeout: float
    #: Only the first run measures coverage and records return types and calls.
    measure: bool = False
    #: The shipped text, for the measured run's coverage report only (the file is hidden
    #: from runs; that run installs the shipped code).
    source: str = field(default="", repr=False)


@dataclass(frozen=True)
class Ran:
    """How one run ended and what it answered (``report`` only when ``status`` is answered)."""

    status: str
    seconds: float
    report: RunReport | None = None
    tampered: Tampering | None = None


#: Asked before each request starts: ``skip(index, results so far)`` (None: not finished).
Skip = Callable[[int, Sequence[Ran | None]], bool]


class Runs(Protocol):
    """The harness side of the stage: it runs requests, each in its own fresh child."""

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: Skip | None = None) -> list[Ran | None]:
        """One result per request, in order; None for requests not started by ``deadline``.

        Requests are started in order; one for which ``skip`` says True is not
        started (None), which lets the stage stop once its verdict is decided.
        """
        ...


@dataclass(frozen=True)
class StageInput:
    """What the judge knows after the measured run."""

    source: str
    filename: str
    def_line: int
    module: types.CodeType = field(repr=False)
    measured: RunReport
    measured_seconds: float
    target_file: str
    body: tuple[int, int]
    branch: bool
    reruns: int
    budget: float
    seed: str
    mutation: MutationSpec | None
    #: "import" (the run installs the module) or "swap" (a conftest imported it first),
    #: decided by the judge from what it imported itself, never from a run's answer.
    install: str = "import"
    #: Lines of the target the judge saw run before any run existed (a conftest's import).
    #: They are not in the measured run's coverage (the judge's data stays in the judge), so
    #: they vouch for nothing a run claims; only :func:`_import_time_only` reads them.
    trusted_lines: frozenset[int] = frozenset()
    #: Lines the agent claims unreachable (``HarnessSpec.claimed``): missing, they do not stop
    #: the stage; mutants and reach checks go on the covered lines only, as always.
    claimed: frozenset[int] = frozenset()


@dataclass
class Stage:
    """The stage's outcome: one entry per clean control, the mutation event, a tampered run."""

    controls: list[dict[str, Any]] = field(default_factory=list)
    mutation: dict[str, Any] | None = None
    tampered: Tampering | None = None
    #: What any run after the measured one reported reading of the target's code, or the
    #: sandbox refused it: judged like the measured run's (red team 2, finding 09).
    reads: list[str] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)


def killed_by(report: RunReport) -> str | None:
    """The test (or collection error) that failed in this run, or None.

    Only a failure counts: a mutant that merely changes which tests exist or
    how they are named (``parametrize`` ids built from the target's results)
    was not noticed by any test.
    """
    if report.failed:
        return report.failed
    if report.collect_errors:
        return str(report.collect_errors[0].get("nodeid") or "<collection>")
    return None


def _skip_reason(given: StageInput) -> str | None:
    """Why mutants must not run (a failing, unsafe or partly covered test), or None."""
    report = given.measured
    if not report.collected:
        return "no tests were collected"
    if killed_by(report) or any(
            r.get("outcome") != "passed" for r in report.reports):
        return "the measured run failed"
    if report.denied or report.denied_early:
        return "the test broke the sandbox rules"
    if report.reads:
        return "the test read the code under test"
    if report.missing:
        return "the target function was not found"
    if report.coverage is None:
        return "no coverage data for the target"
    result = measure(report.coverage.get(given.target_file), given.body, given.branch)
    if not result.statements:
        return "no coverage data for the target"
    # A claimed line must not switch the whole stage off (red team 3, finding 04): the claim
    # is REVIEW anyway, and the covered rest is judged, so a pseudo-test still FAILs.
    if not result.excusing(given.claimed).complete:
        return "the target is not fully covered"
    return None


def run_stage(runs: Runs, given: StageInput) -> Stage:
    """Plan, shuffle and run the controls and mutants; never raise for our own faults.

    A failure of the machinery becomes an ``error`` in the mutation event,
    which the rule turns into REVIEW: the gate must not FAIL a test for our
    fault. Controls still run then, so flakiness is judged either way.
    """
    started = time.monotonic()
    stage = Stage()
    spec = given.mutation
    base: dict[str, Any] = {}
    if spec is not None:
        base = {"threshold": float(spec.threshold), "max_mutants": int(spec.max_mutants)}
    report = given.measured
    if killed_by(report) or not report.collected:
        if spec is not None:
            stage.mutation = {**base, "skipped": "the measured run failed"}
        return stage
    mutants: list[tuple[str, Mutant]] = []
    made: Generated | None = None
    reason = _skip_reason(given) if spec is not None else None
    if spec is not None and reason is None:
        try:
            made = _generate(given, spec)
        except (MutationError, SyntaxError, ValueError) as exc:
            base["error"] = f"{type(exc).__name__}: {exc}"
        else:
            mutants.append(("N", made.null))
            if not _import_time_only(given):
                mutants += [(f"E{i}", m) for i, m in enumerate(made.extreme)]
                mutants += [(f"K{i}", m) for i, m in enumerate(made.classic)]
    # One control per six mutants at least: a test that tells runs apart by shared state
    # (a counter file, the clock) must guess which runs are controls, and fails one.
    controls = max(given.reruns - 1, math.ceil(len(mutants) / 6) if mutants else 0)
    labels = ["C"] * controls + [label for label, _ in mutants]
    timeout = max(2.0, 10 * given.measured_seconds)
    rng = random.Random(int(given.seed[:16], 16))
    rng.shuffle(labels)
    # Classic mutants stop once their share passes whatever the rest do (never with a reason
    # to skip: then no mutant verdict is read). Not on a decided FAIL: its facts name every
    # survivor, which the agent needs to fix the test in one of its few tries.
    decide = spec.threshold if spec is not None and reason is None else None
    outcomes, stopped = _run_labels(runs, stage, labels, dict(mutants), given, timeout,
                                    started + given.budget, decide)
    if spec is None:
        # No mutation testing, yet the coverage is still the run's own answer: it is checked
        # all the same, or `mutation = false` turned forged coverage into a PASS (red team 6,
        # finding 05).
        if stage.tampered is None and _skip_reason(given) is None:
            _coverage_only(runs, stage, given, rng, timeout, started)
        return stage
    if reason is not None:
        stage.mutation = {**base, "skipped": reason}
        return stage
    ran = [label for label in labels if label not in stopped]
    stage.mutation = _event(given, base, made, mutants, outcomes, ran, controls, timeout)
    stage.mutation["stopped"] = len(stopped)
    # Both install modes, every claimed line and arc: what a conftest ran in the judge is not
    # what the test ran, so it proves nothing the answer claims (red team 6, finding 04); an
    # import-time-only body is checked too, as that claim is the answer's own.
    if made is not None and stage.tampered is None and \
            stage.mutation.get("null", {}).get("outcome") == SURVIVED:
        _reach_phase(runs, stage, given, outcomes, rng, timeout, started + given.budget)
    stage.mutation["seconds"] = round(time.monotonic() - started, 3)
    return stage


def _run_labels(runs: Runs, stage: Stage, labels: list[str], by_label: dict[str, Mutant],
                given: StageInput, timeout: float, deadline: float,
                threshold: float | None = None) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Run one shuffled schedule; controls go to ``stage``, mutant entries are returned.

    With a ``threshold``, classic mutants (``K...``) after the point where
    the schedule's outcomes pass the classic score (:func:`decided_at`) are
    not started, and any that were already under way are left out: the
    stopped labels are returned with the entries. Controls, the null and the
    extreme mutants always run.
    """
    pristine = RunRequest(given.module, timeout)
    requests = [pristine if label == "C" else RunRequest(by_label[label].code, timeout)
                for label in labels]
    def passed(index: int, results: Sequence[Ran | None]) -> bool:
        assert threshold is not None
        cut = decided_at(labels, results, by_label, threshold)
        return cut is not None and index > cut and labels[index].startswith("K")

    skip: Skip | None = None if threshold is None else passed
    results = runs.run(requests, deadline, skip) if requests else []
    cut = None if threshold is None else decided_at(labels, results, by_label, threshold)
    stopped = {label for index, label in enumerate(labels)
               if cut is not None and index > cut and label.startswith("K")}
    outcomes: dict[str, dict[str, Any]] = {}
    for label, ran in zip(labels, results, strict=True):
        if label in stopped:
            continue
        if ran is not None and ran.status == TAMPERED and stage.tampered is None:
            stage.tampered = ran.tampered
        if ran is not None and ran.report is not None:
            _gather(stage.reads, ran.report.reads)
            _gather(stage.denied, ran.report.denied)
        if label == "C":
            if ran is not None:
                stage.controls.append(_control(ran, given.measured))
        elif ran is not None:
            outcomes[label] = _entry(by_label[label], ran)
    return outcomes, stopped


def decided_at(labels: Sequence[str], results: Sequence[Ran | None],
               by_label: dict[str, Mutant], threshold: float) -> int | None:
    """The first index of the schedule whose finished prefix passes the classic score.

    Read in schedule order over the prefix of finished runs only, so the
    answer depends on the outcomes, never on which parallel run finished
    first: the same submission stops at the same place. The score is the
    rule's (:mod:`pytest_quest.rules.mutation`): killed over classic mutants
    that ran without a machinery error plus those never run. It passes for
    good once the killed ones reach the threshold even if every later one
    survived; more outcomes never undo that.
    """
    remaining = sum(1 for label in labels if label.startswith("K"))
    counted = killed = 0
    for index, label in enumerate(labels):
        if index >= len(results) or results[index] is None:
            return None
        if not label.startswith("K"):
            continue
        remaining -= 1
        ran = results[index]
        assert ran is not None
        outcome = _entry(by_label[label], ran)["outcome"]
        if outcome != ERROR:
            counted += 1
            killed += outcome in DEAD
        if killed >= threshold * (counted + remaining) - 1e-9:
            return index
    return None


def _gather(into: list[str], found: Sequence[str], limit: int = 20) -> None:
    for what in found:
        if len(into) >= limit:
            return
        if what not in into:
            into.append(what)


def _coverage_only(runs: Runs, stage: Stage, given: StageInput, rng: random.Random,
                   timeout: float, started: float) -> None:
    """Mutation is off: the reach checks alone, with the null mutant among them.

    The null mutant keeps a test that tells any changed code apart (and fails there) from
    killing every reach check without reaching anything. The event says ``reach_only``;
    the mutation rule reads only its null mutant and its unrun checks.
    """
    try:
        null = generate(given.source, given.filename, given.def_line, module_code=given.module,
                        covered=set(), max_mutants=0, null_name=_null_name(given.seed),
                        null_shape=int(given.seed[24:32], 16)).null
    except (MutationError, SyntaxError, ValueError):
        return  # the machinery cannot mutate this target: nothing to check with
    stage.mutation = {"threshold": 0.0, "max_mutants": 0, "reach_only": True, "mode": "fork",
                      "install": given.install, "budget": round(given.budget, 1),
                      "seed": given.seed[:16], "order": [], "controls": 0,
                      "timeout": round(timeout, 3),
                      "clean_seconds": round(given.measured_seconds, 4)}
    _reach_phase(runs, stage, given, {}, rng, timeout, started + given.budget, null)
    stage.mutation["seconds"] = round(time.monotonic() - started, 3)


def _reach_phase(runs: Runs, stage: Stage, given: StageInput,
                 outcomes: dict[str, dict[str, Any]], rng: random.Random, timeout: float,
                 deadline: float, null: Mutant | None = None) -> None:
    """Check that the blocks the coverage data says ran really run.

    The coverage of the measured run is collected in the process the test
    runs in, so a test can add lines to it. A block is proven to run up to
    its last covered statement when a classic mutant there or after it was
    killed; for every other covered block a *reach* mutant (an ``os._exit``
    before that statement, the null mutant's probe made live) must
    die. One that survives means the block never ran although the coverage
    said so: the report was tampered with. A clean control runs with them, so
    these runs look like the others.
    """
    assert stage.mutation is not None
    coverage = (given.measured.coverage or {}).get(given.target_file, {})
    covered = set(coverage.get("executed_lines", ()))
    # Branch mode: the arcs are the run's claim too (red team 4, finding 04).
    arcs = {(int(a), int(b)) for a, b in coverage.get("executed_branches", ())
            } if given.branch else None
    proven = {e["line"] for label, e in outcomes.items()
              if label.startswith("K") and e["outcome"] in DEAD}
    try:
        # The null mutant's probe, live: the stop looks the same in both (red team 6, 06).
        probe = null_probe(_null_name(given.seed), int(given.seed[24:32], 16))
        checks = [r for r in reach_mutants(given.source, given.filename, given.def_line,
                                           module_code=given.module, covered=covered,
                                           arcs=arcs, probe=probe)
                  if not r.lines & proven]
        # Each check's twin: the same code with the stop dead. Where a probe sits shows in
        # the offsets a traceback carries (tb_lasti); a test that fails wherever a probe sits
        # in a block it never runs kills the twin too (red team 7, finding 02).
        twins = [r.mutant for r in reach_mutants(
            given.source, given.filename, given.def_line, module_code=given.module,
            covered=covered, arcs=arcs, probe=dataclasses.replace(probe, live=False))
            if not r.lines & proven]
    except (MutationError, SyntaxError, ValueError):  # the first phase already said so
        return
    if not checks:
        return
    if len(twins) != len(checks):  # pragma: no cover - the same inputs make the same list
        twins = []
    by_label: dict[str, Mutant] = {f"R{i}": r.mutant for i, r in enumerate(checks)}
    twin_labels: dict[str, Mutant] = {f"T{i}": t for i, t in enumerate(twins)}
    labels = ["C", *by_label, *twin_labels, *(["N"] if null is not None else [])]
    rng.shuffle(labels)
    reached, _ = _run_labels(runs, stage, labels, {**by_label, **twin_labels, **(
        {"N": null} if null is not None else {})}, given, timeout, deadline)
    stage.mutation["order"] = [*stage.mutation["order"], *labels]
    stage.mutation["controls"] += 1
    stage.mutation["reach"] = [reached[label] for label in by_label if label in reached]
    if null is not None and "N" in reached:
        stage.mutation["null"] = reached["N"]
    # A killed twin is a killed null mutant: the test tells the checking runs apart.
    for label in twin_labels:
        entry = reached.get(label)
        if entry is not None and entry["outcome"] != SURVIVED:
            stage.mutation["null"] = entry
            break
    # A check the budget left no room for proves nothing: a test slow enough that the reach
    # phase never starts must not keep its forged coverage (red team 5, finding 07).
    unrun = sum(1 for label in [*by_label, *(["N"] if null is not None else [])]
                if label not in reached)
    if unrun:
        stage.mutation["reach_not_run"] = unrun
    for check, label in zip(checks, by_label, strict=True):
        entry = reached.get(label)
        if entry is not None and entry["outcome"] == SURVIVED and stage.tampered is None \
                and check.arc_from is not None:
            line = check.arc_from
            stage.tampered = Tampering(
                f"the branch coverage of {given.target_file}:{line}",
                f"the branch of line {line} the coverage data lists is taken in the tests: "
                f"a run with the mutant \"{check.mutant.description}\" fails",
                "that run passed: the branch was never taken, so the coverage data was written "
                "by the test")
        elif entry is not None and entry["outcome"] == SURVIVED and stage.tampered is None:
            line = check.mutant.line
            stage.tampered = Tampering(
                f"the coverage of {given.target_file}:{line}",
                f"line {line} runs in the tests, as the coverage data says: a run that "
                "stops there fails",
                "that run passed: the line never ran, so the coverage data was written by "
                "the test")



def _import_time_only(given: StageInput) -> bool:
    """The body ran only in the judge, before any mutant could be installed: REVIEW material.

    Judged from what the judge knows, not only from the run's call count
    (which the test can forge to 0): only in swap mode, and only when every
    covered line of the body is one the judge saw run before the fork. In
    import mode each run installs the module itself, so mutants always reach.
    """
    if given.install != "swap" or given.measured.calls != 0:
        return False
    coverage = (given.measured.coverage or {}).get(given.target_file, {})
    first, last = given.body
    body = {n for n in coverage.get("executed_lines", ()) if first <= n <= last}
    # A body that never ran at all did not run "only at import": with every line claimed
    # unreachable, a test that never calls the target reached a human this way instead of
    # FAILing as a pseudo-test (red team 4, finding 01). The extreme mutants judge it.
    return bool(body) and not body - given.trusted_lines


def _null_name(seed: str) -> str:
    """A fresh local's name from the secret seed, in one of several styles (no fixed pattern)."""
    styles = ("_{}", "_tmp_{}", "v{}", "_{}_", "cache_{}")
    number = int(seed[16:24], 16)
    return styles[number % len(styles)].format(seed[17:17 + 3 + number % 6])


def _generate(given: StageInput, spec: MutationSpec) -> Generated:
    covered = set((given.measured.coverage or {}).get(given.target_file, {})
                  .get("executed_lines", ()))
    return generate(given.source, given.filename, given.def_line, module_code=given.module,
                    covered=covered, max_mutants=spec.max_mutants,
                    zero_types=given.measured.types, null_name=_null_name(given.seed),
                    null_shape=int(given.seed[24:32], 16))


def _control(ran: Ran, measured: RunReport) -> dict[str, Any]:
    """A clean control as the run rule reads it: per-test outcomes, or what went wrong."""
    if ran.status == TIMED_OUT:
        return {"problem": f"a clean control run timed out after {ran.seconds:.1f} s"}
    if ran.status != ANSWERED or ran.report is None:
        return {"problem": "a clean control run ended without a report"}
    report = ran.report
    if report.error:
        return {"problem": f"a clean control run could not start: {report.error}"}
    by = killed_by(report)
    outcomes: dict[str, str] = {}
    for nodeid in measured.collected:
        if nodeid == by:
            outcomes[nodeid] = "failed"
            break
        outcomes[nodeid] = "passed"
    if by is not None and by not in outcomes:
        return {"outcomes": outcomes, "problem": f"a clean control run failed at {by}"}
    return {"outcomes": outcomes}


def _entry(mutant: Mutant, ran: Ran) -> dict[str, Any]:
    entry: dict[str, Any] = {**_describe(mutant), "ms": round(ran.seconds * 1000, 1)}
    if ran.status == TIMED_OUT:
        entry["outcome"] = TIMEOUT
    elif ran.status != ANSWERED or ran.report is None:
        entry["outcome"] = CRASHED
    elif ran.report.error:
        entry.update(outcome=ERROR, error=ran.report.error)
    else:
        by = killed_by(ran.report)
        entry["outcome"] = KILLED if by else SURVIVED
        if by:
            entry["by"] = by
    return entry


def _describe(mutant: Mutant) -> dict[str, Any]:
    return {"kind": mutant.kind, "line": mutant.line, "description": mutant.description}


def _event(given: StageInput, base: dict[str, Any], made: Generated | None,
           mutants: list[tuple[str, Mutant]], outcomes: dict[str, dict[str, Any]],
           labels: list[str], controls: int, timeout: float) -> dict[str, Any]:
    data: dict[str, Any] = {**base, "mode": "fork", "install": given.install,
                            "budget": round(given.budget, 1), "seed": given.seed[:16],
                            "order": labels, "controls": controls,
                            "timeout": round(timeout, 3),
                            "clean_seconds": round(given.measured_seconds, 4),
                            "zero_types": list(given.measured.types),
                            "calls": given.measured.calls}
    if made is None:
        return data
    data.update(candidates=made.candidates, equivalent=made.equivalent,
                extreme_equivalent=made.extreme_equivalent, incompatible=made.incompatible)
    null = outcomes.get("N")
    if null is None:
        # Not our fault: the runs took what the test took (red team 2, 04). The rule FAILs it.
        due = set(labels)  # stopped classic mutants were not due
        data["not_run"] = sum(1 for label, _ in mutants if label in due and label not in outcomes)
        return data
    if null["outcome"] == ERROR:
        data["error"] = f"MutationError: the null mutant could not be installed: {null['error']}"
        return data
    data["null"] = null
    if _import_time_only(given):
        # Covered, yet never called while the run imported and ran the tests: the body
        # ran only before any mutant could be installed (a conftest imported the
        # module in the judge). No mutant can reach it, so none is run and the rule
        # asks a human (the null mutant above still catches detectors).
        data.update(import_time_only=True, extreme=[], classic=[], not_run=0)
        return data
    data["extreme"] = [outcomes[f"E{i}"] for i in range(len(made.extreme)) if f"E{i}" in outcomes]
    data["classic"] = [outcomes[f"K{i}"] for i in range(len(made.classic)) if f"K{i}" in outcomes]
    scheduled = set(labels)  # stopped classic mutants are not in it: they were not due
    data["not_run"] = sum(1 for label, _ in mutants
                          if label != "N" and label in scheduled and label not in outcomes)
    return data
