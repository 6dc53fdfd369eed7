"""Gate mechanics: staged evaluation stops early, supersedes names the root cause."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import pytest_quest.rules  # noqa: F401 - registers the catalog
from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG, STAGES, Catalog, Check, Stage, evaluate, resolve, stages
from pytest_quest.states import Outcome


def _catalog() -> Catalog:
    cat = Catalog()
    cat.add("cheap", FAIL, "static", "d", "fix cheap")
    cat.add("root", FAIL, "run", "d", "fix root", supersedes=("cov",))
    cat.add("cov", FAIL, "coverage", "d", "cover")
    cat.add("claim", REVIEW, "coverage", "d", "wait")
    return cat


def _fact(rule: str, level: str = FAIL) -> Fact:
    return Fact(rule, level, "w", "e", "a")


def test_stops_after_first_failing_stage_and_prepares_lazily() -> None:
    cat = _catalog()
    seen: list[str] = []

    def prepare(name: str) -> Callable[[tuple[str, ...]], tuple[str, ...]]:
        def step(context: tuple[str, ...]) -> tuple[str, ...]:
            seen.append(name)
            return (*context, name)
        return step

    chain = [Stage("static", (lambda c: [_fact("cheap")],), prepare("static")),
             Stage("run", (lambda c: [_fact("root")],), prepare("run"))]
    evaluation = evaluate(chain, (), cat)
    assert seen == ["static"]
    assert evaluation.context == ("static",)
    verdict = evaluation.verdict
    assert verdict.outcome is Outcome.FAIL
    assert (verdict.root_cause, verdict.hint) == ("cheap", "fix cheap")


def test_each_stage_reads_what_its_preparation_returned() -> None:
    read: list[int] = []
    chain = [Stage("static", (lambda c: read.append(c) or [],), lambda c: c + 1),
             Stage("run", (lambda c: read.append(c) or [],), lambda c: c * 10)]
    assert evaluate(chain, 1, _catalog()).context == 20
    assert read == [2, 20]


def test_stages_follow_the_one_list_and_keep_declaration_order() -> None:
    def a(c: object) -> list[Fact]:
        return []

    def b(c: object) -> list[Fact]:
        return []

    built = stages([Check("run", b), Check("static", a), Check("run", a)], {"run": id})
    assert tuple(s.name for s in built) == STAGES
    by_name = {s.name: s for s in built}
    assert by_name["run"].checks == (b, a) and by_name["run"].prepare is id
    assert by_name["static"].checks == (a,) and by_name["static"].prepare is None
    with pytest.raises(ValueError, match="unknown stage"):
        Check("later", a)
    with pytest.raises(ValueError, match="unknown stage"):
        stages([], {"later": id})


def test_supersedes_hides_noise() -> None:
    facts = resolve([_fact("cov"), _fact("root")], _catalog())
    assert [f.rule for f in facts] == ["root"]


def test_review_only_is_review_with_hint() -> None:
    verdict = evaluate([Stage("coverage", (lambda c: [_fact("claim", REVIEW)],))], None,
                       _catalog()).verdict
    assert (verdict.outcome, verdict.root_cause, verdict.hint) == (Outcome.REVIEW, "claim", "wait")


def test_no_facts_is_pass() -> None:
    verdict = evaluate([Stage("static", (lambda c: [],))], None, _catalog()).verdict
    assert verdict.outcome is Outcome.PASS and verdict.root_cause is None


@pytest.mark.parametrize(("level", "stage"), [("maybe", "static"), (FAIL, "nowhere")])
def test_catalog_rejects_bad_rules(level: str, stage: str) -> None:
    with pytest.raises(ValueError):
        Catalog().add("x", level, stage, "d", "h")


def test_catalog_rejects_duplicates() -> None:
    cat = _catalog()
    with pytest.raises(ValueError):
        cat.add("cheap", FAIL, "static", "d", "h")


def test_include_takes_a_rule_once_and_refuses_a_namesake() -> None:
    cat = _catalog()
    rule = cat.get("cheap")
    assert rule is not None
    other = Catalog()
    other.include(rule)
    other.include(rule)
    assert list(other) == [rule]
    with pytest.raises(ValueError, match="defined twice"):
        cat.include(Catalog().add("cheap", FAIL, "run", "another", "h"))


def test_real_catalog_is_documented_and_ordered() -> None:
    rules = list(CATALOG)
    assert len(rules) >= 10
    for rule in rules:
        assert rule.description and rule.hint and rule.level in (FAIL, REVIEW)
    assert any(r.id == "coverage-lines" for r in rules)
    stages = [r.stage for r in rules]
    assert stages.index("static") < stages.index("coverage")


def test_a_check_that_raises_is_a_review_fact_and_our_own_errors_go_on() -> None:
    """Red team 52: a rule that raised on the file (``ast.unparse`` refused an f-string) made
    ``submit`` answer with a traceback. The file goes to a person instead; a fault of the
    environment (could not verify) still reaches the caller."""
    from pytest_quest.errors import EnvironmentFault
    from pytest_quest.gate import RULE_ERROR

    cat = _catalog()
    cat.include(RULE_ERROR)

    def broken(context: object) -> list[Fact]:
        raise ValueError("Unable to avoid backslash in f-string expression part")

    chain = [Stage("static", (lambda c: [_fact("cheap", REVIEW)], broken),),
             Stage("run", (lambda c: [_fact("root")],))]
    verdict = evaluate(chain, (), cat).verdict
    error = next(f for f in verdict.facts if f.rule == "gate-rule-error")
    assert error.level == REVIEW and error.where.startswith("static: ")
    assert "broken" in error.where and error.actual.startswith("ValueError: Unable to avoid")
    assert verdict.outcome is Outcome.FAIL  # the later stage still ran: REVIEW stops nothing

    def faulty(context: object) -> list[Fact]:
        raise EnvironmentFault("no disk")

    with pytest.raises(EnvironmentFault):
        evaluate([Stage("static", (faulty,))], (), cat)


def test_a_collection_error_is_the_root_cause_and_no_flaky_fact_beside_it() -> None:
    """Red team 55: a test module that does not import failed every clean control run too,
    and the agent read "flaky" beside the import error."""
    facts = [Fact("run-collection", FAIL, "t.py", "imports", "ImportError"),
             Fact("run-flaky", FAIL, "t.py", "every clean run passes", "a control failed")]
    assert [f.rule for f in resolve(facts, CATALOG)] == ["run-collection"]
    flaky_alone = [Fact("run-flaky", FAIL, "t.py", "every clean run passes", "1 of 2")]
    assert resolve(flaky_alone, CATALOG) == flaky_alone
