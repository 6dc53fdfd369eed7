"""Plugins: extra rules and checks run in the stage they name, reviewers can only say REVIEW."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pytest_quest
from pytest_quest.config import load_settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.facts import FAIL, REVIEW, Fact
from pytest_quest.gate import CATALOG, STAGES, Catalog, Check, evaluate
from pytest_quest.hookspecs import hookimpl, review_facts
from pytest_quest.quest import Quest
from pytest_quest.rules import (
    BUILTIN_RULES,
    Builtin,
    PluginCheck,
    coverage,
    new_manager,
    static,
    submission_stages,
)
from pytest_quest.states import Outcome
from pytest_quest.submission import Submission

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"


def naming(sub: Submission) -> Iterator[Fact]:
    if "test_nightly_rate" not in sub.test_text:
        yield Fact("team-naming", FAIL, sub.test_rel, "a test named test_nightly_rate*", "none")


class Strict:
    @hookimpl
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        catalog.add("team-naming", FAIL, "static", "tests are named test_<function>", "rename")

    @hookimpl
    def pytest_quest_checks(self) -> list[Check[Submission]]:
        return [Check("static", naming)]

    @hookimpl
    def pytest_quest_review(self, submission: Submission) -> list[Fact]:
        return [Fact("ai-reviewer", FAIL, "t.py:3", "a meaningful assertion", "looks weak")]


def _submission(source: str) -> Submission:
    quest = Quest(id="hotel/pricing.py::nightly_rate", path="hotel/pricing.py",
                  qualname="nightly_rate")
    return Submission(settings=load_settings(EXAMPLE), quest=quest,
                      test_rel="tests/quest/test_x.py",
                      test_bytes=textwrap.dedent(source).encode(), snapshot={})


def test_hookimpl_is_exported_from_the_package() -> None:
    assert pytest_quest.hookimpl is hookimpl
    assert "hookimpl" in pytest_quest.__all__


def test_plugin_rules_join_the_catalog_with_their_origin() -> None:
    catalog = Catalog()
    new_manager(Strict(), catalog=catalog)
    rule = catalog.get("team-naming")
    assert rule is not None and (rule.stage, rule.origin) == ("static", "Strict")
    # The built-in rules came through the same hook, in stage order before the plugin's.
    assert [r for r in catalog if r.origin == "pytest-quest"] == list(BUILTIN_RULES)
    assert rule.to_dict()["origin"] == "Strict"


def test_builtin_rules_are_registered_once_however_often_managers_are_made() -> None:
    before = len(CATALOG)
    new_manager()
    new_manager()
    assert len(CATALOG) == before


def test_plugin_check_runs_in_the_stage_it_declares_after_the_builtin_ones() -> None:
    stages = {s.name: s for s in submission_stages(new_manager(Strict(), catalog=Catalog()))}
    assert stages["static"].checks == (static.check, PluginCheck(naming, "Strict"))
    assert stages["coverage"].checks == (coverage.check,)


def test_a_plugin_check_that_raises_spends_no_try() -> None:
    def broken(sub: Submission) -> Iterator[Fact]:
        raise KeyError("config")

    class Broken:
        @hookimpl
        def pytest_quest_checks(self) -> list[Check[Submission]]:
            return [Check("static", broken)]

    catalog = Catalog()
    stages = submission_stages(new_manager(Broken(), catalog=catalog))
    with pytest.raises(EnvironmentFault, match=r"the check .*broken of plugin 'Broken' failed "
                                               r"\(KeyError: 'config'\); no try was spent"):
        evaluate(stages, _submission("def test_x():\n    assert 1\n"), catalog)


@pytest.mark.parametrize("returned", [[naming], Check("static", naming), 3])
def test_a_plugin_that_returns_no_checks_is_named_before_any_stage_runs(returned: object) -> None:
    class Sloppy:
        @hookimpl
        def pytest_quest_checks(self) -> object:
            return returned

    with pytest.raises(EnvironmentFault, match=r"plugin 'Sloppy': pytest_quest_checks must "
                                               r"return a list of pytest_quest.gate.Check"):
        submission_stages(new_manager(Sloppy(), catalog=Catalog()))


def test_a_plugin_may_declare_no_checks() -> None:
    class Quiet:
        @hookimpl
        def pytest_quest_checks(self) -> None:
            return None

    stages = submission_stages(new_manager(Quiet(), catalog=Catalog()))
    assert [c for s in stages[:-1] for c in s.checks] == [
        c.run for c in Builtin().pytest_quest_checks()]


def test_a_failing_plugin_check_stops_the_gate_in_its_stage() -> None:
    catalog = Catalog()
    manager = new_manager(Strict(), catalog=catalog)
    good = """
        from hotel.pricing import nightly_rate

        def test_rate():
            assert nightly_rate(100, 2) == 200
    """
    evaluation = evaluate(submission_stages(manager), _submission(good), catalog)
    assert evaluation.verdict.outcome is Outcome.FAIL
    assert evaluation.verdict.root_cause == "team-naming"
    assert evaluation.verdict.hint == "rename"
    # Stopped after static: the scope stage never paid for a sandbox copy.
    assert evaluation.context.sandbox is None and evaluation.context.tree is not None


def test_reviewers_are_lowered_to_review() -> None:
    manager = new_manager(Strict(), catalog=Catalog())
    (fact,) = review_facts(_submission(""), manager)
    assert (fact.rule, fact.level) == ("ai-reviewer", REVIEW)


def test_reviewers_run_in_the_last_stage() -> None:
    stages = submission_stages(new_manager(Strict(), catalog=Catalog()))
    assert stages[-1].name == STAGES[-1] == "review"
    (check,) = stages[-1].checks
    (fact,) = check(_submission(""))
    assert fact.level == REVIEW


def test_without_plugins_only_the_builtin_checks_run() -> None:
    stages = submission_stages(new_manager(catalog=Catalog()))
    declared = [c.run for c in Builtin().pytest_quest_checks()]
    assert [c for s in stages[:-1] for c in s.checks] == declared
    (check,) = stages[-1].checks
    assert list(check(_submission(""))) == []


# ------------------------------------------- a real plugin distribution, end to end
PLUGINS_DOC = Path(__file__).resolve().parent.parent / "docs" / "plugins.md"
QUEST = "hotel/pricing.py::nightly_rate"


def _documented_plugin() -> str:
    """The plugin module exactly as docs/plugins.md shows it."""
    blocks = re.findall(r"```python\n(.*?)```", PLUGINS_DOC.read_text(encoding="utf-8"), re.S)
    (module,) = [b for b in blocks if b.startswith("# file: quest_team_rules.py\n")]
    return module


@pytest.fixture
def installed(tmp_path: Path) -> dict[str, str]:
    """The documented plugin installed as a distribution: module + .dist-info, as pip writes.

    Returns the environment of a process that sees it (on ``PYTHONPATH``).
    """
    site = tmp_path / "site"
    info = site / "quest_team_rules-0.1.0.dist-info"
    info.mkdir(parents=True)
    (site / "quest_team_rules.py").write_text(_documented_plugin(), encoding="utf-8")
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: quest-team-rules\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[pytest_quest]\nteam = quest_team_rules\n", encoding="utf-8")
    (info / "top_level.txt").write_text("quest_team_rules\n", encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


def _cli(env: dict[str, str], *args: str) -> tuple[int, Any]:
    done = subprocess.run([sys.executable, "-m", "pytest_quest", *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_an_installed_plugins_rules_are_listed(installed: dict[str, str]) -> None:
    code, rules = _cli(installed, "rules")
    assert code == 0
    by_id = {r["id"]: r for r in rules}
    assert (by_id["team-test-names"]["level"], by_id["team-test-names"]["stage"]) == (
        "fail", "static")
    assert by_id["team-raises-match"]["stage"] == "review"
    assert by_id["team-test-names"]["origin"] == "quest_team_rules"
    assert by_id["coverage-lines"]["origin"] == "pytest-quest"
    human = subprocess.run([sys.executable, "-m", "pytest_quest", "rules"], env=installed,
                           capture_output=True, text=True, timeout=300,
                           check=True).stdout
    assert "from: who added it" in human and "quest_team_rules" in human
    assert rules[-1]["id"] == "team-raises-match"  # listed in stage order, review last


@pytest.mark.slow
def test_an_installed_plugin_judges_a_real_submission(installed: dict[str, str],
                                                      project: Path) -> None:
    from tests.test_submit import FULL

    test = project / "tests" / "quest" / "test_hotel_pricing__nightly_rate.py"
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(FULL, encoding="utf-8")
    code, first = _cli(installed, "submit", QUEST, "--test", str(test), "--root", str(project))
    assert (code, first["verdict"], first["root_cause"]) == (1, "FAIL", "team-test-names")
    assert first["hint"] == "Rename the tests to test_<function>_<case>."
    assert first["seconds"] == 0  # stopped in static: the sandbox never ran
    assert {f["rule"] for f in first["facts"]} == {"team-test-names"}

    test.write_text(FULL.replace("def test_", "def test_nightly_rate_"), encoding="utf-8")
    code, second = _cli(installed, "submit", QUEST, "--test", str(test), "--root", str(project))
    assert (code, second["verdict"], second["state"]) == (3, "REVIEW", "REVIEW")
    (fact,) = second["facts"]
    assert (fact["rule"], fact["level"]) == ("team-raises-match", "review")  # said fail
    assert second["seconds"] > 0
