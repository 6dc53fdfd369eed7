"""The mutation stage end to end: real sandbox runs of ``submit`` on example_project."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_quest.config import load_settings
from pytest_quest.decisions import Action
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.protocol import EventKind
from pytest_quest.review import queue as review_queue
from pytest_quest.review import record_decision
from pytest_quest.scan import scan
from pytest_quest.states import Outcome, State
from pytest_quest.submission import Claim
from pytest_quest.submit import Result, submit
from tests.test_submit import FULL

QUEST = "hotel/pricing.py::nightly_rate"

STRONG = FULL  # every branch and boundary, exact values


#: Every branch runs, every assertion is about the type: extreme mutants die, classic ones live.
WEAK = """
import pytest
from hotel.pricing import nightly_rate

def test_types():
    for season in ("high", "low", "standard"):
        for nights in (1, 7):
            assert isinstance(nightly_rate(100.0, season, nights), float)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""

#: Runs everything and asserts nothing a trivial body would break.
PSEUDO = """
from hotel.pricing import nightly_rate

def test_runs():
    for season in ("high", "low", "standard"):
        for nights in (1, 7):
            assert nightly_rate(100.0, season, nights) != "free"
    try:
        nightly_rate(100.0, "standard", 0)
    except ValueError:
        pass
"""

#: Kills every mutant by noticing that the code object changed, not the behaviour.
# The code object is read under a name computed at run time: the literal `nightly_rate.__code__`
# is static-reads-target-code, and this test is about what the mutation stage sees behind it.
DETECTOR = STRONG + """
CODE = "".join(["__co", "de__"])
ORIGINAL = getattr(nightly_rate, CODE)

def test_code_is_original():
    assert getattr(nightly_rate, CODE) is ORIGINAL
"""


def _facts(result: Result, rule: str) -> list[Any]:
    return [f for f in result.verdict.facts if f.rule == rule]


def test_strong_test_passes_with_mutation_evidence(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, STRONG)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["extreme_total"] >= 2
    assert evidence["extreme_killed"] == evidence["extreme_total"]
    assert evidence["score"] >= 0.6
    # Classic mutants stop once 12 of the 20 are killed: the rest cannot change the verdict.
    assert evidence["classic_killed"] == 12
    assert evidence["classic_total"] + evidence["classic_stopped"] == 20
    assert evidence["classic_stopped"] > 0
    assert evidence["mode"] == "fork"


def test_type_only_assertions_fail_on_score(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, WEAK)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.verdict.root_cause == "mutation-score"
    # Every value returned replaced by 0.0, the guard kept: a float, and nights=0 raises.
    (unchecked,) = _facts(result, "mutation-return-unchecked")
    assert unchecked.level == "review" and unchecked.actual == (
        "every value returned replaced by `0.0` and every test still passed: the value it "
        "returns is never checked")


#: Every line runs, but only the high season's value is checked.
HIGH_ONLY = """
import pytest
from hotel.pricing import nightly_rate

def test_high_season():
    assert nightly_rate(100.0, "high", 1) == 125.0
    nightly_rate(100.0, "low", 1)
    nightly_rate(100.0, "standard", 7)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
"""


def test_unchecked_values_fail_on_score_with_their_survivors(
        submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, HIGH_ONLY)
    assert result.verdict.root_cause == "mutation-score", result.verdict.facts
    summary, *survivors = _facts(result, "mutation-score")
    assert summary.where == "hotel/pricing.py" and "killed (" in summary.actual
    texts = [f.actual for f in survivors]
    assert "line 14: 'nights >= 7' -> 'nights > 7' survived" in texts
    assert all(f.where.startswith("hotel/pricing.py:") for f in survivors)


def test_pseudo_tested_function_fails(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, PSEUDO)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.verdict.root_cause == "mutation-pseudo-tested"
    fact = _facts(result, "mutation-pseudo-tested")[0]
    assert fact.where == "hotel/pricing.py:4"
    assert fact.actual == (
        "pseudo-tested: body replaced by `return None` and every test still passed"
    )
    assert not _facts(result, "mutation-score")  # superseded: the root cause is enough


def test_reading_the_code_object_fails(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, DETECTOR)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.verdict.root_cause == "run-reads-target"
    test = result.test_path
    assert sorted(f.actual for f in result.verdict.facts) == [
        f"{test}: read the target's __code__",  # at import: ORIGINAL = nightly_rate.__code__
        f"{test}::test_code_is_original: read the target's __code__",
    ]


def _pristine_bytecode() -> bytes:
    from tests.conftest import EXAMPLE

    source = (EXAMPLE / "hotel" / "pricing.py").read_text(encoding="utf-8")
    code = compile(source, "pricing.py", "exec")
    return next(c for c in code.co_consts if getattr(c, "co_name", "") == "nightly_rate").co_code


def test_bytecode_detector_through_a_frame_is_caught(
        submit_test: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    # static-reflective-access names `tb_frame`; the null mutant must hold when it is walked
    # around, so the payload reaches the run here.
    import pytest_quest.submit

    stages = pytest_quest.submit.submission_stages
    monkeypatch.setattr(pytest_quest.submit, "submission_stages",
                        lambda: tuple(s for s in stages() if s.name != "static"))
    # No __code__, no source: the frame of the raising target gives the running bytecode.
    source = STRONG + f"""
PRISTINE = {_pristine_bytecode()!r}

def test_code_is_original():
    try:
        nightly_rate(1.0, "standard", 0)
    except ValueError as exc:
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        assert tb.tb_frame.f_code.co_code == PRISTINE
"""
    result = submit_test(QUEST, source)
    assert result.verdict.outcome is Outcome.FAIL
    # Red team 6, finding 06: the code watch sees the test read f_code of the target's frame
    # before the null mutant gets to say it (without the watch: machinery detected).
    assert result.verdict.root_cause == "run-reads-target"
    assert "tests/quest/test_hotel_pricing__nightly_rate.py::test_code_is_original: read the " \
        "target's code through f_code" in [f.actual for f in result.verdict.facts]


def test_mutation_can_be_switched_off(submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, WEAK, overrides={"mutation": False})
    assert result.verdict.outcome is Outcome.PASS
    assert result.quest.evidence is not None and result.quest.evidence.mutation is None


LOOPS = '''"""A loop whose mutants can run forever."""


def countdown(n: int) -> int:
    """Steps to reach zero from n, one at a time."""
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
    return steps
'''

LOOP_TEST = """
from hotel.loops import countdown

def test_countdown():
    assert countdown(3) == 3
    assert countdown(1) == 1
    assert countdown(0) == 0
"""


@pytest.fixture
def loop_project(example_copy: Path) -> Path:
    (example_copy / "hotel" / "loops.py").write_text(LOOPS, encoding="utf-8")
    scan(load_settings(example_copy))
    return example_copy


def _submit_loop(project: Path) -> Result:
    # Threshold 1: every classic mutant runs (a lower one stops once the score passes).
    settings = load_settings(project).with_overrides(max_mutants=6, mutation_threshold=1.0)
    path = project / "tests" / "quest" / "test_loops.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(LOOP_TEST, encoding="utf-8")
    return submit(settings, "hotel/loops.py::countdown", test=path)


@pytest.mark.slow
def test_looping_mutant_is_killed_by_timeout(loop_project: Path) -> None:
    result = _submit_loop(loop_project)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    mutation = result.quest.evidence.mutation
    assert mutation["timeouts"] >= 1
    assert mutation["classic_killed"] >= mutation["timeouts"]


# ----------------------------------------------------------- the rule on its own
def _sub(event: dict[str, Any] | None, threshold: float = 0.6) -> Any:
    from types import SimpleNamespace

    run = SimpleNamespace(first=lambda kind: event if kind == EventKind.MUTATION else None,
                          tampered=None)
    return SimpleNamespace(
        run=run,
        settings=SimpleNamespace(mutation=True, mutation_threshold=threshold),
        quest=SimpleNamespace(path="m.py", lines=(3, 9), qualname="f"),
        test_rel="tests/quest/test_m.py",
    )


def _classic(outcomes: list[str]) -> list[dict[str, Any]]:
    return [{"line": 4 + i, "description": f"'a > {i}' -> 'a >= {i}'", "outcome": o}
            for i, o in enumerate(outcomes)]


NULL_OK = {"outcome": "survived"}


@pytest.mark.parametrize("event", [
    None,
    {"error": "MutationError: no code object"},
    {"skipped": "the target is not fully covered"},
])
def test_machinery_trouble_is_review_never_fail(event: dict[str, Any] | None) -> None:
    from pytest_quest.rules import mutation

    facts = list(mutation.check(_sub(event)))
    assert [f.rule for f in facts] == ["mutation-not-verified"]
    assert facts[0].level == "review"


def test_threshold_is_inclusive_and_timeouts_count_as_killed() -> None:
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}],
             "classic": _classic(["killed", "timeout", "killed", "survived", "survived"])}
    assert list(mutation.check(_sub(event))) == []
    numbers = mutation.summary(event, 0.6)
    assert numbers["score"] == 0.6
    assert numbers["timeouts"] == 1
    assert numbers["survivors"] == [
        "line 7: 'a > 3' -> 'a >= 3' survived", "line 8: 'a > 4' -> 'a >= 4' survived",
    ]
    facts = list(mutation.check(_sub(event, threshold=0.8)))
    assert [f.where for f in facts] == ["m.py", "m.py:7", "m.py:8"]
    assert facts[0].actual == "3/5 killed (60%)"


def test_unrun_mutants_that_decide_the_verdict_fail_as_too_slow() -> None:
    # Red team 2, finding 04: a slow test starved the stage into a free REVIEW.
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}],
             "classic": _classic(["killed", "survived"]), "not_run": 3}
    facts = list(mutation.check(_sub(event)))
    assert [f.rule for f in facts] == ["mutation-too-slow"] and facts[0].level == "fail"
    event.update(classic=_classic(["survived", "survived"]), not_run=1)
    assert {f.rule for f in mutation.check(_sub(event))} == {"mutation-score"}


def test_a_returned_value_never_checked_goes_to_a_person() -> None:
    # Red team 70: a writer's test that compares the file it writes byte for byte but not the
    # count it returns is complete to many reviewers; a validator's that ignores its result
    # is not (red team 69). The machine cannot tell which: REVIEW, never a PASS or a FAIL.
    from pytest_quest.rules import mutation

    returns = {"outcome": "survived", "kind": "returns", "line": 1,
               "description": "every value returned replaced by `0`"}
    body = {**returns, "kind": "extreme", "description": "body replaced by `return 0`"}
    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}, returns],
             "classic": _classic(["killed"] * 5)}
    facts = list(mutation.check(_sub(event)))
    assert [(f.rule, f.level) for f in facts] == [("mutation-return-unchecked", "review")]
    assert facts[0].expected == ("a test fails when, in f, every value returned replaced by "
                                 "`0`, the rest of its body kept")
    event["extreme"] = [body, returns]
    assert [f.rule for f in mutation.check(_sub(event))] == [
        "mutation-pseudo-tested", "mutation-return-unchecked"]
    # The kind decides, not the words: a whole-body mutant described like the other is
    # still pseudo-testing.
    event["extreme"] = [{**body, "description": returns["description"]}]
    assert [f.rule for f in mutation.check(_sub(event))] == ["mutation-pseudo-tested"]


def test_an_extreme_mutant_not_run_is_too_slow_whatever_the_score() -> None:
    # Red team 69: counted as one more classic survivor, an extreme mutant not run FAILed only
    # when the score sat exactly at the threshold; the pseudo-testing check was never made.
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}],
             "classic": _classic(["killed"] * 5), "not_run": 1, "extreme_not_run": 1,
             "budget": 90.0}
    facts = list(mutation.check(_sub(event)))
    assert [f.rule for f in facts] == ["mutation-too-slow"]
    assert facts[0].expected == "every extreme mutant runs within the time budget"
    del event["extreme_not_run"]  # a classic one not run: the score decides, and passes
    assert list(mutation.check(_sub(event))) == []


def test_a_stage_with_no_run_in_the_budget_is_too_slow() -> None:
    from pytest_quest.rules import mutation

    event = {"not_run": 9, "budget": 90.0, "timeout": 95.0, "clean_seconds": 9.5}
    facts = list(mutation.check(_sub(event)))
    assert [f.rule for f in facts] == ["mutation-too-slow"]
    assert "the measured run took 9.5 s" in facts[0].actual


def test_reach_checks_not_run_in_the_budget_are_too_slow() -> None:
    # Red team 5, finding 07: a reach phase the budget starved left forged coverage unproven.
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}],
             "classic": _classic(["killed", "killed"]), "not_run": 0, "reach_not_run": 2,
             "budget": 90.0, "timeout": 58.0, "clean_seconds": 5.8}
    facts = list(mutation.check(_sub(event)))
    assert [f.rule for f in facts] == ["mutation-too-slow"] and facts[0].level == "fail"
    assert facts[0].actual.startswith("2 not run")


def test_done_without_a_mutation_report_is_tampering() -> None:
    # Red team 2, finding 08: the judge, interrupted, still said done.
    from types import SimpleNamespace

    from pytest_quest.rules import mutation

    done = {"event": "done", "exitstatus": 0}
    run = SimpleNamespace(first=lambda kind: done if kind == EventKind.DONE else None,
                          tampered=None)
    sub = SimpleNamespace(run=run, settings=SimpleNamespace(mutation=True),
                          quest=SimpleNamespace(path="m.py", lines=(1, 3), qualname="f"),
                          test_rel="t.py")
    assert [f.rule for f in mutation.check(sub)] == ["run-report-tampered"]
    run.tampered = object()  # the run rule says so already: no second fact
    assert [f.rule for f in mutation.check(sub)] == ["mutation-not-verified"]


def test_mutants_the_machinery_could_not_swap_are_not_counted() -> None:
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [{"outcome": "error"}, {"outcome": "killed"}],
             "classic": _classic(["killed", "error"])}
    assert list(mutation.check(_sub(event))) == []
    assert mutation.summary(event, 0.6)["classic_total"] == 1


# --------------------------------------- functions that run only at import time (calibration B)
REGISTRY = '''"""Names registered while the module is imported."""

_NAMES: dict[str, str] = {}


def register(key: str, value: str) -> str:
    """Record one display name; runs at import time below."""
    shown = value.upper()
    _NAMES[key] = shown
    return shown


register("a", "alpha")
register("b", "beta")


def lookup(key: str) -> str:
    """The display name registered under key."""
    return _NAMES[key]


def flush() -> None:
    """Nothing is buffered yet: a hook kept for callers."""
    return None
'''

#: A good test of what the import-time calls built; no test can reach the body itself.
REGISTRY_TEST = """
from hotel.registry import lookup

def test_lookup():
    assert lookup("a") == "ALPHA"
    assert lookup("b") == "BETA"
"""

#: Calls the function during the test yet checks nothing it does: still pseudo-tested.
REGISTRY_WEAK = """
from hotel.registry import lookup, register

def test_register_runs():
    register("c", "gamma")
    assert lookup("a") == "ALPHA"
"""


@pytest.fixture
def registry_project(example_copy: Path) -> Path:
    (example_copy / "hotel" / "registry.py").write_text(REGISTRY, encoding="utf-8")
    scan(load_settings(example_copy))
    return example_copy


@pytest.fixture
def registry_in_conftest(example_copy: Path) -> Path:
    """The project's conftest imports the module: it is loaded before any run can install."""
    (example_copy / "hotel" / "registry.py").write_text(REGISTRY, encoding="utf-8")
    conftest = example_copy / "tests" / "conftest.py"
    conftest.write_text("import hotel.registry  # noqa: F401\n" + conftest.read_text())
    scan(load_settings(example_copy))
    return example_copy


def _submit_registry(project: Path, source: str, name: str = "register") -> Result:
    path = project / "tests" / "quest" / "test_registry.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return submit(load_settings(project), f"hotel/registry.py::{name}", test=path)


@pytest.mark.slow
def test_import_time_calls_see_the_mutant_installed_at_import(registry_project: Path) -> None:
    # The mutant is in place before the module is imported: what its module-level calls
    # build is built by the mutant, so a test of what they built kills it.
    # The test never calls register(): the mutants of its whole body still die (what the
    # import-time calls built is checked); only the value it returns goes unchecked.
    result = _submit_registry(registry_project, REGISTRY_TEST)
    assert result.verdict.root_cause == "mutation-score", result.verdict.facts
    assert not _facts(result, "mutation-pseudo-tested")
    assert [f.actual for f in _facts(result, "mutation-score")][1:] == [
        "line 10: 'return shown' -> 'return None' survived"]
    assert [f.actual for f in _facts(result, "mutation-return-unchecked")] == [
        "every value returned replaced by `''` and every test still passed: the value it "
        "returns is never checked"]
    checked = (REGISTRY_TEST + "\n\ndef test_register():\n"
               "    from hotel.registry import register\n"
               "    assert register('c', 'gamma') == 'GAMMA'\n")
    result = _submit_registry(registry_project, checked)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    assert result.quest.evidence.mutation["install"] == "import"


@pytest.mark.slow
def test_module_imported_by_a_conftest_gets_the_mutant_swapped_in(registry_in_conftest: Path
                                                                  ) -> None:
    result = _submit_registry(registry_in_conftest, REGISTRY_TEST, "lookup")
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    mutation = result.quest.evidence.mutation
    assert mutation["install"] == "swap"
    assert mutation["extreme_killed"] == mutation["extreme_total"] >= 1


SETTINGS = '''"""Settings."""


def setting(value, default="off"):
    """A setting's text: the default when unset, trimmed and lower-cased."""
    if value is None:
        value = default
    text = str(value).strip().lower()
    if not text:
        raise ValueError("empty setting")
    return text
'''
#: Never passes None: line 7 runs only when the conftest calls setting(None, ...) at import.
SETTINGS_TEST = """
import pytest
from hotel.settings import setting

def test_setting():
    assert setting(" Slow ") == "slow"
    assert setting(3) == "3"
    with pytest.raises(ValueError, match="empty"):
        setting("  ")
"""


@pytest.mark.slow
def test_what_a_conftest_ran_in_the_judge_is_not_the_tests_coverage(example_copy: Path) -> None:
    # Red team 6, finding 04: the conftest's import runs line 7 in the judge. That line is not
    # in the measured run's coverage (it is the test's alone), so a test that never runs it
    # misses it, and the reach check takes no line or arc on trust.
    (example_copy / "hotel" / "settings.py").write_text(SETTINGS, encoding="utf-8")
    conftest = example_copy / "tests" / "conftest.py"
    conftest.write_text("from hotel.settings import setting\n\nMODE = setting(None, 'Fast')\n"
                        + conftest.read_text())
    scan(load_settings(example_copy))
    path = example_copy / "tests" / "quest" / "test_settings.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SETTINGS_TEST, encoding="utf-8")
    quest = "hotel/settings.py::setting"
    result = submit(load_settings(example_copy), quest, test=path, dry_run=True)
    assert result.verdict.root_cause == "coverage-lines", result.verdict.facts
    assert [f.where for f in _facts(result, "coverage-lines")] == ["hotel/settings.py:7"]
    path.write_text(SETTINGS_TEST + "    assert setting(None) == 'off'\n", encoding="utf-8")
    result = submit(load_settings(example_copy), quest, test=path, dry_run=True)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts


def test_without_mutation_only_the_coverage_checks_are_read() -> None:
    # Red team 6, finding 05: `mutation = false` still checks the coverage; the rule reads a
    # killed null mutant and checks the budget left out, nothing else of the event.
    from pytest_quest.rules import mutation

    def off(event: dict[str, Any] | None) -> Any:
        sub = _sub(event)
        sub.settings.mutation = False
        return sub

    reach = {"reach_only": True, "threshold": 0.0, "max_mutants": 0, "budget": 90.0,
             "timeout": 2.0, "clean_seconds": 0.1, "null": NULL_OK,
             "reach": [{"kind": "reach", "line": 4, "outcome": "killed"}]}
    assert list(mutation.check(off(reach))) == []
    assert list(mutation.check(off(None))) == []
    assert list(mutation.check(off({**reach, "classic": _classic(["survived"] * 5)}))) == []
    detected = {**reach, "null": {"outcome": "killed", "by": "t.py::test_x"}}
    assert [f.rule for f in mutation.check(off(detected))] == ["mutation-machinery-detected"]
    assert [f.rule for f in mutation.check(off({**reach, "reach_not_run": 2}))] == [
        "mutation-too-slow"]


def test_import_time_only_event_is_review() -> None:
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "import_time_only": True, "calls": 0, "extreme": [], "classic": []}
    facts = list(mutation.check(_sub(event)))
    assert [(f.rule, f.level) for f in facts] == [("mutation-import-time-only", "review")]
    # A test that detects the machinery still FAILs, import time or not.
    event["null"] = {"outcome": "killed", "by": "t.py::test_x"}
    assert [f.rule for f in mutation.check(_sub(event))] == ["mutation-machinery-detected"]


def test_no_extreme_mutant_left_is_said_not_failed() -> None:
    from pytest_quest.rules import mutation

    event = {"null": NULL_OK, "extreme": [], "extreme_equivalent": 1, "classic": []}
    assert list(mutation.check(_sub(event))) == []
    numbers = mutation.summary(event, 0.6)
    assert numbers["extreme_total"] == 0 and numbers["extreme_equivalent"] == 1
    assert "already trivial" in numbers["note"]


@pytest.mark.slow
def test_function_already_trivial_passes_with_a_note(registry_project: Path) -> None:
    # boltons.funcutils.noop: "body -> return None" is the function itself, it cannot die.
    source = "from hotel.registry import flush\n\ndef test_flush():\n    assert flush() is None\n"
    result = _submit_registry(registry_project, source, "flush")
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["extreme_total"] == 0 and evidence["extreme_equivalent"] == 1
    assert "already trivial" in evidence["note"]


FEE = "hotel/booking.py::cancellation_fee"
#: Line 60 is `return total` of a non-refundable booking; the claim is plausible and untrue.
CLAIM_60 = Claim(60, "non-refundable bookings are rejected upstream")
#: Red team 3, finding 04: every line but 60 runs, and nothing a trivial body breaks is asserted.
FEE_PSEUDO = """
from hotel.booking import cancellation_fee


def test_fee_runs():
    for days in (0, 1, 3, 14):
        assert cancellation_fee(100.0, days) is not None
"""
#: The corpus's good test without its non-refundable case: strong on every line but 60.
FEE_STRONG = (Path(__file__).parent / "cheats" / "good_cancellation_fee.py").read_text(
    encoding="utf-8").split("\n\ndef test_non_refundable")[0]


def test_a_claim_does_not_buy_a_pseudo_test_a_review(submit_test: Callable[..., Result]) -> None:
    # The claim switched the whole mutation stage off ("not fully covered"): REVIEW, and a
    # human approving the fair-looking claim locked a pseudo-test with no mutation evidence.
    result = submit_test(FEE, FEE_PSEUDO, claims=(CLAIM_60,))
    assert result.verdict.outcome is Outcome.FAIL, result.verdict.facts
    assert result.verdict.root_cause == "mutation-pseudo-tested"
    assert result.quest.state is State.TODO and result.quest.tries == 1
    assert not _facts(result, "mutation-not-verified")


def test_a_strong_test_with_a_claim_reaches_a_human_with_its_mutation_figures(
        submit_test: Callable[..., Result], project: Path) -> None:
    result = submit_test(FEE, FEE_STRONG, claims=(CLAIM_60,))
    assert result.verdict.outcome is Outcome.REVIEW, result.verdict.facts
    assert [f.rule for f in result.verdict.facts] == ["coverage-unreachable-claim"]
    ledger = Ledger.load(Ledger.for_root(project).path)
    figures = read_attempts(ledger, FEE)[-1].other["mutation"]
    assert figures["extreme_killed"] == figures["extreme_total"] >= 1
    assert figures["classic_killed"] >= 1 and figures["score"] >= 0.6
    # The reviewer sees what ran; approving keeps the figures in the lock.
    (item,) = review_queue(ledger, FEE)
    assert item["mutation"] == figures
    decided = record_decision(project, FEE, Action.APPROVE, "upstream rejects them", "Ada")
    assert decided.after.evidence is not None
    assert decided.after.evidence.mutation == figures


#: A test of another function beside the strong ones: it names nothing that reaches the target.
UNRELATED = """

from hotel.pricing import round_to_cents

def test_rounding_is_half_up():
    assert round_to_cents(1.234) == 1.23
"""

#: A unittest class of another function: its methods are collected by unittest, not pytest.
UNITTEST = """

import unittest

class TestRounding(unittest.TestCase):
    def test_negative_amounts_round_half_up_too(self):
        self.assertEqual(round_to_cents(-1.234), -1.23)
"""

#: The strong tests need a test before them that names nothing reaching the target.
ORDERED = """
import pytest
from hotel.pricing import nightly_rate

BASE = {}

def test_the_base_rate_is_set_first():
    BASE["rate"] = 100.0
    assert BASE == {"rate": 100.0}

def test_standard():
    assert nightly_rate(BASE["rate"], "standard", 2) == 100.0

def test_seasons():
    assert nightly_rate(BASE["rate"], "high", 6) == 125.0
    assert nightly_rate(BASE["rate"], "low", 1) == 80.0

def test_long_stays():
    assert nightly_rate(BASE["rate"], "high", 7) == 112.5
    assert nightly_rate(BASE["rate"], "standard", 7) == 90.0

def test_nights_must_be_positive():
    with pytest.raises(ValueError):
        nightly_rate(BASE["rate"], "standard", 0)
    assert nightly_rate(BASE["rate"], "standard", 1) == 100.0
"""


def test_tests_that_cannot_reach_the_target_are_left_out_of_the_first_schedule(
        submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, STRONG + UNRELATED + UNITTEST)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["left_out"] == 2 and evidence["whole_file"] is None
    assert evidence["classic_killed"] == 12
    # The measuring run's recorder heard the kept tests: the float zero is an extreme mutant,
    # for the whole body and for every value returned.
    assert evidence["extreme_total"] == evidence["extreme_killed"] == 3


def test_a_detector_beside_a_left_out_test_still_fails(
        submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, DETECTOR + UNRELATED)
    assert result.verdict.outcome is Outcome.FAIL
    assert result.verdict.root_cause == "run-reads-target"


def test_tests_that_need_a_left_out_one_run_again_with_every_test(
        submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, ORDERED)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["left_out"] == 1
    assert evidence["whole_file"] == "the first judged clean run failed with the selected tests"
    assert evidence["classic_killed"] == 12


#: The only test that runs the ``raise`` block reaches the target by a name built at run time:
#: the selection cannot see it and leaves it out.
BY_A_BUILT_NAME = """
import importlib

import pytest

from hotel.pricing import nightly_rate

def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0

def test_seasons():
    assert nightly_rate(100.0, "high", 6) == 125.0
    assert nightly_rate(100.0, "low", 1) == 80.0

def test_long_stays():
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "standard", 7) == 90.0

def test_nights_must_be_positive():
    rate = getattr(importlib.import_module("hotel.pricing"), "nightly" + "_rate")
    with pytest.raises(ValueError):
        rate(100.0, "standard", 0)
"""


def test_a_check_only_a_left_out_test_passes_runs_again_with_every_test(
        submit_test: Callable[..., Result]) -> None:
    # The first schedule passes with the selected tests; the reach check of the raise block
    # survives without the left-out test that runs it, and dies when every test runs. Judged
    # on its first run it was forged coverage: a false FAIL.
    result = submit_test(QUEST, BY_A_BUILT_NAME)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["left_out"] == 1 and evidence["whole_file"] is None
    assert evidence["again"] >= 1


#: Every check in a fixture's teardown: the measuring run's recorder hears the calls there.
IN_TEARDOWN = """
import pytest
from hotel.pricing import nightly_rate

CASES = [("standard", 2, 100.0), ("high", 6, 125.0), ("low", 1, 80.0), ("high", 7, 112.5),
         ("standard", 7, 90.0), ("standard", 6, 100.0), ("standard", 1, 100.0)]

@pytest.fixture
def checked():
    yield
    for season, nights, rate in CASES:
        assert nightly_rate(100.0, season, nights) == rate
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)

def test_rates(checked):
    pass
"""


def test_calls_in_a_fixture_teardown_are_heard(submit_test: Callable[..., Result]) -> None:
    # Red team 69: unheard, they left no return type, and the extreme mutant returning 0.0 was
    # never made; now heard: None, 0.0, and every value returned replaced by 0.0.
    result = submit_test(QUEST, IN_TEARDOWN)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["extreme_total"] == evidence["extreme_killed"] == 3


def test_a_long_chain_of_helpers_costs_the_judge_no_time_limit(
        submit_test: Callable[..., Result]) -> None:
    # Red team 67: read once per hop, a file like this took the judge past the gate's limit
    # (run-timeout, a try spent) while its tests ran in milliseconds.
    chain = [f"def h{i}():\n    return h{i + 1}" for i in range(3000)]
    chained = "\n\n" + "\n".join(chain) + "\n\ndef h3000():\n    return nightly_rate\n"
    result = submit_test(QUEST, STRONG + chained + UNRELATED)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    assert result.quest.evidence.mutation["left_out"] == 1


#: A left-out test sets where the checking test writes its report (red team 68): without it
#: the write lands in the project, which the sandbox denies.
REPORT_DIR = """
import os

import pytest

from hotel.pricing import nightly_rate

EXPECTED = [("high", 1, 125.0), ("low", 1, 80.0), ("mid", 7, 90.0), ("high", 7, 112.5)]


def test_reports_go_to_a_scratch_dir(tmp_path_factory):
    os.environ["RATES_REPORT_DIR"] = str(tmp_path_factory.mktemp("reports"))
    assert os.path.isdir(os.environ["RATES_REPORT_DIR"])


def test_rates_report():
    rows = [(season, nights, nightly_rate(100.0, season, nights))
            for season, nights, _ in EXPECTED]
    path = os.path.join(os.environ.get("RATES_REPORT_DIR", "."), "rates.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(f"{s},{n},{r}\\n" for s, n, r in rows)
    assert rows == EXPECTED
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
"""


def test_a_call_denied_only_without_a_left_out_test_runs_every_test_again(
        submit_test: Callable[..., Result]) -> None:
    result = submit_test(QUEST, REPORT_DIR)
    assert result.verdict.outcome is Outcome.PASS, result.verdict.facts
    evidence = result.quest.evidence.mutation
    assert evidence["whole_file"] == "the sandbox denied a call with the selected tests"
