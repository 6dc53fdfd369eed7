"""The agent's loop through the real CLI: scan, next, submit; exit codes and JSON contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.ledger import Ledger, read_attempts
from pytest_quest.pool import Leases
from tests.test_submit import FULL, PARTIAL

QUEST = "hotel/pricing.py::nightly_rate"
TEST = "tests/quest/test_hotel_pricing__nightly_rate.py"


def run(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--root", str(project)], catch_exceptions=False)
    return result.exit_code, result.stdout


def write(project: Path, source: str, rel: str = TEST) -> Path:
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return path


def submit_json(project: Path, *extra: str) -> tuple[int, dict]:
    code, out = run(project, "submit", QUEST, "--json", *extra)
    return code, json.loads(out)


@pytest.mark.slow
def test_scan_json_and_rescan_merge(example_copy: Path) -> None:
    code, out = run(example_copy, "scan", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["total"], data["added"], data["locked_by_baseline"]) == (39, 39, 5)
    assert data["counts"]["PASS"] == 5 and data["remaining"] == 34
    pricing = example_copy / "hotel" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("def tax_amount", "def tax_amount_v2")
                       + "\n\ndef brand_new(x):\n    return x * 2\n")
    code, out = run(example_copy, "scan", "--json", "--no-baseline")
    data = json.loads(out)
    assert (data["added"], data["retired"]) == (2, 1)
    ledger = Ledger.load(Ledger.for_root(example_copy).path)
    assert ledger.get("hotel/pricing.py::tax_amount").state.value == "RETIRED"
    assert ledger.get("hotel/pricing.py::brand_new").state.value == "TODO"
    assert ledger.counts()["PASS"] == 5  # every PASS kept
    assert len(ledger.scans) == 2


def test_next_json_contract(project: Path) -> None:
    code, out = run(project, "next", "--json")
    data = json.loads(out)
    assert code == 0
    for key in ("quest", "path", "qualname", "lines", "missing_lines", "tries", "max_tries",
                "test_path", "facts", "prompt", "example", "submit"):
        assert key in data
    assert data["test_path"].startswith("tests/quest/test_")
    assert data["missing_lines"] and data["tries"] == 0 and data["max_tries"] == 3


def test_next_human_output_names_the_test_path(project: Path) -> None:
    code, out = run(project, "next")
    assert code == 0 and "Write your test to:" in out and "pytest-quest submit" in out


def test_partial_then_full_then_locked(project: Path) -> None:
    write(project, PARTIAL)
    code, data = submit_json(project)
    assert code == 1
    assert (data["verdict"], data["state"], data["tries"]) == ("FAIL", "TODO", 1)
    assert data["facts"][0]["rule"] == "coverage-lines"
    assert data["facts"][0]["where"] == "hotel/pricing.py:7,9,11,15"
    code, out = run(project, "next", "--json")
    nxt = json.loads(out)
    assert nxt["quest"] != QUEST or nxt["missing_lines"] == [7, 9, 11, 15]

    write(project, FULL)
    code, data = submit_json(project)
    assert code == 0, data
    assert (data["verdict"], data["state"]) == ("PASS", "PASS")
    before = Ledger.for_root(project).path.read_text()
    code, out = run(project, "submit", QUEST, "--json")
    assert code == 4
    assert Ledger.for_root(project).path.read_text() == before
    attempts = read_attempts(Ledger.load(Ledger.for_root(project).path), QUEST)
    assert [a.verdict for a in attempts] == ["FAIL", "PASS"]


def test_three_fails_end_in_done(project: Path) -> None:
    states = []
    for n in range(3):
        write(project, PARTIAL + f"\n# try {n}\n")  # a changed file: a byte-identical one is free
        code, data = submit_json(project)
        assert code == 1
        states.append((data["state"], data["tries"]))
    assert states == [("TODO", 1), ("TODO", 2), ("DONE", 3)]
    code, _ = run(project, "submit", QUEST)
    assert code == 4


def test_edited_source_is_rescan_needed_not_a_try(project: Path) -> None:
    pricing = project / "hotel" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("base * 1.25", "base * 1.5"))
    write(project, FULL)
    code, data = submit_json(project)
    assert code == 2
    assert data["kind"] == "RescanNeeded"
    assert "hotel/pricing.py (changed)" in data["error"] and "pytest-quest scan" in data["error"]
    assert Ledger.load(Ledger.for_root(project).path).get(QUEST).tries == 0

    pricing.write_text(pricing.read_text().replace("base * 1.5", "base * 1.25"))  # restored
    write(project, "def helper():\n    return 1\n", rel="hotel/extra.py")  # a new module
    code, data = submit_json(project)
    assert (code, data["kind"]) == (2, "RescanNeeded")
    assert "hotel/extra.py (new)" in data["error"]


def test_edited_existing_test_still_fails_on_scope(project: Path) -> None:
    conftest = project / "tests" / "conftest.py"
    conftest.write_text(conftest.read_text() + "\n# edited\n")
    write(project, FULL)
    code, data = submit_json(project)
    assert code == 1
    facts = [f for f in data["facts"] if f["rule"] == "scope-protected-files"]
    assert [f["where"] for f in facts] == ["tests/conftest.py"]


def test_new_conftest_outside_quest_folder_fails_on_scope(project: Path) -> None:
    write(project, "import pytest\n", rel="hotel/conftest.py")
    write(project, FULL)
    code, data = submit_json(project)
    assert code == 1
    assert any(f["where"] == "hotel/conftest.py" and f["actual"] == "a new file"
               for f in data["facts"])


def test_hanging_test_fails_within_the_timeout(project: Path) -> None:
    hang = "\n\ndef test_hangs():\n    n = 1\n    while n:\n        n += 1\n    assert n == 0\n"
    write(project, FULL + hang)
    code, data = submit_json(project, "--timeout", "3")
    assert code == 1
    assert data["facts"][0]["rule"] == "run-timeout"
    assert data["seconds"] < 10


def test_failing_assertion_is_quoted(project: Path) -> None:
    write(project, FULL.replace("== 80.0", "== 81.0"))
    code, data = submit_json(project)
    assert code == 1
    fact = data["facts"][0]
    assert fact["rule"] == "run-exit-code"
    assert fact["where"].endswith("::test_low")
    assert "80.0 == 81.0" in fact["actual"]


def test_writing_outside_the_sandbox_is_blocked(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    escape = f"\n\ndef test_escape():\n    assert open({str(target)!r}, 'w').write('x') == 1\n"
    write(project, FULL + escape)
    code, data = submit_json(project)
    assert code == 1
    assert not target.exists()
    assert any(f["rule"] == "run-sandbox-violation" for f in data["facts"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["submit", "hotel/nope.py::f"], "unknown quest"),
        (["submit", QUEST, "--test", "tests/quest/missing.py"], "does not exist"),
        (["submit", QUEST, "--unreachable", "nonsense"], "--unreachable"),
    ],
)
def test_bad_input_is_exit_2_and_writes_nothing(project: Path, args: list[str], message: str
                                               ) -> None:
    before = Ledger.for_root(project).path.read_text()
    result = CliRunner().invoke(cli, [*args, "--root", str(project)])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert Ledger.for_root(project).path.read_text() == before


def test_test_outside_the_project_is_exit_2(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "test_elsewhere.py"
    outside.write_text(FULL)
    result = CliRunner().invoke(cli, ["submit", QUEST, "--test", str(outside), "--root",
                                      str(project)])
    assert result.exit_code == 2 and "outside the project" in result.stderr


def test_environment_fault_spends_no_try(project: Path) -> None:
    pricing = project / "hotel" / "pricing.py"
    pricing.write_text("import module_that_is_not_installed\n" + pricing.read_text())
    run(project, "scan", "--no-baseline")
    write(project, FULL)
    result = CliRunner().invoke(cli, ["submit", QUEST, "--root", str(project)])
    assert result.exit_code == 2
    assert "could not verify" in result.stderr and "no try was spent" in result.stderr
    assert Ledger.load(Ledger.for_root(project).path).get(QUEST).tries == 0


def test_unreachable_claim_goes_to_review(project: Path) -> None:
    write(project, FULL.replace("def test_rejects_zero_nights", "def _unused"))
    code, data = submit_json(project, "--unreachable", '7:"callers never pass 0"')
    assert code == 3
    assert (data["verdict"], data["state"], data["tries"]) == ("REVIEW", "REVIEW", 0)
    assert any(f["rule"] == "coverage-unreachable-claim" and f["where"] == "hotel/pricing.py:7"
               for f in data["facts"])


def test_rules_json_lists_the_catalog() -> None:
    result = CliRunner().invoke(cli, ["rules", "--json"])
    rules = json.loads(result.stdout)
    assert result.exit_code == 0
    assert {"id", "level", "stage", "description"} <= set(rules[0])
    assert {"coverage-lines", "run-timeout", "scope-protected-files"} <= {r["id"] for r in rules}


def test_no_quest_left_is_null(project: Path) -> None:
    path = Ledger.for_root(project).path
    ledger = Ledger.load(path)
    for quest in list(ledger.quests.values()):
        ledger.put(quest.with_(state=quest.state.__class__("DONE")))
    ledger.save()
    code, out = run(project, "next", "--json")
    assert code == 0 and json.loads(out)["quest"] is None


@pytest.mark.slow
def test_demo_tells_one_story_about_one_quest() -> None:
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    shown = out.index("quest hotel/pricing.py::nightly_rate")  # next shows the quest it solves
    failed = out.index("FAIL hotel/pricing.py::nightly_rate")
    assert shown < failed
    assert "hotel/pricing.py:7,9,11,15" in out[failed:]
    # next again: the same quest with the source, exactly the failed lines still to execute
    again = out.index("quest hotel/pricing.py::nightly_rate", failed)
    assert "Lines your test must execute: 7, 9, 11, 15" in out[again:]
    assert "raise ValueError" in out[again:]
    assert out.index("PASS hotel/pricing.py::nightly_rate -> PASS") > again



def test_target_that_needs_the_conftest_to_import(project: Path) -> None:
    pricing = project / "hotel" / "pricing.py"
    pricing.write_text('import os\nMODE = os.environ["HOTEL_MODE"]\n' + pricing.read_text())
    conftest = project / "tests" / "conftest.py"
    conftest.write_text('import os\nos.environ.setdefault("HOTEL_MODE", "test")\n'
                        + conftest.read_text())
    run(project, "scan", "--no-baseline")
    write(project, FULL)
    code, data = submit_json(project)
    assert code == 0, data


def test_function_deleted_at_import_goes_to_review(project: Path) -> None:
    pricing = project / "hotel" / "pricing.py"
    extra = "\n\ndef _double(x):\n    return x * 2\n\n\nDOUBLE = _double(2)\ndel _double\n"
    pricing.write_text(pricing.read_text() + extra)
    run(project, "scan", "--no-baseline")
    quest = "hotel/pricing.py::_double"
    write(project, "from hotel.pricing import DOUBLE\n\n\ndef test_double():\n"
                   "    assert DOUBLE == 4\n",
          rel="tests/quest/test_hotel_pricing__double_ee8aeb.py")
    code, out = run(project, "submit", quest, "--json")
    data = json.loads(out)
    assert code == 3, data
    assert (data["verdict"], data["tries"]) == ("REVIEW", 0)
    assert any(f["rule"] == "run-target-unreachable" for f in data["facts"])


def test_parallel_agents_get_different_quests_and_keep_theirs(project: Path) -> None:
    _, out_a = run(project, "next", "--json", "--agent", "alice")
    _, out_b = run(project, "next", "--json", "--agent", "bob")
    a, b = json.loads(out_a), json.loads(out_b)
    assert a["quest"] != b["quest"] and a["agent"] == "alice"
    _, again = run(project, "next", "--json", "--agent", "alice")
    assert json.loads(again)["quest"] == a["quest"]
    leases = Leases(project / ".quest").live()
    assert leases[a["quest"]]["agent"] == "alice" and leases[b["quest"]]["agent"] == "bob"


def test_next_human_output_after_a_failure_shows_facts(project: Path) -> None:
    write(project, PARTIAL)
    submit_json(project)
    ledger = Ledger.load(Ledger.for_root(project).path)
    for quest in ledger.ordered():  # make nightly_rate the first open quest
        if quest.id != QUEST and quest.state.value == "TODO":
            ledger.put(quest.with_(state=quest.state.__class__("DONE")))
    ledger.save()
    code, out = run(project, "next")
    assert code == 0
    assert "Facts of the last try" in out and "coverage-lines" in out
    assert "7, 9, 11, 15" in out or "7,9,11,15" in out


def test_next_when_nothing_remains_says_so(project: Path) -> None:
    ledger = Ledger.load(Ledger.for_root(project).path)
    for quest in list(ledger.quests.values()):
        ledger.put(quest.with_(state=quest.state.__class__("DONE")))
    ledger.save()
    code, out = run(project, "next")
    assert code == 0 and "No quest remains" in out


@pytest.mark.slow
def test_scan_human_output_and_unparsable_files(example_copy: Path) -> None:
    (example_copy / "hotel" / "broken.py").write_text("def f(:\n")
    code, out = run(example_copy, "scan")
    assert code == 0
    assert "quests" in out and "could not parse" in out and "hotel/broken.py" in out
    code, data = run(example_copy, "scan", "--json", "--no-baseline")
    assert json.loads(data)["errors"][0]["path"] == "hotel/broken.py"


def test_scan_without_sources_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'empty'\n")
    result = CliRunner().invoke(cli, ["scan", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "no Python sources" in result.stderr


def test_rules_human_table() -> None:
    result = CliRunner().invoke(cli, ["rules"])
    assert result.exit_code == 0 and "coverage-lines" in result.stdout


def test_submit_human_output(project: Path) -> None:
    write(project, PARTIAL)
    code, out = run(project, "submit", QUEST)
    assert code == 1
    assert out.startswith("FAIL hotel/pricing.py::nightly_rate -> TODO (tries 1/3")
    assert "expected: executed by the submitted test" in out and "To flip it:" in out


def test_mutation_line_without_classic_mutants() -> None:
    from pytest_quest.cli.submit import _mutation_line

    full = {"extreme_killed": 2, "extreme_total": 2, "classic_killed": 19, "classic_total": 20,
            "score": 0.95, "threshold": 0.6}
    assert _mutation_line(full) == "extreme 2/2 killed, classic 19/20 (score 0.95, needs 0.60)"
    none = {**full, "classic_killed": 0, "classic_total": 0, "score": None}
    assert _mutation_line(none) == "extreme 2/2 killed, classic 0/0"
    assert _mutation_line({**none, "note": "the body is already trivial"}).endswith(
        "(the body is already trivial)")


@pytest.mark.slow
def test_scan_flags_keep_applying_to_later_commands(example_copy: Path) -> None:
    pyproject = example_copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('sources = ["hotel"]\n', ""))
    code, _ = run(example_copy, "scan", "--no-baseline", "--branch", "--source", "hotel")
    assert code == 0
    write(example_copy, FULL.replace("def test_long_stay_discount_boundary", "def _unused")
          .replace("def test_high_long_stay", "def _unused_too"))
    code, data = submit_json(example_copy)
    assert code == 1
    assert "coverage-branches" in {f["rule"] for f in data["facts"]}  # branch mode remembered


def test_expected_errors_are_json_on_stdout_with_json(project: Path) -> None:
    result = CliRunner().invoke(cli, ["submit", "hotel/nope.py::f", "--json", "--root",
                                      str(project)])
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["kind"] == "UnknownQuest" and data["exit_code"] == 2
    assert "unknown quest" in data["error"]
    plain = CliRunner().invoke(cli, ["submit", "hotel/nope.py::f", "--root", str(project)])
    assert plain.stdout == ""


def test_parametrized_node_ids_keep_their_brackets(project: Path) -> None:
    write(project, FULL + '''

import pytest as _pytest


@_pytest.mark.parametrize("season", ["high"])
def test_wrong(season):
    assert nightly_rate(100.0, season, 1) == 1.0
''')
    code, out = run(project, "submit", QUEST)
    assert code == 1
    assert "test_wrong[high]" in out  # not swallowed as rich markup
