"""The schedule after the measured run, against a fake :class:`Runs` that executes each module.

The fake "test" executes the module a run installs and checks two results,
so mutants die by behaviour exactly as in a real run; what the real harness
adds (forks, pipes, pytest) is covered by the sandbox tests.
"""

from __future__ import annotations

import dataclasses
import dis
import math
import os
import types
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from pytest_quest import forkrun, mutate
from pytest_quest.mutants import Mutant
from pytest_quest.mutate import Ran, RunRequest, Stage, StageInput
from pytest_quest.protocol import CTYPES_LOADED, MutationSpec, RunReport, Tampering

SOURCE = "def f(a):\n    if a > 1:\n        return a + 1\n    return 0\n"
FILE = "m.py"
NODE = "t.py::test_f"


@pytest.fixture(autouse=True)
def _exit_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reach mutant's stop is ``os._exit(70)``; here, where the fake runs execute mutants in
    this process, it raises SystemExit(70) instead (a crash, in a real run)."""
    def stop(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", stop)


def _checks(code: Any, inputs: tuple[int, ...] = (2, 1, 0)) -> str | None:
    """The fake test: exact results for ``inputs``; a stop fails it, as it crashes a run."""
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    f = namespace["f"]
    try:
        return None if all(f(a) == (a + 1 if a > 1 else 0) for a in inputs) else NODE
    except SystemExit:
        return NODE


class FakeRuns:
    """Runs each request by executing its module; ``behave`` may replace the answer."""

    def __init__(self, behave: Callable[[int, RunRequest, Ran], Ran | None] | None = None,
                 inputs: tuple[int, ...] = (2, 1, 0)) -> None:
        self.requests: list[RunRequest] = []
        #: How many requests each call of :meth:`run` had (one call: one schedule).
        self.calls: list[int] = []
        self.behave = behave
        self.inputs = inputs

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[Ran | None]:
        out: list[Ran | None] = []
        self.calls.append(len(requests))
        for number, request in enumerate(requests):
            if skip is not None and skip(number, out):
                out.append(None)
                continue
            index = len(self.requests)
            self.requests.append(request)
            ran = Ran(mutate.ANSWERED, 0.005, RunReport(
                collected=(NODE,), failed=_checks(request.module, self.inputs)))
            out.append(self.behave(index, request, ran) if self.behave else ran)
            if finished is not None and out[-1] is not None:
                finished(number, out[-1])
        return out


def run_stage(runs: mutate.Runs, given: StageInput) -> Stage:
    """The stage, with ``given.measured`` as what the judge reads of the measuring run."""
    return mutate.run_stage(runs, given, lambda ran: given.measured)


def _given(**changes: Any) -> StageInput:
    measured = RunReport(
        collected=(NODE,),
        reports=({"nodeid": NODE, "when": "call", "outcome": "passed"},),
        coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": []}},
        types=("int",), calls=3,
    )
    values: dict[str, Any] = dict(
        source=SOURCE, filename=FILE, def_line=1,
        module=compile(SOURCE, FILE, "exec", dont_inherit=True),
        measured=measured, measured_seconds=0.05, target_file=FILE, body=(2, 4), branch=False,
        reruns=3, budget=60.0, seed="5eed" * 16,
        mutation=MutationSpec(threshold=0.6, max_mutants=20),
    )
    values.update(changes)
    return StageInput(**values)


def test_a_strong_test_kills_the_mutants_and_passes_every_control() -> None:
    runs = FakeRuns()
    stage = run_stage(runs, _given())
    event = stage.mutation
    assert event is not None and stage.tampered is None
    assert event["null"]["outcome"] == "survived"
    assert all(e["outcome"] == "killed" for e in event["extreme"])
    assert event["classic"] and event["not_run"] == 0
    assert len(stage.controls) == event["controls"] >= 2
    assert all(c == {"outcomes": {NODE: "passed"}} for c in stage.controls)
    assert _clean(event["order"]) == event["controls"]
    assert len(runs.requests) == len(event["order"]) + 1  # and the measuring run
    # The first schedule: a mutant first, the first judged clean run in places 1 to 4, no run
    # measuring, none with a time limit yet (the first clean run's time sets them).
    measuring = [i for i, r in enumerate(runs.requests) if r.measure]
    first = runs.requests[:measuring[0]]
    assert len(measuring) == 1 and all(r.timeout is None for r in first)
    assert event["order"][0] not in ("M", "C") and 1 <= event["order"].index("M") <= 4
    assert len(first) == event["order"].index("E0")  # the extreme mutants come after it
    assert {r.timeout for r in runs.requests[measuring[0] + 1:]} == {2.0}


def _clean(order: list[str]) -> int:
    """Clean runs in a schedule: the first judged one (M) and the controls (C)."""
    return order.count("M") + order.count("C")


def test_the_first_run_is_never_clean_whatever_the_seed() -> None:
    for seed in range(40):
        order = mutate._order(["M", "C", "C", "N", "K0", "K1", "K2"], mutate.random.Random(seed))
        assert order[0] not in ("M", "C") and 1 <= order.index("M") <= 4
        assert sorted(order) == sorted(["M", "C", "C", "N", "K0", "K1", "K2"])
    # With nothing to hide among, the first judged clean run comes first.
    assert mutate._order(["M", "C"], mutate.random.Random(0)) == ["M", "C"]


def test_in_waves_the_first_clean_run_shares_the_first_wave_with_mutants_only() -> None:
    places = set()
    for seed in range(40):
        order = mutate._order(["M", "C", "C", "N", "K0", "K1", "K2"], mutate.random.Random(seed),
                              wave=2)
        assert "M" in order[:2] and "C" not in order[:2]
        assert sorted(order) == sorted(["M", "C", "C", "N", "K0", "K1", "K2"])
        places.add(order.index("M"))
    assert places == {0, 1}  # which of the two starts first says nothing


@pytest.mark.parametrize(("controls", "mutants", "bound"), [(3, 13, 0.001), (2, 6, 0.04)])
def test_within_a_wave_a_clean_run_nearly_always_has_a_mutant_beside_it(
        controls: int, mutants: int, bound: float) -> None:
    """The two runs of a wave see each other's page-cache marks. Neither can tell which answer
    set is the shipped one, so a relay's only rule is "fail when my partner answered otherwise";
    it passes only when every clean run's partner is clean too, or the null mutant (which
    answers as the shipped function does). The shuffle makes that rare (docs/security.md)."""
    labels = ["M", *["C"] * controls, "N", *[f"K{i}" for i in range(mutants)]]
    twins = {"M", "C", "N"}
    lucky = 0
    for seed in range(2000):
        order = mutate._order(list(labels), mutate.random.Random(seed), wave=2)
        waves = [order[i:i + 2] for i in range(0, len(order), 2)]
        lucky += all(set(wave) <= twins for wave in waves if set(wave) & {"M", "C"})
    assert lucky / 2000 <= bound
    assert forkrun._parallel() <= 2  # no wave of three, where a majority could vote


def test_blocks_proven_by_killed_mutants_need_no_reach_check() -> None:
    event = run_stage(FakeRuns(), _given()).mutation
    assert event is not None and "reach" not in event
    assert not any(label.startswith("R") for label in event["order"])


def test_coverage_the_test_wrote_itself_is_caught_by_a_reach_check() -> None:
    # The test only ever calls f(0), yet the coverage data claims every line ran.
    runs = FakeRuns(inputs=(0,))
    stage = run_stage(runs, _given())
    assert stage.tampered is not None
    assert stage.tampered.where == "the coverage of m.py:3"
    assert stage.tampered.actual.startswith("that run passed: the line never ran")
    assert stage.mutation is not None
    assert [e["outcome"] for e in stage.mutation["reach"]] == ["survived"]
    assert _clean(stage.mutation["order"]) == stage.mutation["controls"]
    # Three schedules: the first, the measuring run, then the extreme mutants together with
    # the reach checks, their twins and a control (one wait between waves less).
    assert len(runs.calls) == 3 and runs.calls[2] == len(stage.mutation["extreme"]) + 3
    # `return 0` survives f(0) alone; so do its returns all giving 0 (the rest kept)
    assert len(stage.mutation["extreme"]) == 3


def _loads_local(instruction: dis.Instruction, code: Any) -> bool:
    """Loads a local that is not an argument (3.13 fuses the probe's store and load)."""
    if instruction.opname not in ("LOAD_FAST", "LOAD_FAST_CHECK", "STORE_FAST_LOAD_FAST"):
        return False
    names = instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
    return names[-1] not in code.co_varnames[:code.co_argcount]


def _is_reach(request: RunRequest) -> bool:
    """A live probe (``if name == value: os._exit(70)``): the null mutant's says ``!=``."""
    namespace: dict[str, Any] = {}
    exec(request.module, namespace)
    return _live_probe(namespace["f"].__code__)


def _live_probe(code: Any) -> bool:
    ops = list(dis.get_instructions(code))
    if "_exit" in code.co_names and any(
            _loads_local(a, code) and c.opname == "COMPARE_OP"
            and c.argrepr in ("==", "bool(==)")  # 3.13 says bool(==)
            for a, c in zip(ops, ops[2:], strict=False)):
        return True
    return any(_live_probe(c) for c in code.co_consts if isinstance(c, types.CodeType))


def test_forged_coverage_is_caught_in_swap_mode_too() -> None:
    # Red team 2, finding 10: a run claimed "swapped" to turn the reach check off. The judge
    # decides the mode itself now, and checks in both.
    stage = run_stage(FakeRuns(inputs=(0,)), _given(install="swap"))
    assert stage.tampered is not None
    assert stage.tampered.where == "the coverage of m.py:3"


def test_lines_the_judge_saw_run_before_the_fork_are_reach_checked_too() -> None:
    # Red team 6, finding 04: a conftest called f at import and ran line 3 in the judge; the
    # test never runs it and its answer lists it. That line was taken on trust (and, in
    # branch mode, every arc from it), so forged coverage of it locked PASS; and a forged
    # call count of 0 with only such lines bought a REVIEW. The judge's data is not in the
    # measured run's coverage: every line and arc the answer lists is checked.
    stage = run_stage(FakeRuns(inputs=(0,)), _given(install="swap",
                                                   trusted_lines=frozenset({3})))
    assert stage.tampered is not None and stage.tampered.where == "the coverage of m.py:3"
    given = _given()
    measured = RunReport(**{**vars(given.measured), "calls": 0})
    stage = run_stage(FakeRuns(inputs=(0,)), _given(measured=measured, install="swap",
                                                   trusted_lines=frozenset({2, 3, 4})))
    assert stage.mutation is not None and stage.mutation["import_time_only"] is True
    assert stage.tampered is not None and stage.tampered.where == "the coverage of m.py:3"
    # A test that runs the line itself passes its check, swap mode or not.
    stage = run_stage(FakeRuns(), _given(install="swap", trusted_lines=frozenset({3})))
    assert stage.tampered is None and stage.mutation is not None


def test_a_block_that_runs_passes_its_reach_check() -> None:
    # A weak test: no classic mutant dies, so no block is proven; every reach check must
    # then die, and does, because the test calls f(2) and f(0).
    module = compile(SOURCE, FILE, "exec", dont_inherit=True)

    def weak(index: int, request: RunRequest, ran: Ran) -> Ran:
        if request.module is module or _is_reach(request):
            return ran
        return Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,)))

    stage = run_stage(FakeRuns(weak, inputs=(2, 0)), _given(module=module))
    assert stage.tampered is None and stage.mutation is not None
    assert [e["outcome"] for e in stage.mutation["reach"]] == ["killed", "killed"]
    # The body's stop goes before its last covered statement (line 4), the branch's at line 3.
    assert [e["line"] for e in stage.mutation["reach"]] == [4, 3]


def test_the_order_is_seeded_by_the_submission() -> None:
    first = run_stage(FakeRuns(), _given()).mutation
    again = run_stage(FakeRuns(), _given()).mutation
    other = run_stage(FakeRuns(), _given(seed="0be5" * 16)).mutation
    assert first is not None and again is not None and other is not None
    assert first["order"] == again["order"] and first["seed"] == again["seed"]
    assert other["order"] != first["order"]
    # The same runs but for the classic mutants the score was decided without.
    def planned(event: dict[str, Any]) -> list[str]:
        return sorted(label for label in event["order"] if not label.startswith("K"))

    assert planned(other) == planned(first)
    assert (sum(label.startswith("K") for label in other["order"]) + other["stopped"]
            == sum(label.startswith("K") for label in first["order"]) + first["stopped"])


def test_classic_mutants_stop_once_the_score_passes_whatever_the_rest_do() -> None:
    runs = FakeRuns()
    event = run_stage(runs, _given()).mutation
    assert event is not None
    ran = [label for label in event["order"] if label.startswith("K")]
    # 11 classic mutants, threshold 0.6: the 7th kill passes even if the other 4 survived.
    assert len(ran) == 7 and event["stopped"] == 4
    assert [e["outcome"] for e in event["classic"]] == ["killed"] * 7
    assert len(runs.requests) == len(event["order"]) + 1  # the stopped ones never started
    # Controls, the null and the extreme mutants all still run.
    assert _clean(event["order"]) == event["controls"] == 2  # and the measuring run: reruns
    assert {"N", "E0", "E1"} <= set(event["order"]) and event["not_run"] == 0


def test_a_failing_score_runs_every_classic_mutant() -> None:
    # Only f(2) is checked: most mutants survive, and the FAIL names every survivor.
    event = run_stage(FakeRuns(inputs=(2,)), _given()).mutation
    assert event is not None and event["stopped"] == 0
    assert len(event["classic"]) == 11
    assert sum(e["outcome"] == "survived" for e in event["classic"]) == 5


class Pairs(FakeRuns):
    """Two runs at a time: the second starts before the first has answered, as in the harness."""

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[Ran | None]:
        out: list[Ran | None] = [None] * len(requests)
        for start in range(0, len(requests), 2):
            pair = [i for i in (start, start + 1) if i < len(requests)]
            started = [i for i in pair if skip is None or not skip(i, out)]
            for i in started:  # both answer only once both were started
                out[i] = super().run([requests[i]], deadline)[0]
            for i in started:
                ran = out[i]
                if finished is not None and ran is not None:
                    finished(i, ran)
        return out


def test_the_stop_does_not_depend_on_runs_finishing_in_parallel() -> None:
    serial = run_stage(FakeRuns(), _given()).mutation
    runs = Pairs()
    parallel = run_stage(runs, _given()).mutation
    assert serial is not None and parallel is not None
    for key in ("order", "classic", "extreme", "null", "stopped", "not_run"):
        assert parallel[key] == serial[key]
    # The measuring run, and maybe a classic mutant already under way when the score passed:
    # it is left out.
    assert len(runs.requests) - len(parallel["order"]) in (1, 2)


def test_the_stop_reads_only_the_finished_prefix() -> None:
    killed = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))
    by_label = {label: _mutant() for label in ("K0", "K1")}
    # K1 died but K0 has not answered yet: nothing is decided.
    assert mutate.decided_at(["K0", "K1"], [None, killed], by_label, 0.5) is None
    assert mutate.decided_at(["K0", "K1"], [killed, None], by_label, 0.5) == 0
    assert mutate.decided_at(["C", "K0", "K1"], [killed, killed, None], by_label, 1.0) is None


def _mutant() -> Mutant:
    code = compile("pass", FILE, "exec")
    return Mutant("classic", 2, "'a > 1' -> 'a >= 1'", code, code)


def test_a_test_that_fails_a_control_is_reported() -> None:
    # A detector that fails "every run after the first" fails the clean runs that come later.
    runs = FakeRuns(lambda i, req, ran: Ran(mutate.ANSWERED, 0.01,
                                           RunReport(collected=(NODE,), failed=NODE))
                    if i >= 1 else ran)
    stage = run_stage(runs, _given())
    assert any(c["outcomes"] == {NODE: "failed"} for c in stage.controls)


@pytest.mark.parametrize(("status", "problem"), [
    (mutate.TIMED_OUT, "a clean control run timed out after 0.0 s"),
    (mutate.DIED, "a clean control run ended without a report"),
])
def test_controls_that_end_badly_say_how(status: str, problem: str) -> None:
    module = compile(SOURCE, FILE, "exec", dont_inherit=True)
    runs = FakeRuns(lambda i, req, ran: Ran(status, 0.0) if req.module is module else ran)
    stage = run_stage(runs, _given(module=module))
    assert stage.controls and all(c == {"problem": problem} for c in stage.controls)


def test_a_tampered_run_is_passed_up() -> None:
    bad = Tampering("the report of run 2", "one JSON object", "'x'")
    runs = FakeRuns(lambda i, req, ran: Ran(mutate.TAMPERED, 0.0, tampered=bad) if i == 1
                    else ran)
    assert run_stage(runs, _given()).tampered == bad


def test_mutant_outcomes_timeouts_crashes_and_errors() -> None:
    outcomes = [mutate.TIMED_OUT, mutate.DIED]

    def behave(index: int, request: RunRequest, ran: Ran) -> Ran:
        if ran.report is not None and ran.report.failed and outcomes:
            return Ran(outcomes.pop(0), 0.5)
        return ran

    event = run_stage(FakeRuns(behave), _given()).mutation
    assert event is not None
    seen = {e["outcome"] for e in event["extreme"] + event["classic"]}
    assert {"timeout", "crashed"} <= seen


def _is_null(request: RunRequest) -> bool:
    """The null mutant adds one local the original has not (its name and value vary)."""
    original: dict[str, Any] = {}
    exec(compile(SOURCE, FILE, "exec", dont_inherit=True), original)
    namespace: dict[str, Any] = {}
    exec(request.module, namespace)
    return bool(set(namespace["f"].__code__.co_varnames)
                - set(original["f"].__code__.co_varnames))


def test_a_null_mutant_that_cannot_start_is_our_fault() -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran:
        if _is_null(request):
            return Ran(mutate.ANSWERED, 0.0, RunReport(error="OSError: no fork"))
        return ran

    event = run_stage(FakeRuns(behave), _given()).mutation
    assert event is not None and event["error"].startswith("MutationError: the null mutant")


def test_a_detector_that_kills_the_null_mutant_is_recorded() -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran:
        return Ran(mutate.ANSWERED, 0.0, RunReport(collected=(NODE,), failed=NODE)) \
            if _is_null(request) else ran

    event = run_stage(FakeRuns(behave), _given()).mutation
    assert event is not None and event["null"]["outcome"] == "killed"


@pytest.mark.parametrize(("measured", "reason"), [
    (RunReport(collected=(NODE,), denied=("writing /etc",),
               coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": []}}),
     "the test broke the sandbox rules"),
    (RunReport(collected=(NODE,), reads=("opened the file",),
               coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": []}}),
     "the test read the code under test"),
    (RunReport(collected=(NODE,), reads=(f"{NODE}: {CTYPES_LOADED}",),
               coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": []}}),
     "the test loaded ctypes"),
    (RunReport(collected=(NODE,), missing=True), "the target function was not found"),
    (RunReport(collected=(NODE,)), "no coverage data for the target"),
    (RunReport(collected=(NODE,), coverage={FILE: {"executed_lines": [], "missing_lines": []}}),
     "no coverage data for the target"),
    (RunReport(collected=(NODE,), coverage={FILE: {"executed_lines": [2, 3],
                                                   "missing_lines": [4]}}),
     "the target is not fully covered"),
])
def test_mutation_is_skipped_with_a_reason_but_controls_still_run(measured: RunReport,
                                                                    reason: str) -> None:
    runs = FakeRuns()
    stage = run_stage(runs, _given(measured=measured))
    assert stage.mutation is not None and stage.mutation["skipped"] == reason
    # The reason comes from the measuring run, after the first schedule: its controls count.
    assert len(stage.controls) == 2 and runs.requests[-1].measure


def test_a_failed_first_clean_run_cuts_the_first_schedule_short() -> None:
    failing = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))
    runs = FakeRuns(lambda i, req, ran: failing)  # the test fails everywhere
    stage = run_stage(runs, _given(measured=RunReport(collected=(NODE,), failed=NODE)))
    assert stage.mutation == {"threshold": 0.6, "max_mutants": 20,
                              "skipped": "the measured run failed"}
    order = mutate._order(["M", "C", "N", *(f"K{i}" for i in range(11))],
                          mutate.random.Random(int("5eed" * 4, 16)))
    # The runs up to the first judged clean one, then the measuring run: nothing more.
    assert len(runs.requests) == order.index("M") + 2 and runs.requests[-1].measure
    assert run_stage(runs, _given(measured=RunReport(), mutation=None)).mutation is None


def test_a_failed_first_clean_run_with_a_passing_measuring_run_is_flaky() -> None:
    module = compile(SOURCE, FILE, "exec", dont_inherit=True)
    failing = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))
    runs = FakeRuns(lambda i, req, ran: failing if req.module is module and not req.measure
                    else ran)
    stage = run_stage(runs, _given(module=module))
    assert stage.mutation == {"threshold": 0.6, "max_mutants": 20,
                              "skipped": "a clean control run failed"}
    # The first judged clean run (and any control before it): the flaky rule's fact.
    assert stage.controls and all(c == {"outcomes": {NODE: "failed"}} for c in stage.controls)


def test_without_mutation_only_the_controls_and_the_coverage_checks_run() -> None:
    runs = FakeRuns()
    stage = run_stage(runs, _given(mutation=None, reruns=4))
    # Red team 6, finding 05: the coverage is still checked (the null mutant among the checks).
    assert stage.tampered is None and len(stage.controls) == 4
    event = stage.mutation
    assert event is not None and event["reach_only"] is True
    assert event["null"]["outcome"] == "survived"
    assert [e["outcome"] for e in event["reach"]] == ["killed", "killed"]
    assert not any(label.startswith(("E", "K")) for label in event["order"])
    # Nothing is checked when the coverage rule fails anyway (not fully covered).
    partial = RunReport(**{**vars(_given().measured), "coverage": {FILE: {
        "executed_lines": [2, 3], "missing_lines": [4]}}})
    stage = run_stage(FakeRuns(), _given(mutation=None, measured=partial))
    assert stage.mutation is None and stage.tampered is None


def test_forged_coverage_is_caught_without_mutation_too() -> None:
    # Red team 6, finding 05: with `mutation = false` nothing checked the measured run's
    # coverage, its own answer: a test running 3 of 10 lines and listing all locked PASS.
    stage = run_stage(FakeRuns(inputs=(0,)), _given(mutation=None))
    assert stage.tampered is not None and stage.tampered.where == "the coverage of m.py:3"

    def detector(index: int, request: RunRequest, ran: Ran) -> Ran:
        # Fails in every run whose code is not the pristine module: reach checks and null.
        if request.module is given.module:
            return ran
        return Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))

    given = _given(mutation=None)
    stage = run_stage(FakeRuns(detector, inputs=(0,)), given)
    assert stage.tampered is None and stage.mutation is not None
    assert stage.mutation["null"]["outcome"] == "killed"  # the rule: machinery detected


def test_a_test_failing_where_a_probe_sits_kills_a_reach_checks_twin() -> None:
    # Red team 7, finding 02: where a probe sits moves the bytecode after it, and a traceback's
    # tb_lasti shows the offsets with no code object read; a test that failed whenever the
    # code grew inside a block it never ran killed the reach checks alone and kept forged
    # coverage. Each check now runs with a twin whose stop is dead: the same layout.
    given = _given(mutation=None)
    null = mutate.generate(SOURCE, FILE, 1, covered=set(), max_mutants=0,
                           null_name=mutate._null_name(given.seed),
                           null_shape=int(given.seed[24:32], 16)).null

    def grown(request: RunRequest) -> bool:
        namespace: dict[str, Any] = {}
        exec(request.module, namespace)
        return len(namespace["f"].__code__.co_code) > len(null.function.co_code)

    def detector(index: int, request: RunRequest, ran: Ran) -> Ran:
        if not grown(request):
            return ran
        return Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))

    stage = run_stage(FakeRuns(detector, inputs=(0,)), given)
    assert stage.tampered is None and stage.mutation is not None
    assert any(label.startswith("T") for label in stage.mutation["order"])
    assert stage.mutation["null"]["outcome"] == "killed"  # the rule: machinery detected
    # An honest test: every check dies, every twin survives, nothing is said.
    stage = run_stage(FakeRuns(), _given(mutation=None))
    assert stage.tampered is None and stage.mutation is not None
    assert stage.mutation["null"]["outcome"] == "survived"
    twins = [label for label in stage.mutation["order"] if label.startswith("T")]
    assert twins and len(twins) == len(stage.mutation["reach"])


def test_a_body_never_called_in_a_run_is_import_time_only() -> None:
    given = _given()
    measured = RunReport(**{**vars(given.measured), "calls": 0})
    runs = FakeRuns()
    event = run_stage(runs, _given(measured=measured, install="swap",
                                   trusted_lines=frozenset({2, 3, 4}))).mutation
    assert event is not None and event["import_time_only"] is True
    assert event["extreme"] == event["classic"] == [] and event["null"]["outcome"] == "survived"
    # The classic mutants ran in the first schedule (planned before any run), and count for
    # nothing; no extreme mutant was made.
    assert "N" in event["order"] and not any(o.startswith("E") for o in event["order"])


def test_mutants_past_the_budget_are_not_run() -> None:
    class Late(FakeRuns):
        def run(self, requests: Sequence[RunRequest], deadline: float,
                skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
                later: mutate.Later | None = None) -> list[Ran | None]:
            done = super().run(requests[:3], deadline, skip, finished, later)
            return [*done, *([None] * (len(requests) - 3))]

    event = run_stage(Late(), _given()).mutation
    assert event is not None
    order = event["order"]
    first = order[:order.index("E0")] if "E0" in order else order  # the first schedule
    if "N" in first[:3]:
        assert event["not_run"] == sum(1 for label in first[3:] if label[0] == "K")
    else:
        assert "error" not in event and "null" not in event and event["not_run"] > 0


def test_generation_faults_are_review_material_not_a_crash() -> None:
    event = run_stage(FakeRuns(), _given(def_line=3)).mutation
    assert event is not None and event["error"].startswith("MutationError")


def test_only_a_failure_kills() -> None:
    assert mutate.killed_by(RunReport(collected=(NODE,))) is None
    assert mutate.killed_by(RunReport(collected=(NODE,), failed=NODE)) == NODE
    errors = ({"nodeid": "t.py", "message": "boom", "file": None, "line": None},)
    assert mutate.killed_by(RunReport(collect_errors=errors)) == "t.py"
    nameless = ({"nodeid": "", "message": "boom", "file": None, "line": None},)
    assert mutate.killed_by(RunReport(collect_errors=nameless)) == "<collection>"
    # Other test names (parametrize ids built from the target's results) are not a failure.
    assert mutate.killed_by(RunReport(collected=("t.py::test_f[112.5]",))) is None


@pytest.mark.parametrize("changes", [
    {},  # import mode: every run installs the module, so mutants reach it whatever calls says
    {"install": "swap"},  # swap mode, but the body's lines were not seen in the judge
])
def test_a_forged_call_count_of_zero_buys_no_review(changes: dict[str, Any]) -> None:
    given = _given()
    measured = RunReport(**{**vars(given.measured), "calls": 0})
    event = run_stage(FakeRuns(), _given(measured=measured, **changes)).mutation
    assert event is not None and "import_time_only" not in event
    assert event["extreme"] and event["classic"]


def _partial(executed: list[int], missing: list[int]) -> RunReport:
    given = _given()
    return RunReport(**{**vars(given.measured), "coverage": {
        FILE: {"executed_lines": executed, "missing_lines": missing}}})


def test_a_claimed_line_does_not_switch_the_stage_off() -> None:
    # Red team 3, finding 04: line 3 claimed unreachable made the whole stage skip ("not fully
    # covered"), so a pseudo-test plus a claim reached a human with no mutation evidence.
    measured = _partial([2, 4], [3])
    unclaimed = run_stage(FakeRuns(inputs=(1, 0)), _given(measured=measured)).mutation
    assert unclaimed == {"threshold": 0.6, "max_mutants": 20,
                         "skipped": "the target is not fully covered"}
    runs = FakeRuns(inputs=(1, 0))
    stage = run_stage(runs, _given(measured=measured, claimed=frozenset({3})))
    event = stage.mutation
    assert event is not None and "skipped" not in event and stage.tampered is None
    assert event["null"]["outcome"] == "survived"
    assert event["extreme"] and event["classic"]
    # Mutants and reach checks stay on the covered lines: the claimed line is never asked to run.
    assert {e["line"] for e in event["classic"]} <= {2, 4}
    assert all(e["line"] != 3 for e in event.get("reach", ()))
    # A claim excuses only itself: another missing line still stops the stage.
    other = run_stage(FakeRuns(inputs=(1, 0)), _given(measured=measured, claimed=frozenset({4})))
    assert other.mutation is not None and other.mutation.get("skipped")


def test_a_claimed_line_the_coverage_says_ran_is_still_reach_checked() -> None:
    # Coverage forged to list line 3, and line 3 claimed too: the claim hides nothing from the
    # reach check (the claim is REVIEW anyway; the forgery is caught and FAILs).
    stage = run_stage(FakeRuns(inputs=(0,)), _given(claimed=frozenset({3})))
    assert stage.tampered is not None and stage.tampered.where == "the coverage of m.py:3"


def test_a_body_that_never_ran_is_not_import_time_only() -> None:
    # Red team 4, finding 01: swap mode (a conftest imports the module), every line of the body
    # claimed unreachable and a test that never calls the target: nothing of the body ran, so
    # "nothing ran but what the judge saw" held vacuously and the quest went to a human as
    # import-time-only instead of FAILing on the extreme mutants as a pseudo-test.
    given = _given()
    measured = RunReport(**{**vars(given.measured), "calls": 0,
                            "coverage": {FILE: {"executed_lines": [], "missing_lines": [2, 3, 4]}}})
    runs = FakeRuns(inputs=())
    event = run_stage(runs, _given(measured=measured, install="swap",
                                   claimed=frozenset({2, 3, 4}))).mutation
    assert event is not None and "import_time_only" not in event and "skipped" not in event
    assert event["extreme"] and all(e["outcome"] == "survived" for e in event["extreme"])


def test_a_forged_branch_arc_is_tampering() -> None:
    # Red team 4, finding 04: branch mode, the test never calls f(a) with a <= 1 (arc 2->4),
    # and the measured run's answer lists that arc as taken. Every line ran (f(2) runs 2, 3
    # and 4), so only the arc check can tell.
    source = "def f(a):\n    if a > 1:\n        a = a + 1\n    return a\n"
    measured = RunReport(
        collected=(NODE,), reports=({"nodeid": NODE, "when": "call", "outcome": "passed"},),
        coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": [],
                         "executed_branches": [[2, 3], [2, 4]], "missing_branches": []}},
        types=("int",), calls=2)

    class Honest(FakeRuns):
        def run(self, requests: Sequence[RunRequest], deadline: float,
                skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
                later: mutate.Later | None = None) -> list[Ran | None]:
            out: list[Ran | None] = []
            for request in requests:
                namespace: dict[str, Any] = {}
                exec(request.module, namespace)
                try:
                    ok = namespace["f"](2) == 3 and namespace["f"](5) == 6
                except SystemExit:
                    ok = False
                out.append(Ran(mutate.ANSWERED, 0.01, RunReport(
                    collected=(NODE,), failed=None if ok else NODE)))
                if finished is not None:
                    finished(len(out) - 1, out[-1])
            return out

    given = _given(source=source, module=compile(source, FILE, "exec", dont_inherit=True),
                   measured=measured, branch=True)
    stage = run_stage(Honest(), given)
    assert stage.tampered is not None and stage.tampered.where == "the branch coverage of m.py:2"
    # The same claim without branch mode is not read: lines alone are all proven.
    assert run_stage(Honest(), _given(source=source, measured=measured, branch=False,
                                      module=given.module)).tampered is None


class _StarvedRuns(FakeRuns):
    """The budget runs out before the second schedule (the reach phase) can start anything."""

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[Ran | None]:
        if any(_is_reach(r) for r in requests):
            return [None] * len(requests)
        return super().run(requests, deadline, skip, finished, later)


def test_reach_checks_the_budget_left_no_room_for_are_recorded() -> None:
    # Red team 5, finding 07: each run starts only when its timeout fits before the deadline,
    # and a test sets the timeout (ten times the measured run). A measured run slow enough that
    # the reach phase never started kept its forged coverage: no reach entry, no tampering.
    stage = run_stage(_StarvedRuns(inputs=(0,)), _given())
    assert stage.tampered is None and stage.mutation is not None
    assert stage.mutation["reach_not_run"] == 1 and stage.mutation["reach"] == []
    # A strong test needs no reach check: nothing is recorded as not run.
    assert "reach_not_run" not in (run_stage(_StarvedRuns(), _given()).mutation or {})


# --- the first schedule of the selected tests (pytest_quest.selection) ---------------------

LEFT_OUT = frozenset({"test_other"})


def _first_schedule_requests(runs: FakeRuns) -> list[RunRequest]:
    """The requests before the measuring run."""
    measuring = next(i for i, r in enumerate(runs.requests) if r.measure)
    return runs.requests[:measuring]


def test_a_clean_first_schedule_of_the_selected_tests_stands() -> None:
    runs = FakeRuns()
    measured = dataclasses.replace(_given().report, collected=(
        NODE, "t.py::test_other[1]", "t.py::test_other[2]"))
    stage = run_stage(runs, _given(deselect=LEFT_OUT, measured=measured))
    event = stage.mutation
    assert event is not None and stage.whole_file is None
    # The tests left out, as the measuring run collected them (not the functions named).
    assert event["left_out"] == 2 and "whole_file" not in event
    first = _first_schedule_requests(runs)
    assert first and all(r.deselect == LEFT_OUT for r in first)  # every run alike
    # The measuring run runs every test; the extreme mutants after it leave the same out.
    after = runs.requests[len(first):]
    assert not after[0].deselect and all(r.deselect == LEFT_OUT for r in after[1:])
    assert len(first) + len(after) - 1 == len(event["order"])
    # A clean control beside the extreme mutants: with tests left out the runs of every test
    # that may follow must not be the only ones after the measuring run (red team 69).
    assert sum(r.clean for r in after[1:]) == 1
    # The measuring run's recorder does not listen to the tests left out.
    measuring = runs.requests[len(first)]
    assert measuring.measure and measuring.unrecorded == LEFT_OUT


def test_without_a_selection_no_run_leaves_a_test_out() -> None:
    runs = FakeRuns()
    event = run_stage(runs, _given()).mutation
    assert event is not None and "left_out" not in event
    assert all(not r.deselect for r in runs.requests)


def _fail_deselected(label_check: Callable[[RunRequest], bool]) -> Callable[
        [int, RunRequest, Ran], Ran | None]:
    """Runs that leave tests out fail where ``label_check`` says so."""
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect and label_check(request):
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,), failed=NODE))
        return ran
    return behave


def test_a_failing_first_clean_run_of_the_selected_tests_runs_every_test_again() -> None:
    # A test that needs one left out before it: every selected clean run fails.
    runs = FakeRuns(_fail_deselected(lambda request: request.clean))
    stage = run_stage(runs, _given(deselect=LEFT_OUT))
    event = stage.mutation
    assert event is not None
    assert event["whole_file"] == "the first judged clean run failed with the selected tests"
    assert len(runs.calls) >= 3 and not stage.cut_short  # a second first schedule
    assert stage.deselected == frozenset()
    assert all(not r.unrecorded for r in runs.requests)  # it listens to every test
    # What counts is the second schedule: its controls passed, the score passed.
    assert all(c == {"outcomes": {NODE: "passed"}} for c in stage.controls)
    assert event["null"]["outcome"] == "survived"


def test_too_few_kills_with_the_selected_tests_runs_every_test_again() -> None:
    # The left-out tests are the ones that kill: the selected ones kill nothing.
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect:
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,)))
        return ran

    runs = FakeRuns(behave)
    event = run_stage(runs, _given(deselect=LEFT_OUT)).mutation
    assert event is not None
    assert event["whole_file"] == "the selected tests did not kill enough classic mutants"
    assert all(e["outcome"] == "killed" for e in event["classic"])
    # The selected schedule stopped once the score could no longer pass (red team 67: a slow
    # file paid for all of it before the schedule that counts).
    started = sum(1 for r in runs.requests if r.deselect)
    assert started < runs.calls[0]


def test_cannot_pass_reads_the_finished_prefix_only() -> None:
    code = compile("", "m", "exec")
    by_label = {f"K{i}": Mutant("classic", 2, "x", code, code) for i in range(5)}
    labels = ["K0", "M", "K1", "K2", "K3", "K4"]
    alive = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,)))
    dead = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), failed=NODE))
    # 0.6 of 5 needs 3 kills: two survivors leave room, three do not.
    assert not mutate.cannot_pass(labels, [alive, dead, alive], by_label, 0.6)
    assert mutate.cannot_pass(labels, [alive, dead, alive, alive], by_label, 0.6)
    # A survivor after an unfinished run does not count yet.
    assert not mutate.cannot_pass(labels, [alive, dead, None, alive, alive], by_label, 0.6)


def test_a_control_failing_with_the_selected_tests_runs_every_test_again() -> None:
    seen: list[int] = []

    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect and request.clean:
            seen.append(index)
            if len(seen) == 2:  # the second clean run: a control, never M (which is first)
                return Ran(mutate.TIMED_OUT, 2.0)
        return ran

    event = run_stage(FakeRuns(behave), _given(deselect=LEFT_OUT)).mutation
    assert event is not None
    assert event["whole_file"] == "a clean control failed with the selected tests"


@pytest.mark.parametrize("finding", ["tampered", "reads"])
def test_a_rule_broken_with_the_selected_tests_is_never_run_away_from(finding: str) -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if not request.deselect or request.clean:
            return ran
        if finding == "tampered":
            return Ran(mutate.TAMPERED, 0.005, tampered=Tampering("forged", "run", "x"))
        report = RunReport(collected=(NODE,), failed=NODE, **{finding: ("the target's code",)})
        return Ran(mutate.ANSWERED, 0.005, report)

    stage = run_stage(FakeRuns(behave), _given(deselect=LEFT_OUT))
    assert stage.whole_file is None and stage.deselected == LEFT_OUT
    if finding == "tampered":
        assert stage.tampered is not None
    else:
        assert getattr(stage, finding) == ["the target's code"]


def test_a_call_denied_with_the_selected_tests_runs_every_test_again() -> None:
    # A left-out test set where a kept one writes (red team 68): without it, the write was
    # denied. The schedule with every test is judged by the same sandbox.
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect and request.clean:
            return Ran(mutate.ANSWERED, 0.005, RunReport(
                collected=(NODE,), failed=NODE, denied=("writing ./rates.csv",)))
        return ran

    stage = run_stage(FakeRuns(behave), _given(deselect=LEFT_OUT))
    assert stage.whole_file == "the sandbox denied a call with the selected tests"
    assert stage.denied == [] and stage.deselected == frozenset()


def test_controls_of_the_selected_tests_give_no_outcome_for_those_left_out() -> None:
    other = "t.py::test_other[1]"
    measured = RunReport(collected=(NODE, other))
    ran = Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,)))
    assert mutate._control(ran, measured, LEFT_OUT) == {"outcomes": {NODE: "passed"}}
    assert mutate._control(ran, measured) == {"outcomes": {NODE: "passed", other: "passed"}}


def test_after_the_selected_schedule_time_limits_come_from_a_run_of_every_test() -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        return Ran(ran.status, 1.5 if request.measure else 0.001, ran.report)

    runs = FakeRuns(behave)
    stage = run_stage(runs, _given(deselect=LEFT_OUT))
    # Not ten times the traced measuring run (166 s for a 16.6 s measuring run left no room in
    # the budget for the reach checks), three times it (red team 68: twice timed out a test
    # that used both cores, which the measuring run had to itself).
    assert stage.whole_seconds == pytest.approx(1.5)
    later = [r for r in runs.requests[len(_first_schedule_requests(runs)) + 1:]]
    assert later and all(r.timeout == pytest.approx(4.5) for r in later)
    assert stage.mutation is not None and stage.mutation["clean_seconds"] == 1.5


def test_without_a_selection_time_limits_come_from_the_first_clean_run() -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        return Ran(ran.status, 1.5 if request.measure else 0.3, ran.report)

    runs = FakeRuns(behave)
    stage = run_stage(runs, _given())
    assert stage.whole_seconds == 0.0
    later = [r for r in runs.requests if r.timeout is not None and not r.measure]
    assert later and all(r.timeout == pytest.approx(3.0) for r in later)


class _Slow(FakeRuns):
    """Each run takes ``seconds`` of a fake clock (``mutate.time`` patched to read it); every
    schedule's deadline is kept."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, seconds: float,
                 behave: Callable[[int, RunRequest, Ran], Ran | None]) -> None:
        super().__init__(behave)
        self.clock, self.seconds = 1000.0, seconds
        self.deadlines: list[float] = []
        monkeypatch.setattr(mutate, "time", types.SimpleNamespace(monotonic=lambda: self.clock))

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[Ran | None]:
        self.deadlines.append(deadline)
        self.clock += self.seconds * len(requests)
        return super().run(requests, math.inf, skip, finished, later)


def test_a_first_schedule_run_again_gets_back_the_time_it_took(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _Slow(monkeypatch, 20.0, _fail_deselected(lambda request: request.clean))
    deadlines = runs.deadlines
    stage = run_stage(runs, _given(deselect=LEFT_OUT, budget=60.0))
    assert stage.whole_file is not None
    assert stage.extra_budget == 30.0  # what it took (far more), up to half the budget
    assert deadlines[0] == 1000.0 + 60.0 and deadlines[1] == 1000.0 + 90.0
    assert stage.mutation is not None and stage.mutation["budget"] == 90.0


# --- what the hooks wrote before a run died (defence in depth, red team 67) --------------

def _dies_after_a_read(status: str = mutate.DIED) -> Callable[[int, RunRequest, Ran],
                                                             Ran | None]:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.clean or request.measure:
            return ran
        return Ran(status, 0.005, found={"reads": ("the target's __code__",)})
    return behave


@pytest.mark.parametrize("status", [mutate.DIED, mutate.TIMED_OUT])
def test_a_read_the_hooks_wrote_before_a_run_died_is_kept(status: str) -> None:
    stage = run_stage(FakeRuns(_dies_after_a_read(status)), _given())
    assert stage.reads == ["the target's __code__"]


def test_a_read_before_a_run_died_ends_the_selected_schedule_for_good() -> None:
    stage = run_stage(FakeRuns(_dies_after_a_read()), _given(deselect=LEFT_OUT))
    assert stage.whole_file is None and stage.deselected == LEFT_OUT
    assert stage.reads == ["the target's __code__"]


def test_an_answered_run_reads_from_its_answer_not_its_leftovers() -> None:
    ran = Ran(mutate.ANSWERED, 0.01, RunReport(collected=(NODE,), reads=("a",)),
              found={"reads": ("b",)})
    assert ran.reads() == ("a",) and ran.denied() == ()


# --- after the measuring run: the selected tests, survivors again with every test ----------

#: A weak threshold: the selected first schedule stands although its tests run f(0) only.
WEAK = MutationSpec(threshold=0.1, max_mutants=20)


def _selected_run_f0_only(index: int, request: RunRequest, ran: Ran) -> Ran | None:
    """The tests left out are the ones that call f(2): the selected ones call f(0) only."""
    if request.deselect:
        return Ran(mutate.ANSWERED, 0.005, RunReport(
            collected=(NODE,), failed=_checks(request.module, (0,))))
    return ran


def _after_measuring(runs: FakeRuns) -> list[RunRequest]:
    measuring = next(i for i, r in enumerate(runs.requests) if r.measure)
    return runs.requests[measuring + 1:]


def test_what_survives_the_selected_tests_runs_again_with_every_test() -> None:
    # Line 3 runs only in a left-out test: with the selection its reach check and the
    # extreme mutant returning 0 survive. A left-out test may undo a verdict, so both run
    # again with every test, and die there: no tampering, not pseudo-tested.
    runs = FakeRuns(_selected_run_f0_only)
    stage = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK))
    event = stage.mutation
    assert event is not None and stage.whole_file is None and stage.tampered is None
    # `return 0` and every value returned replaced by 0 (the rest kept), and line 3's check
    assert sorted(label[0] for label in stage.again) == ["E", "E", "R"] == \
        sorted(label[0] for label in event["again"])
    assert [e["outcome"] for e in event["reach"]] == ["killed"]
    assert all(e["outcome"] == "killed" for e in event["extreme"])
    assert event["null"]["outcome"] == "survived"
    again = [r for r in _after_measuring(runs) if not r.deselect]
    # The check, its twin and a clean control beside it, and the extreme mutant: the second
    # runs look like the first.
    assert len(again) == 5 and sum(r.clean for r in again) == 1
    assert sum(_is_reach(r) for r in again) == 1
    assert event["order"][-4:].count("C") == 1 and event["controls"] == len(stage.controls)


def test_forged_coverage_survives_every_test_too() -> None:
    # The test never runs line 3, with or without the tests left out: the check survives
    # its second run and the coverage it claims is forged.
    runs = FakeRuns(inputs=(0,))
    stage = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK))
    assert stage.whole_file is None and stage.deselected == LEFT_OUT
    assert stage.tampered is not None and stage.tampered.where == "the coverage of m.py:3"
    assert any(label.startswith("R") for label in stage.again)


def test_without_a_selection_nothing_runs_again() -> None:
    runs = FakeRuns(inputs=(0,))
    stage = run_stage(runs, _given(mutation=WEAK))
    assert stage.tampered is not None and stage.again == []
    assert stage.mutation is not None and "again" not in stage.mutation


class _NoTimeForEveryTest(FakeRuns):
    """The budget runs out before anything after the measuring run runs every test again."""

    def run(self, requests: Sequence[RunRequest], deadline: float,
            skip: mutate.Skip | None = None, finished: mutate.Finished | None = None,
            later: mutate.Later | None = None) -> list[Ran | None]:
        if self.requests and any(r.measure for r in self.requests) and \
                not any(r.deselect for r in requests):
            return [None] * len(requests)
        return super().run(requests, deadline, skip, finished, later)


def test_a_survivor_not_run_again_in_time_proves_nothing() -> None:
    # Its survival with the selected tests is no verdict: counted as not run, never as
    # forged coverage or a pseudo-test.
    runs = _NoTimeForEveryTest(_selected_run_f0_only)
    stage = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK))
    event = stage.mutation
    assert event is not None and stage.tampered is None
    assert event["reach_not_run"] == 1 and event["reach"] == []
    assert event["not_run"] >= 1
    assert all(e["outcome"] == "killed" for e in event["extreme"])


def _is_twin(request: RunRequest) -> bool:
    """A reach check's twin: the probe is there, dead."""
    namespace: dict[str, Any] = {}
    exec(request.module, namespace)
    code = namespace["f"].__code__
    return "_exit" in code.co_names and not _live_probe(code)


def _fails_after_measuring(selected_only: bool, which: Callable[[RunRequest], bool]
                           ) -> Callable[[int, RunRequest, Ran], Ran | None]:
    """The selected tests call f(0) only; after the measuring run the runs ``which`` picks fail
    (with the selected tests only, or in every run)."""
    measured = [False]

    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        measured[0] = measured[0] or request.measure
        if measured[0] and not request.measure and which(request) and \
                (request.deselect or not selected_only):
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,), failed=NODE))
        return _selected_run_f0_only(index, request, ran)
    return behave


@pytest.mark.parametrize("which", ["twin", "control"])
def test_a_phase_not_clean_with_the_selected_tests_runs_whole_again(which: str) -> None:
    # A kept test that needs a left-out one fails at random (red team 69: a seed it sets):
    # a twin that died or a control that failed with the selected tests is a verdict a
    # left-out test may undo. Every run of the phase goes again with every test, and only
    # that counts.
    pick = _is_twin if which == "twin" else (lambda request: request.clean)
    runs = FakeRuns(_fails_after_measuring(True, pick))
    stage = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK))
    event = stage.mutation
    assert event is not None and stage.tampered is None
    assert event["null"]["outcome"] == "survived"
    assert all(c == {"outcomes": {NODE: "passed"}} for c in stage.controls)
    assert event["controls"] == len(stage.controls)
    assert [e["outcome"] for e in event["reach"]] == ["killed"]
    # every label of the phase, not only the ones that went wrong
    assert sorted(label[0] for label in stage.again) == ["E", "E", "E", "R", "T"]
    whole = [r for r in _after_measuring(runs) if not r.deselect]
    assert len(whole) == 6 and sum(r.clean for r in whole) == 1


def test_a_twin_killed_with_every_test_is_a_killed_null_mutant() -> None:
    runs = FakeRuns(_fails_after_measuring(False, _is_twin))
    event = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK)).mutation
    assert event is not None and event["null"]["outcome"] == "killed"


def test_a_lone_extreme_mutant_run_again_has_a_control_beside_it() -> None:
    # Red team 69: an extreme mutant that survived the selected tests ran again alone, with
    # every test; a test failing "every test ran, and not the measuring run" killed it
    # without checking a value. A clean control beside it fails the same way: run-flaky.
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect:  # the selected tests check only what return 0 also passes
            namespace: dict[str, Any] = {}
            exec(request.module, namespace)
            f = namespace["f"]
            try:
                ok = f(2) in (3, 0) and f(1) == 0 and f(0) == 0
            except SystemExit:  # a reach check's stop
                ok = False
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,),
                                                         failed=None if ok else NODE))
        if not request.measure:  # every test, not the measuring run: fail
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,), failed=NODE))
        return ran

    measured = RunReport(collected=(NODE,), reports=(
        {"nodeid": NODE, "when": "call", "outcome": "passed"},),
        coverage={FILE: {"executed_lines": [2, 3, 4], "missing_lines": []}}, types=("int",),
        calls=3)
    stage = run_stage(FakeRuns(behave), _given(deselect=LEFT_OUT, mutation=WEAK,
                                               measured=measured))
    assert stage.whole_file is None and stage.mutation is not None
    # the extreme mutants alone (`return 0`, and every value returned replaced by 0)
    assert [label[0] for label in stage.again] == ["E", "E"]
    assert any("failed" in c.get("outcomes", {}).values() for c in stage.controls)


def test_the_null_mutant_killed_with_the_selected_tests_runs_every_test_again() -> None:
    def behave(index: int, request: RunRequest, ran: Ran) -> Ran | None:
        if request.deselect and not request.clean and "_exit" in request.module.co_names + \
                tuple(n for c in request.module.co_consts if isinstance(c, types.CodeType)
                      for n in c.co_names):
            return Ran(mutate.ANSWERED, 0.005, RunReport(collected=(NODE,), failed=NODE))
        return ran

    stage = run_stage(FakeRuns(behave), _given(deselect=LEFT_OUT))
    assert stage.whole_file == "the null mutant was killed with the selected tests"
    assert stage.mutation is not None and stage.mutation["null"]["outcome"] == "survived"


def test_no_call_heard_tries_every_zero_value() -> None:
    # Red team 69: the target called only where the recorder did not listen (a fixture's
    # teardown, heard since): no type, so the zero the checks could not tell from the right
    # value was never made. With no call heard every zero is tried.
    heard = dataclasses.replace(_given().report, calls=0, types=())
    event = run_stage(FakeRuns(), _given(measured=heard)).mutation
    assert event is not None
    texts = {e["description"] for e in event["extreme"]}
    assert {"body replaced by `return 0.0`", "body replaced by `return ''`",
            "every value returned replaced by `[]`"} <= texts
    assert len(run_stage(FakeRuns(), _given()).mutation["extreme"]) == 3  # int: heard


def test_a_recorder_full_of_types_tries_every_zero_value() -> None:
    # Red team 70 made the target return eight other types first: the recorder keeps eight,
    # and the float zero was never made.
    from pytest_quest.recorder import MAX_TYPES

    crowded = ("str", "bytes", "list", "dict", "tuple", "set", "frozenset", "complex")
    assert len(crowded) == MAX_TYPES
    heard = dataclasses.replace(_given().report, types=crowded)
    event = run_stage(FakeRuns(), _given(measured=heard)).mutation
    assert event is not None
    assert "body replaced by `return 0`" in {e["description"] for e in event["extreme"]}


def test_a_phase_run_whole_again_gets_back_the_time_it_took(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _Slow(monkeypatch, 1.0, _fails_after_measuring(True, lambda request: request.clean))
    deadlines = runs.deadlines
    stage = run_stage(runs, _given(deselect=LEFT_OUT, mutation=WEAK, budget=60.0))
    assert stage.whole_file is None and stage.again
    # the selected phase's runs took 1 s each: the run of every test gets them back
    assert deadlines[-1] - deadlines[-2] == pytest.approx(runs.calls[-2])
    assert stage.extra_budget == pytest.approx(runs.calls[-2])
