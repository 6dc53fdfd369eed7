"""The schedule: the measured run, clean controls and mutants, in an order no test can guess.

Pure orchestration: which runs, in which order, with what time limits, and
what each outcome means. The runs themselves are the harness's business and
are reached through the :class:`Runs` protocol (each run is one forked child
that installs a module code object, collects the test file and runs it; see
docs/mutation.md). The mutants come from :mod:`pytest_quest.mutants`.

Every run of the first schedule looks the same from inside: the target
installed the same way, nothing measuring, the same limits, a fresh private
temp dir. The first clean run the gate judges (``M``) is one of them, at a
secret place (:func:`_order`), with the other clean controls scattered
through the rest. A run that relays its answers to later runs through
something the machine shares (the page cache, a kernel counter) cannot know
whether the answers it finds were the shipped function's: ``M`` shares the
first wave with mutants only, and the page cache is emptied between waves
(:class:`StageInput` ``wave``); without waves the first run is a mutant and
``M`` among the first few (red teams 15 and 16). The **measuring
run** (coverage, the recorder, every test with full reports) comes after
every classic mutant has run, so whatever it leaves behind reaches only runs
a relay cannot fool (the extreme mutants, the reach checks). The order is
shuffled by a seed the test cannot compute
(:mod:`pytest_quest.schedule`), so the same submission on the same files
gets the same schedule (recorded in the event), and a test that fails a
control is FAIL.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_quest.measure import measure
from pytest_quest.mutants import (
    ZERO_TYPES,
    Generated,
    Mutant,
    MutationError,
    generate,
    null_probe,
    reach_mutants,
)
from pytest_quest.protocol import CTYPES_LOADED, MutationSpec, RunReport, Tampering
from pytest_quest.recorder import MAX_TYPES
from pytest_quest.selection import item_key

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
    #: Seconds the run may take; None: decided once the first judged clean run has ended
    #: (:meth:`Runs.run`'s ``later``), until then the run is not cut short.
    timeout: float | None
    #: The measuring run: coverage and the recorder on, every test run with pytest's full
    #: failure reports. It comes after the first schedule (see the module's docstring).
    measure: bool = False
    #: It installs the shipped module (``M``, a control, the measuring run): the runs whose
    #: answers a relay would pass on (:mod:`pytest_quest.gaps`).
    clean: bool = False
    #: Tests (:func:`pytest_quest.selection.item_key`) the run leaves out: the same for every
    #: run of a schedule.
    deselect: frozenset[str] = frozenset()
    #: Tests whose calls the measuring run's recorder does not listen to: those the first
    #: schedule that counts left out (on 3.11 its profile hook slows every call it hears).
    unrecorded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Ran:
    """How one run ended and what it answered (``report`` only when ``status`` is answered)."""

    status: str
    seconds: float
    report: RunReport | None = None
    tampered: Tampering | None = None
    #: What the run's hooks wrote as they saw it (reads of the target, denied calls), kept
    #: when the run died or timed out before its answer: dying cannot unsay them.
    found: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def reads(self) -> tuple[str, ...]:
        """The reads of the target it answered, or its hooks wrote before it died."""
        return self.report.reads if self.report is not None else self.found.get("reads", ())

    def denied(self) -> tuple[str, ...]:
        """The calls the sandbox denied it, answered or written before it died."""
        return self.report.denied if self.report is not None else self.found.get("denied", ())


#: Asked before each request starts: ``skip(index, results so far)`` (None: not finished).
Skip = Callable[[int, Sequence[Ran | None]], bool]
#: Told as each run ends, in the order they end: ``finished(index, ran)``.
Finished = Callable[[int, Ran], None]
#: The time limit of requests without one, once known (None: not yet).
Later = Callable[[], float | None]
#: The judge's reading of the measuring run: the report the stage goes on with, or None when
#: the run gave none the gate can judge (tampered, died, could not start; the judge said why).
Measured = Callable[[Ran], RunReport | None]
#: Told once the first judged clean run has passed (the gate's first time limit is for it).
Passed = Callable[[], None]


class Runs(Protocol):
    """The harness side of the stage: it runs requests, each in its own fresh child."""

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: Skip | None = None, finished: Finished | None = None,
            later: Later | None = None) -> list[Ran | None]:
        """One result per request, in order; None for requests not started by ``deadline``.

        Requests are started in order; one for which ``skip`` says True is not
        started (None), which lets the stage stop once its verdict is decided.
        A request without a timeout runs until ``later`` gives one (from its
        start); meanwhile it does not hold back the runs after it for long.
        """
        ...


@dataclass(frozen=True)
class StageInput:
    """What the judge knows before any run; ``measured`` is filled in by the measuring run."""

    source: str
    filename: str
    def_line: int
    module: types.CodeType = field(repr=False)
    target_file: str
    body: tuple[int, int]
    branch: bool
    reruns: int
    budget: float
    seed: str
    mutation: MutationSpec | None
    #: The body's statements as coverage.py's static analysis finds them: classic mutants go
    #: there before any run (None: every line). With the body fully covered (else no mutant
    #: is judged) that is what the measured run's coverage says too.
    statements: frozenset[int] | None = None
    #: Runs start in waves of this many, the page cache emptied between waves (0: no waves,
    #: the runs' marks outlive them). Decides where ``M`` may stand (:func:`_order`).
    wave: int = 0
    measured: RunReport | None = None
    measured_seconds: float = 0.0
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
    #: Test functions that cannot reach the target (:mod:`pytest_quest.selection`): the
    #: first schedule leaves them out, and runs again with them when it does not pass cleanly.
    deselect: frozenset[str] = frozenset()

    @property
    def report(self) -> RunReport:
        """The measuring run's report (only asked for once it has ended)."""
        assert self.measured is not None
        return self.measured


@dataclass
class Stage:
    """The stage's outcome: the measured run, one entry per clean control, the mutation event."""

    #: The measuring run's report as the judge read it (None: none to judge).
    measured: RunReport | None = None
    #: Seconds the first judged clean run took (every run's time limit comes from it).
    measured_seconds: float = 0.0
    #: That run has ended (whatever it answered).
    measured_ended: bool = False
    #: It failed: the runs after it in the first schedule were dropped.
    cut_short: bool = False
    controls: list[dict[str, Any]] = field(default_factory=list)
    mutation: dict[str, Any] | None = None
    tampered: Tampering | None = None
    #: What any run after the measured one reported reading of the target's code, or the
    #: sandbox refused it: judged like the measured run's (red team 2, finding 09).
    reads: list[str] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)
    #: Tests the first schedule that counts left out (:attr:`StageInput.deselect`); empty when
    #: it ran every test.
    deselected: frozenset[str] = frozenset()
    #: Why the first schedule ran again with every test (None: it did not).
    whole_file: str | None = None
    #: Seconds the measuring run took, when the first schedule left tests out: the runs after
    #: it run every test, and their time limit comes from it (:data:`WHOLE_FACTOR`).
    whole_seconds: float = 0.0
    #: Seconds added to the budget: what a first schedule run again took the first time.
    extra_budget: float = 0.0
    #: Extreme mutants and reach checks that ran again with every test after the selected
    #: tests (:func:`_after_measuring`).
    again: list[str] = field(default_factory=list)


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
    report = given.report
    if not report.collected:
        return "no tests were collected"
    if killed_by(report) or any(
            r.get("outcome") != "passed" for r in report.reports):
        return "the measured run failed"
    if report.denied or report.denied_early:
        return "the test broke the sandbox rules"
    if report.reads:
        return "the test loaded ctypes" if all(r.endswith(CTYPES_LOADED) for r in report.reads) \
            else "the test read the code under test"
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


#: The last place the first judged clean run (``M``) may take in the first schedule (from 0).
#: Never 0: a clean first run handed its answers to every later one through the machine's page
#: cache with no tell at all (red team 15, finding 04). Not far either: the runs before it have
#: no time limit yet, and an honest test's first round must fit the gate's first time limit.
MEASURED_LAST_PLACE = 4


def run_stage(runs: Runs, given: StageInput, measured: Measured,
              passed: Passed | None = None) -> Stage:
    """Plan, shuffle and run the controls and mutants, then measure; never raise.

    The classic mutants and the null mutant are planned before any run
    (:attr:`StageInput.statements`), so the first judged clean run can
    stand among them, all alike. Its time sets every time limit; when it
    fails, the runs not yet started are dropped. Then the measuring run
    (``measured`` reads it), then the extreme mutants, which need the types
    it recorded, and the reach checks. A failure of the machinery becomes an
    ``error`` in the mutation event, which the rule turns into REVIEW: the
    gate must not FAIL a test for our fault.
    """
    started = time.monotonic()
    stage = Stage()
    spec = given.mutation
    base: dict[str, Any] = {}
    if spec is not None:
        base = {"threshold": float(spec.threshold), "max_mutants": int(spec.max_mutants)}
    made, mutants = _plan(given, spec, base)
    rng = random.Random(int(given.seed[:16], 16))
    labels, results = _clean_runs_and_mutants(runs, stage, given, mutants, rng, measured,
                                              passed, started)
    report = stage.measured
    if report is None:
        return stage
    timeout = _timeout(stage.measured_seconds)
    if stage.whole_seconds:
        timeout = max(timeout, WHOLE_FACTOR * stage.whole_seconds)
    given = dataclasses.replace(given, measured=report,
                                measured_seconds=stage.whole_seconds or stage.measured_seconds,
                                budget=given.budget + stage.extra_budget)
    outcomes = _collect(stage, labels, results, dict(mutants), given, stage.deselected)
    reason = _why_no_verdict(stage, given)
    if spec is None:
        # No mutation testing, yet the coverage is still the run's own answer: it is checked
        # all the same, or `mutation = false` turned forged coverage into a PASS (red team 6,
        # finding 05).
        if stage.tampered is None and reason is None:
            _coverage_only(runs, stage, given, rng, timeout, started)
        return stage
    if reason is not None:
        stage.mutation = {**base, "skipped": reason}
        return stage
    labels, results, mutants = _set_aside(labels, results, mutants, outcomes, report,
                                          given.target_file)
    extreme: list[tuple[str, Mutant]] = []
    if made is not None and not _import_time_only(given):
        try:
            made = _with_extremes(made, given)
        except (MutationError, SyntaxError, ValueError) as exc:  # pragma: no cover - the
            base["error"] = f"{type(exc).__name__}: {exc}"        # first plan compiled
        else:
            extreme = [(f"E{i}", m) for i, m in enumerate(made.extreme)]
    cut = decided_at(labels, results, dict(mutants), spec.threshold)
    stopped = {label for index, label in enumerate(labels)
               if cut is not None and index > cut and label.startswith("K")}
    for label in stopped:  # one already under way when the score passed is left out too
        outcomes.pop(label, None)
    ran_labels = [label for label in labels if label not in stopped]
    deadline = started + given.budget
    # Both install modes, every claimed line and arc: what a conftest ran in the judge is not
    # what the test ran, so it proves nothing the answer claims (red team 6, finding 04); an
    # import-time-only body is checked too, as that claim is the answer's own.
    reach = made is not None and stage.tampered is None and \
        outcomes.get("N", {}).get("outcome") == SURVIVED
    if extreme and not reach:
        # No control beside them when every test runs: after the measuring run a relay knows
        # the shipped answers anyway, and an extreme mutant dies by any test that checks a
        # value. With tests left out, one: the runs of every test that follow must not be
        # told apart by being the only ones (red team 69).
        clean = ["C"] if stage.deselected else []
        outcomes.update(_after_measuring(runs, stage, _shuffled(
            [*clean, *(e for e, _ in extreme)], rng), dict(extreme), given, timeout, deadline,
            ran_labels, rng))
    stage.mutation = _event(given, base, made, [*mutants, *extreme], outcomes, ran_labels,
                            len(stage.controls), timeout)
    stage.mutation["stopped"] = len(stopped)
    if given.deselect:
        # Tests (items) the first schedule left out, as the measuring run collected them.
        stage.mutation["left_out"] = sum(1 for nodeid in report.collected
                                         if item_key(nodeid) in given.deselect)
        if stage.whole_file is not None:
            stage.mutation["whole_file"] = stage.whole_file
    if reach:  # the extreme mutants in the same schedule: one wait for a wave less
        _reach_phase(runs, stage, given, outcomes, rng, timeout, deadline, extra=dict(extreme))
    if stage.again:
        stage.mutation["again"] = stage.again
    # The budget left no room for them: the pseudo-testing check is not made.
    extreme_not_run = sum(1 for label, _ in extreme if label not in outcomes)
    if extreme_not_run:
        stage.mutation["extreme_not_run"] = extreme_not_run
    stage.mutation["seconds"] = round(time.monotonic() - started, 3)
    return stage


def _plan(given: StageInput, spec: MutationSpec | None, base: dict[str, Any]
          ) -> tuple[Generated | None, list[tuple[str, Mutant]]]:
    """The null and classic mutants by label; a generation fault goes into ``base``."""
    if spec is None:
        return None, []
    try:
        made = _generate(given, spec)
    except (MutationError, SyntaxError, ValueError) as exc:
        base["error"] = f"{type(exc).__name__}: {exc}"
        return None, []
    return made, [("N", made.null), *((f"K{i}", m) for i, m in enumerate(made.classic))]


def _clean_runs_and_mutants(runs: Runs, stage: Stage, given: StageInput,
                            mutants: list[tuple[str, Mutant]], rng: random.Random,
                            measured: Measured, passed: Passed | None, started: float
                            ) -> tuple[list[str], list[Ran | None]]:
    """The first schedule and the measuring run (``stage.measured``); its labels and results.

    With no mutant a relay could fool, the measuring run comes first and
    its time sets the controls' limits.
    """
    # One clean run per six mutants at least: a test that tells runs apart by shared state
    # (a counter file, the clock) must guess which runs are clean, and fails one. With
    # mutants, M is one of them: the measuring run makes up the clean runs ``reruns`` asks.
    controls = max(given.reruns - 1, math.ceil(len(mutants) / 6) if mutants else 0)
    # Not ``clean`` for the pauses between waves: what its time could tell reaches no run a
    # relay could fool (it comes after every classic mutant), and traced it is the slowest run.
    measuring = RunRequest(given.module, math.inf, measure=True)
    if mutants:
        planned = ["M", *["C"] * (controls - 1), *(label for label, _ in mutants)]
        labels = _order(list(planned), rng, given.wave)
        stage.deselected = given.deselect
        results = _first_schedule(runs, stage, given, labels, dict(mutants), passed,
                                  started + given.budget)
        if given.deselect:
            stage.whole_file = _not_clean(stage, labels, results, dict(mutants), given)
        if stage.whole_file is not None:
            # Left-out tests may be what the schedule lacked (a call through another module, a
            # test that needs one before it): every test, a schedule of its own. What no order
            # of tests explains (a read of the target, tampering) ended the first for good.
            # It gets back the time the first one took (up to half the budget: the gate's own
            # limit for the whole run is twice the budget), or a slow honest file would pay
            # for our guess with mutation-too-slow (red team 67).
            stage.extra_budget = min(time.monotonic() - started, given.budget / 2)
            stage.deselected = frozenset()
            stage.measured_ended = stage.cut_short = False
            labels = _order(list(planned), rng, given.wave)
            results = _first_schedule(runs, stage, given, labels, dict(mutants), passed,
                                      started + given.budget + stage.extra_budget)
        # What the measuring run leaves behind (it is told apart easily) reaches no classic
        # mutant: they have all run.
        (ran,) = runs.run([dataclasses.replace(measuring, unrecorded=stage.deselected)],
                          math.inf)
        stage.measured = None if ran is None else measured(ran)
        if ran is not None and stage.deselected:
            # The runs after it run every test: their time limit comes from a run of them all.
            stage.whole_seconds = ran.seconds
        return labels, results
    (ran,) = runs.run([measuring], math.inf)
    report = stage.measured = None if ran is None else measured(ran)
    stage.measured_ended, stage.measured_seconds = True, ran.seconds if ran else 0.0
    if report is None or killed_by(report):
        return [], []
    labels = ["C"] * controls
    return labels, runs.run([RunRequest(given.module, _timeout(stage.measured_seconds),
                                        clean=True)] *
                            len(labels), time.monotonic() + given.budget) if labels else []


def _not_clean(stage: Stage, labels: Sequence[str], results: Sequence[Ran | None],
               by_label: dict[str, Mutant], given: StageInput) -> str | None:
    """Why a first schedule of the selected tests does not stand (None: it does).

    It stands when it passed cleanly (``M`` and every control passed, the score passed)
    and when a run broke a rule no order of tests explains (tampering, a read of the
    target): every test cannot undo that. Else it runs again with every test, as if no test
    had been left out, and only that one counts. A denied call is not final here: a
    left-out test may be what made a kept one behave (red team 68: it set the folder a
    report goes to), and the schedule with every test is judged by the same sandbox.
    """
    for ran in results:
        if ran is not None and (ran.status == TAMPERED or bool(ran.reads())):
            return None
    if any(ran is not None and ran.denied() for ran in results):
        return "the sandbox denied a call with the selected tests"
    if stage.cut_short:
        return "the first judged clean run failed with the selected tests"
    if any(label == "N" and ran is not None and _entry(by_label[label], ran)["outcome"] != SURVIVED
           for label, ran in zip(labels, results, strict=True)):
        # A kept test that needs a left-out one (a seed it sets) fails at random: in the
        # null mutant's run as in a control's (red team 69).
        return "the null mutant was killed with the selected tests"
    if any(label in ("M", "C") and ran is not None and _clean_failed(ran)
           for label, ran in zip(labels, results, strict=True)):
        return "a clean control failed with the selected tests"
    threshold = given.mutation.threshold if given.mutation is not None else None
    if threshold is not None and decided_at(labels, results, by_label, threshold) is None:
        return "the selected tests did not kill enough classic mutants"
    return None


def _clean_failed(ran: Ran) -> bool:
    """A clean run did not pass: no answer, a start error, or a test that failed."""
    return ran.status != ANSWERED or ran.report is None or bool(ran.report.error) or \
        killed_by(ran.report) is not None


def _why_no_verdict(stage: Stage, given: StageInput) -> str | None:
    """Why no mutant is judged: a failed or flaky test, or :func:`_skip_reason`."""
    report = given.report
    if killed_by(report) or not report.collected:
        return "the measured run failed"
    if stage.cut_short:
        # The first judged clean run failed and the measuring run passed: a flaky test (that
        # control says so), and the schedule was cut short: no mutant verdict to read.
        return "a clean control run failed"
    return _skip_reason(given)


def _set_aside(labels: list[str], results: list[Ran | None], mutants: list[tuple[str, Mutant]],
               outcomes: dict[str, dict[str, Any]], report: RunReport, target_file: str
               ) -> tuple[list[str], list[Ran | None], list[tuple[str, Mutant]]]:
    """Classic mutants on lines the measuring run did not run (a line claimed unreachable):
    planned on every statement, they prove nothing either way and are left out."""
    ran_lines = set((report.coverage or {}).get(target_file, {}).get("executed_lines", ()))
    aside = {label for label, mutant in mutants
             if label.startswith("K") and mutant.line not in ran_lines}
    if not aside:
        return labels, results, mutants
    for label in aside:
        outcomes.pop(label, None)
    kept = [(label, ran) for label, ran in zip(labels, results, strict=True)
            if label not in aside]
    return ([label for label, _ in kept], [ran for _, ran in kept],
            [(label, mutant) for label, mutant in mutants if label not in aside])


#: The time limit of a run of every test after a first schedule that left tests out, as a
#: multiple of the measuring run's time. Traced, a run takes longer; alone, it had both
#: cores, and a test using both takes twice as long beside another run (red team 68 timed a
#: control out at twice): three times leaves half again for the machine's noise.
WHOLE_FACTOR = 3.0


def _timeout(measured_seconds: float) -> float:
    """Every run's time limit once the measured run's time is known."""
    return max(2.0, 10 * measured_seconds)


def _order(labels: list[str], rng: random.Random, wave: int = 0) -> list[str]:
    """The first schedule: shuffled, a mutant first, ``M`` in places 1 to 4.

    In waves (``wave`` runs each, the page cache emptied between them) ``M``
    goes in the first wave, at any place, beside mutants only: its answers
    reach no run after that wave. With nothing but clean runs there is
    nothing to hide among: ``M`` comes first.
    """
    rest = _shuffled([label for label in labels if label != "M"], rng)
    mutants = [index for index, label in enumerate(rest) if label != "C"]
    if not mutants:
        return ["M", *rest]
    if wave:
        for place in range(min(wave - 1, len(mutants))):  # mutants beside it
            rest.insert(place, rest.pop(mutants[place]))
        rest.insert(rng.randint(0, min(wave - 1, len(mutants))), "M")
        return rest
    rest.insert(0, rest.pop(mutants[0]))
    rest.insert(rng.randint(1, min(MEASURED_LAST_PLACE, len(rest))), "M")
    return rest


def _shuffled(labels: list[str], rng: random.Random) -> list[str]:
    rng.shuffle(labels)
    return labels


def _first_schedule(runs: Runs, stage: Stage, given: StageInput, labels: list[str],
                    by_label: dict[str, Mutant], passed: Passed | None, deadline: float
                    ) -> list[Ran | None]:
    """Run the first judged clean run ``M`` among the controls, the null and classic mutants.

    ``M`` is a control like the others; only its time and its end matter
    more. Until it has ended no run is skipped and none has a time limit
    (its time sets them). Then a failed ``M`` drops every run not yet
    started; else classic mutants stop once the score has passed
    (:func:`decided_at`).
    """
    threshold = given.mutation.threshold if given.mutation is not None else None

    def finished(index: int, ran: Ran) -> None:
        if labels[index] != "M":
            return
        stage.measured_ended = True
        stage.measured_seconds = ran.seconds
        if _clean_failed(ran) or ran.report is None or not ran.report.collected:
            stage.cut_short = True
        elif passed is not None:
            passed()

    def skip(index: int, results: Sequence[Ran | None]) -> bool:
        if not stage.measured_ended:
            return False
        if stage.cut_short:
            return True
        if threshold is None:
            return False
        if stage.deselected and cannot_pass(labels, results, by_label, threshold):
            return True  # it will run again with every test: nothing more to learn here
        if not labels[index].startswith("K"):
            return False
        cut = decided_at(labels, results, by_label, threshold)
        return cut is not None and index > cut

    left_out = stage.deselected
    pristine = RunRequest(given.module, None, clean=True, deselect=left_out)
    requests = [pristine if label in ("M", "C") else
                RunRequest(by_label[label].code, None, deselect=left_out) for label in labels]
    return runs.run(requests, deadline, skip, finished, lambda: _timeout(
        stage.measured_seconds) if stage.measured_ended else None)


def _collect(stage: Stage, labels: Sequence[str], results: Sequence[Ran | None],
             by_label: dict[str, Mutant], given: StageInput,
             deselected: frozenset[str] = frozenset()) -> dict[str, dict[str, Any]]:
    """Controls go to ``stage``, mutant entries are returned; runs not started are left out."""
    outcomes: dict[str, dict[str, Any]] = {}
    for label, ran in zip(labels, results, strict=True):
        if ran is None:
            continue
        if ran.status == TAMPERED and stage.tampered is None:
            stage.tampered = ran.tampered
        _gather(stage.reads, ran.reads())
        _gather(stage.denied, ran.denied())
        if label in ("M", "C"):
            stage.controls.append(_control(ran, given.report, deselected))
        else:
            outcomes[label] = _entry(by_label[label], ran)
    return outcomes


def _run_labels(runs: Runs, stage: Stage, labels: list[str], by_label: dict[str, Mutant],
                given: StageInput, timeout: float, deadline: float, order: list[str],
                deselect: frozenset[str] = frozenset()) -> dict[str, dict[str, Any]]:
    """Run one more shuffled schedule (each label once, leaving ``deselect`` out); its labels
    are appended to ``order``."""
    results = _run_phase(runs, labels, by_label, given, timeout, deadline, order, deselect)
    return _collect(stage, labels, results, by_label, given, deselect)


def _run_phase(runs: Runs, labels: list[str], by_label: dict[str, Mutant], given: StageInput,
               timeout: float, deadline: float, order: list[str],
               deselect: frozenset[str] = frozenset()) -> list[Ran | None]:
    """The runs of :func:`_run_labels`, before anything is made of them."""
    pristine = RunRequest(given.module, timeout, clean=True, deselect=deselect)
    requests = [pristine if label == "C" else
                RunRequest(by_label[label].code, timeout, deselect=deselect) for label in labels]
    results = runs.run(requests, deadline) if requests else []
    order += labels
    return results


def _after_measuring(runs: Runs, stage: Stage, labels: list[str], by_label: dict[str, Mutant],
                     given: StageInput, timeout: float, deadline: float, order: list[str],
                     rng: random.Random, twins: dict[str, str] | None = None
                     ) -> dict[str, dict[str, Any]]:
    """The extreme mutants and reach checks (``labels``, a clean control among them or not):
    with the tests the first schedule that counted left out, as it ran them, then again with
    every test where that cannot stand.

    Anything against the test there is a verdict a left-out test may undo: the selection is
    read from the files and misses a call (a name built at run time) or an order (a left-out
    test seeds what a kept one draws: red team 69). So:

    - a clean control that failed, a twin that died or a denied call (``twins``: check
      label to twin label): the phase is not clean, and every run of it goes again with every
      test, a clean control among them; only that counts;
    - else each survivor (an extreme mutant, a reach check) runs again with every test, a
      check beside its twin, and always a clean control: a test that fails every run of
      every test but the measuring one fails it (red team 69 killed a lone extreme mutant so).

    What a run tampered with or read of the target stays, whatever the tests.
    """
    left_out = stage.deselected
    if not left_out:
        return _run_labels(runs, stage, labels, by_label, given, timeout, deadline, order)
    started = time.monotonic()
    selected = Stage()
    results = _run_phase(runs, labels, by_label, given, timeout, deadline, order, left_out)
    reached = _collect(selected, labels, results, by_label, given, left_out)
    if stage.tampered is None:
        stage.tampered = selected.tampered
    _gather(stage.reads, selected.reads)
    twins = twins or {}
    clean = not selected.denied and not any(
        label == "C" and ran is not None and _clean_failed(ran)
        for label, ran in zip(labels, results, strict=True)
    ) and all(reached.get(t, {}).get("outcome", SURVIVED) == SURVIVED for t in twins.values())
    if not clean:
        stage.again += [label for label in labels if label != "C"]
        # It gets back the time the selected phase took, as a first schedule run again does,
        # all of it together up to half the budget (``given.budget`` already holds the first).
        room = (given.budget - stage.extra_budget) / 2 - stage.extra_budget
        extra = min(time.monotonic() - started, max(0.0, room))
        stage.extra_budget += extra
        return _run_labels(runs, stage, _shuffled([*labels, *([] if "C" in labels else ["C"])],
                                                  rng), by_label, given, timeout,
                           deadline + extra, order)
    stage.controls += selected.controls
    again = [label for label in labels if label[0] in "ER" and
             reached.get(label, {}).get("outcome") == SURVIVED]
    if not again:
        return reached
    for label in again:  # not run again in time: it proves nothing either way
        reached.pop(label, None)
    stage.again += again
    reached.update(_run_labels(runs, stage, _shuffled(
        [*again, *(twins[label] for label in again if label in twins), "C"], rng),
        by_label, given, timeout, deadline, order))
    return reached


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
    for index, outcome in _classic_outcomes(labels, results, by_label):
        remaining -= 1
        if outcome != ERROR:
            counted += 1
            killed += outcome in DEAD
        if killed >= threshold * (counted + remaining) - 1e-9:
            return index
    return None


def cannot_pass(labels: Sequence[str], results: Sequence[Ran | None],
                by_label: dict[str, Mutant], threshold: float) -> bool:
    """Whether the finished prefix of the schedule already fails the classic score: more
    classic mutants survived than the threshold leaves room for, even if every other one
    died (and none had a machinery error, which only lowers the score). Read like
    :func:`decided_at`, so the answer never depends on which parallel run ended first.
    """
    total = sum(1 for label in labels if label.startswith("K"))
    survived = sum(outcome == SURVIVED
                   for _, outcome in _classic_outcomes(labels, results, by_label))
    return total - survived < threshold * total - 1e-9


def _classic_outcomes(labels: Sequence[str], results: Sequence[Ran | None],
                      by_label: dict[str, Mutant]) -> Iterator[tuple[int, str]]:
    """Each classic mutant's place and outcome, in schedule order, over the prefix of runs
    that have finished (:func:`decided_at` and :func:`cannot_pass` read only that)."""
    for index, label in enumerate(labels):
        ran = results[index] if index < len(results) else None
        if ran is None:
            return
        if label.startswith("K"):
            yield index, _entry(by_label[label], ran)["outcome"]


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
                        null_shape=_null_shape(given.seed)).null
    except (MutationError, SyntaxError, ValueError):
        return  # the machinery cannot mutate this target: nothing to check with
    stage.mutation = {"threshold": 0.0, "max_mutants": 0, "reach_only": True, "mode": "fork",
                      "waves": given.wave,
                      "install": given.install, "budget": round(given.budget, 1),
                      "seed": given.seed[:16], "order": [], "controls": 0,
                      "timeout": round(timeout, 3),
                      "clean_seconds": round(given.measured_seconds, 4)}
    _reach_phase(runs, stage, given, {}, rng, timeout, started + given.budget, null)
    stage.mutation["seconds"] = round(time.monotonic() - started, 3)


def _reach_phase(runs: Runs, stage: Stage, given: StageInput,
                 outcomes: dict[str, dict[str, Any]], rng: random.Random, timeout: float,
                 deadline: float, null: Mutant | None = None,
                 extra: dict[str, Mutant] | None = None) -> None:
    """Check that the blocks the coverage data says ran really run.

    The coverage of the measured run is collected in the process the test
    runs in, so a test can add lines to it. A block is proven to run up to
    its last covered statement when a classic mutant there or after it was
    killed; for every other covered block a *reach* mutant (an ``os._exit``
    before that statement, the null mutant's probe made live) must
    die. One that survives means the block never ran although the coverage
    said so: the report was tampered with. A clean control runs with them, so
    these runs look like the others. The ``extra`` mutants (the extreme ones)
    run in the same schedule; their entries go into the event's ``extreme``.
    """
    assert stage.mutation is not None
    coverage = (given.report.coverage or {}).get(given.target_file, {})
    covered = set(coverage.get("executed_lines", ()))
    # Branch mode: the arcs are the run's claim too (red team 4, finding 04).
    arcs = {(int(a), int(b)) for a, b in coverage.get("executed_branches", ())
            } if given.branch else None
    proven = {e["line"] for label, e in outcomes.items()
              if label.startswith("K") and e["outcome"] in DEAD}
    try:
        # The null mutant's probe, live: the stop looks the same in both (red team 6, 06).
        probe = null_probe(_null_name(given.seed), _null_shape(given.seed))
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
        checks, twins = [], []
    if not checks and not extra:
        return
    if len(twins) != len(checks):  # pragma: no cover - the same inputs make the same list
        twins = []
    by_label: dict[str, Mutant] = {f"R{i}": r.mutant for i, r in enumerate(checks)}
    twin_labels: dict[str, Mutant] = {f"T{i}": t for i, t in enumerate(twins)}
    extra = extra or {}
    # With tests left out, a control even beside the extreme mutants alone (see above).
    clean = ["C"] if checks or stage.deselected else []
    labels = _shuffled([*clean, *by_label, *twin_labels, *extra,
                        *(["N"] if null is not None else [])], rng)
    order = stage.mutation["order"]
    controls = len(stage.controls)
    reached = _after_measuring(runs, stage, labels, {**by_label, **twin_labels, **extra, **(
        {"N": null} if null is not None else {})}, given, timeout, deadline, order, rng,
        twins=dict(zip(by_label, twin_labels, strict=False)))
    stage.mutation["controls"] += len(stage.controls) - controls
    if extra:
        stage.mutation["extreme"] = [reached[label] for label in extra if label in reached]
        stage.mutation["not_run"] += sum(1 for label in extra if label not in reached)
        outcomes.update({label: reached[label] for label in extra if label in reached})
    if not checks:
        return
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
    if given.install != "swap" or given.report.calls != 0:
        return False
    coverage = (given.report.coverage or {}).get(given.target_file, {})
    first, last = given.body
    body = {n for n in coverage.get("executed_lines", ()) if first <= n <= last}
    # A body that never ran at all did not run "only at import": with every line claimed
    # unreachable, a test that never calls the target reached a human this way instead of
    # FAILing as a pseudo-test (red team 4, finding 01). The extreme mutants judge it.
    return bool(body) and not body - given.trusted_lines


def _null_shape(seed: str) -> int:
    """What the null mutant (and every mutant's dead probe) stores and before which statement,
    from the secret seed: one derivation for every place that makes or matches it."""
    return int(seed[24:32], 16)


def _null_name(seed: str) -> str:
    """A fresh local's name from the secret seed, in one of several styles (no fixed pattern)."""
    styles = ("_{}", "_tmp_{}", "v{}", "_{}_", "cache_{}")
    number = int(seed[16:24], 16)
    return styles[number % len(styles)].format(seed[17:17 + 3 + number % 6])


def _generate(given: StageInput, spec: MutationSpec) -> Generated:
    """The null and classic mutants, before any run: on the body's statements."""
    covered = None if given.statements is None else set(given.statements)
    return generate(given.source, given.filename, given.def_line, module_code=given.module,
                    covered=covered, max_mutants=spec.max_mutants, extremes=False,
                    null_name=_null_name(given.seed), null_shape=_null_shape(given.seed))


def _with_extremes(made: Generated, given: StageInput) -> Generated:
    """``made`` with the extreme mutants, once the measured run has said which types the
    target returned (their zero values are tried)."""
    # No call heard although the body ran (red team 69: only in a fixture's teardown, then
    # heard; a call the recorder still misses): which type it returns is unknown, so every
    # zero is tried, or the one the checks cannot tell from the right value is never made.
    # As many types as the recorder keeps: more may have been crowded out (red team 70).
    report = given.report
    types = report.types if report.calls and len(report.types) < MAX_TYPES else ZERO_TYPES
    extra = generate(given.source, given.filename, given.def_line, module_code=given.module,
                     covered=set(), max_mutants=0, zero_types=types,
                     null_name=_null_name(given.seed), null_shape=_null_shape(given.seed))
    return dataclasses.replace(made, extreme=extra.extreme,
                               equivalent=made.equivalent + extra.equivalent,
                               extreme_equivalent=extra.extreme_equivalent,
                               incompatible=made.incompatible + extra.incompatible)


def _control(ran: Ran, measured: RunReport, deselected: frozenset[str] = frozenset()
             ) -> dict[str, Any]:
    """A clean control as the run rule reads it: per-test outcomes, or what went wrong
    (``deselected``: the tests it left out, which have no outcome in it)."""
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
        if deselected and item_key(nodeid) in deselected:
            continue
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
                            "waves": given.wave,
                            "budget": round(given.budget, 1), "seed": given.seed[:16],
                            "order": labels, "controls": controls,
                            "timeout": round(timeout, 3),
                            "clean_seconds": round(given.measured_seconds, 4),
                            "zero_types": list(given.report.types),
                            "calls": given.report.calls}
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
