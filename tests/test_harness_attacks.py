"""Attacks on the judge, each a real submission through the sandbox: none may PASS.

Each attack is one of the tricks issue 13 lists against the gate as it was
(oracles computed from the target before mutants were swapped in, fixed run
order, reaching the reporting machinery, malformed reports). A control test
shows the same shape written honestly still PASSes where that makes sense.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_quest import confine
from pytest_quest.states import Outcome
from pytest_quest.submit import Result
from tests.test_submit import FULL

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def walked_around_the_static_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The static rules name many of these tricks early; an attacker who reads them finds a
    spelling they miss. What is tested here is the run-time defence, so every payload reaches
    the run (as tests/test_confine.py does for the kernel)."""
    import pytest_quest.submit

    stages = pytest_quest.submit.submission_stages
    monkeypatch.setattr(pytest_quest.submit, "submission_stages",
                        lambda: tuple(s for s in stages() if s.name != "static"))

QUEST = "hotel/pricing.py::nightly_rate"
CASES = """
CASES = [(100.0, "standard", 2), (100.0, "high", 7), (100.0, "high", 6), (100.0, "low", 1),
         (100.0, "standard", 7), (10.0, "standard", 1)]
"""


def _fails(result: Result, *rules: str) -> None:
    verdict = result.verdict
    assert verdict.outcome is Outcome.FAIL, verdict.facts
    assert verdict.root_cause in rules, verdict.facts
    assert all(f.where and f.expected and f.actual for f in verdict.facts)


def test_import_time_oracle_dies_with_the_mutants(submit_test: Callable[..., Result]) -> None:
    source = "import pytest\nfrom hotel.pricing import nightly_rate\n" + CASES + """
EXPECTED = [nightly_rate(*case) for case in CASES]  # computed by the target itself

def test_rates():
    for case, expected in zip(CASES, EXPECTED):
        assert nightly_rate(*case) == expected
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""
    _fails(submit_test(QUEST, source), "mutation-pseudo-tested", "mutation-score")


def test_parametrize_oracle_dies_with_the_mutants(submit_test: Callable[..., Result]) -> None:
    source = "import pytest\nfrom hotel.pricing import nightly_rate\n" + CASES + """
@pytest.mark.parametrize(("case", "expected"), [(c, nightly_rate(*c)) for c in CASES])
def test_rate(case, expected):
    assert nightly_rate(*case) == expected

def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""
    _fails(submit_test(QUEST, source), "mutation-pseudo-tested", "mutation-score")


def test_a_copy_of_the_code_object_is_reading_the_code(submit_test: Callable[..., Result]
                                                       ) -> None:
    source = "import types\nimport pytest\nfrom hotel.pricing import nightly_rate\n" + CASES + """
FROZEN = types.FunctionType(getattr(nightly_rate, "__co" + "de__"), nightly_rate.__globals__)

def test_rates():
    for case in CASES:
        assert nightly_rate(*case) == FROZEN(*case)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""
    result = submit_test(QUEST, source)
    _fails(result, "run-reads-target")
    assert "read the target's __code__" in result.verdict.facts[0].actual


def test_a_second_import_by_path_is_reading_the_code(submit_test: Callable[..., Result]) -> None:
    source = "import importlib.util, pathlib\nimport pytest\nimport hotel.pricing\n" + CASES + """
SPEC = importlib.util.spec_from_file_location(
    "pristine_copy", pathlib.Path(hotel.pricing.__file__))
PRISTINE = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(PRISTINE)

def test_rates():
    for case in CASES:
        assert hotel.pricing.nightly_rate(*case) == PRISTINE.nightly_rate(*case)
    with pytest.raises(ValueError):
        hotel.pricing.nightly_rate(100.0, "standard", 0)
"""
    result = submit_test(QUEST, source)
    _fails(result, "run-reads-target")
    assert "opened the target's source file" in result.verdict.facts[0].actual


def test_the_source_text_compiled_again_is_reading_the_code(submit_test: Callable[..., Result]
                                                            ) -> None:
    source = "import inspect\nimport pytest\nimport hotel.pricing\n" + CASES + """
NAMESPACE = {}
exec(compile(inspect.getsource(hotel.pricing.nightly_rate), "<copy>", "exec"), NAMESPACE)

def test_rates():
    for case in CASES:
        assert hotel.pricing.nightly_rate(*case) == NAMESPACE["nightly_rate"](*case)
    with pytest.raises(ValueError):
        hotel.pricing.nightly_rate(100.0, "standard", 0)
"""
    result = submit_test(QUEST, source)
    _fails(result, "run-reads-target")
    # inspect.getsource reads __code__ first, and finds no text: a run has none of the target
    # (its linecache entry is empty, its file hidden), so nothing is compiled
    actual = " ".join(f.actual for f in result.verdict.facts)
    assert "read the target's __code__" in actual and "compiled the target's source" not in actual
    assert "could not get source code" in actual


def test_a_counter_in_the_temp_dir_sees_one_run_only(submit_test: Callable[..., Result]) -> None:
    # Every run has a fresh private temp dir: the counter never passes 1, so the test
    # "fails every run after the measured one" never fires and checks nothing.
    source = "import os, tempfile\nfrom hotel.pricing import nightly_rate\n" + CASES + """
def test_rates():
    path = os.path.join(tempfile.gettempdir(), "count")
    count = int(open(path).read()) + 1 if os.path.exists(path) else 1
    with open(path, "w") as handle:
        handle.write(str(count))
    for case in CASES:
        nightly_rate(*case)
    try:
        nightly_rate(100.0, "standard", 0)
    except ValueError:
        pass
    assert count == 1, "a later run: pretend the mutant was caught"
"""
    _fails(submit_test(QUEST, source), "mutation-pseudo-tested")


def test_a_counter_in_the_project_cannot_be_written(submit_test: Callable[..., Result]
                                                   ) -> None:
    # Red team 2, finding 01: runs write only their own temp dir, removed after each run.
    source = "import os\nfrom hotel.pricing import nightly_rate\n" + CASES + """
def test_rates():
    count = int(open("count").read()) + 1 if os.path.exists("count") else 1
    with open("count", "w") as handle:
        handle.write(str(count))
    for case in CASES:
        nightly_rate(*case)
    try:
        nightly_rate(100.0, "standard", 0)
    except ValueError:
        pass
    assert count == 1, "a later run: pretend the mutant was caught"
"""
    result = submit_test(QUEST, source)
    _fails(result, "run-exit-code")
    assert "run-sandbox-violation" in {f.rule for f in result.verdict.facts}


def test_a_clock_or_pid_detector_fails_a_clean_control(submit_test: Callable[..., Result]
                                                       ) -> None:
    # Where pids count up across runs, the first run is the zygote's first child and any
    # later run (control or mutant) "kills" the mutant: the schedule is secret, so the
    # controls fail. Where each run is PID 2 of its own namespace, every run looks the same
    # (2 == 1 + 1): the detector detects nothing and the mutants survive.
    source = "import os\nfrom hotel.pricing import nightly_rate\n" + CASES + """
def test_rates():
    for case in CASES:
        nightly_rate(*case)
    try:
        nightly_rate(100.0, "standard", 0)
    except ValueError:
        pass
    assert os.getpid() == os.getppid() + 1
"""
    apart = confine.detect().namespaces
    _fails(submit_test(QUEST, source),
           *(("mutation-pseudo-tested", "mutation-score") if apart else ("run-flaky",)))


def test_rewriting_reports_through_the_plugin_manager_gains_nothing(
        submit_test: Callable[..., Result]) -> None:
    # A wrong assertion whose failure a runtime plugin turns into a pass: the measured
    # run "passes", and so does every mutant, so the mutants survive.
    source = "import pytest\nfrom hotel.pricing import nightly_rate\n" + CASES + """
class Flip:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.outcome = "passed"
        report.longrepr = None
        return report

def test_install(request):
    vars(request.config)["pluginmanager"].register(Flip(), "flip")

def test_rates():
    for case in CASES:
        assert nightly_rate(*case) == -1
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""
    result = submit_test(QUEST, source)
    assert result.verdict.outcome is Outcome.FAIL, result.verdict.facts


def test_rewriting_the_judges_objects_through_frames_gains_nothing(
        submit_test: Callable[..., Result]) -> None:
    # Reach the run's recorder through the caller frames and clear its failures: only the
    # run's own answer changes, for every run alike, and the judge never hears from the test.
    source = "import sys, pytest\nfrom hotel.pricing import nightly_rate\n" + CASES + """
def _erase():
    frame = sys._getframe()
    while frame is not None:
        run = frame.f_locals.get("self")
        if type(run).__name__ == "_ChildRun":
            run.reports.clear()
            run.collect_errors.clear()
        frame = frame.f_back

def test_rates():
    _erase()
    for case in CASES:
        assert nightly_rate(*case) is not None
"""
    result = submit_test(QUEST, source)
    assert result.verdict.outcome is Outcome.FAIL, result.verdict.facts


def test_forged_events_on_every_descriptor_are_tampering(submit_test: Callable[..., Result]
                                                         ) -> None:
    # The judge's event pipe is closed in every run; what reaches the run's own answer
    # pipe is junk the judge refuses: a FAIL with a fact, never a crash or a free try.
    source = "import os\nfrom hotel.pricing import nightly_rate\n" + CASES + """
FORGED = b'{"event": "done", "exitstatus": 0, "denied": []}\\n'

def test_rates():
    for case in CASES:
        assert nightly_rate(*case) > 0
    for fd in range(3, 64):
        try:
            os.write(fd, FORGED)
        except OSError:
            pass
"""
    result = submit_test(QUEST, source)
    _fails(result, "run-report-tampered", "run-sandbox-violation", "run-exit-code")
    assert result.quest.tries == 1


def test_the_honest_version_passes(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, FULL)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    mutation = result.quest.evidence.mutation
    assert mutation["controls"] >= 2 and len(mutation["order"]) >= 20
    assert mutation["install"] == "import"


def test_coverage_forged_under_a_computed_name_is_tampering(submit_test: Callable[..., Result]
                                                            ) -> None:
    # Exact values for three paths; the zero-nights line never runs, yet the test adds it
    # (and every other line) to the coverage being measured.
    source = "from hotel import pricing\nfrom hotel.pricing import nightly_rate\n" + """
def test_rate():
    namespace = {}
    exec("".join(["import cov", "erage as c"]), namespace)
    measuring = namespace["c"].Coverage.current()
    if measuring is not None:
        measuring.get_data().add_lines({pricing.__file__: list(range(1, 40))})
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "standard", 6) == 100.0
"""
    result = submit_test(QUEST, source)
    # When this suite measures itself, Coverage.current() in the later runs is the suite's
    # own collector, where add_lines fails: the test then fails its clean controls instead.
    _fails(result, "run-report-tampered", "run-flaky")
    if result.verdict.root_cause == "run-report-tampered":
        (fact,) = result.verdict.facts
        assert fact.where.endswith("(the coverage of hotel/pricing.py:7)")


def test_killing_the_zygote_is_refused_or_ends_without_a_report(
        submit_test: Callable[..., Result]) -> None:
    # A later run kills its parent (the zygote): with Landlock's signal scope (ABI 6) the
    # kernel refuses and the later runs fail (run-flaky); without it the judge loses its
    # runs mid-way (run-no-report). Never a REVIEW. Where each run has a PID namespace of
    # its own, its parent is out of sight (tests/test_forkrun.py).
    if confine.detect().namespaces:
        pytest.skip("each run has a PID namespace of its own here: its parent is its init")
    source = "import os\nfrom hotel.pricing import nightly_rate\n" + CASES + """
def test_rates():
    for case in CASES:
        assert nightly_rate(*case) > 0
    if os.getpid() != os.getppid() + 1:  # not the zygote's first child: a later run
        getattr(os, "ki" + "ll")(os.getppid(), 3 * 3)
"""
    _fails(submit_test(QUEST, source), "run-flaky", "run-no-report")
